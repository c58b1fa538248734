/** The worker thread that parses large YAML bodies and computes large patches off the server's event loop (see `off-loop-worker.ts`). */
import { parentPort } from 'node:worker_threads';
import { runOffLoopTask } from './off-loop-task.js';
import type { OffLoopTask } from './off-loop-task.js';

parentPort?.on('message', (request: { id: number; task: OffLoopTask }) => {
  parentPort?.postMessage({ id: request.id, reply: runOffLoopTask(request.task) });
});
// Loaded: from now on an exit is a crash, not a worker that could not start.
parentPort?.postMessage({ ready: true });
