/** The worker thread that parses large YAML bodies off the server's event loop (see `yaml-parser.ts`). */
import { parentPort } from 'node:worker_threads';
import { parseYamlText } from './yaml-text.js';

// A parsed value goes back as JSON text: the server's JSON.parse of it is several times faster than
// deserializing the structured clone of an object with many small members.
parentPort?.on('message', (request: { id: number; text: string }) => {
  const parsed = parseYamlText(request.text);
  parentPort?.postMessage(parsed.ok ? { id: request.id, json: JSON.stringify(parsed.value) } : { id: request.id, parsed });
});
// Loaded: from now on an exit is a crash, not a worker that could not start.
parentPort?.postMessage({ ready: true });
