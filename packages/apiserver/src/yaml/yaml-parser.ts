/**
 * Where a YAML request body is parsed. The `yaml` package parses about 1 MB/s, so a body of a few
 * hundred kilobytes of real YAML would hold the event loop, and every other client, for a large
 * part of a second. Bodies from {@link offLoopThresholdBytes} up are parsed in a worker thread
 * (one, started on first use, reused, never holding the process open); smaller ones, and JSON
 * documents sent as YAML (parsed by `JSON.parse` in milliseconds), in the request's own turn. When
 * the worker cannot run (its module missing, a crash), the body is parsed in-thread: the answer is
 * the same, only slower.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseAsJson, parseYamlText } from './yaml-text.js';
import type { YamlParsed } from './yaml-text.js';

/** Bodies this size (bytes of text) and larger are parsed off the event loop: about 60 ms of parsing in-thread. */
export const offLoopThresholdBytes = 64 * 1024;

// The worker's module beside this one: `.js` from dist, `.ts` when run from sources (tsx).
const workerModule = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './yaml-worker-main.ts' : './yaml-worker-main.js', import.meta.url));

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, (parsed: YamlParsed | undefined) => void>();

function startWorker(): Worker | undefined {
  if (!existsSync(workerModule)) return undefined;
  // From dist the worker needs none of the process's flags (some, such as the test runner's or
  // `--input-type`, make a worker fail); from sources it needs the loader that runs TypeScript.
  const started = new Worker(workerModule, workerModule.endsWith('.ts') ? {} : { execArgv: [] });
  started.unref();
  started.on('message', (reply: { id: number; parsed?: YamlParsed; json?: string }) => {
    const resolve = pending.get(reply.id);
    pending.delete(reply.id);
    resolve?.(reply.json !== undefined ? { ok: true, value: JSON.parse(reply.json) as unknown } : reply.parsed);
    if (pending.size === 0) started.unref();
  });
  const fail = (): void => {
    if (worker === started) worker = undefined;
    // Each waiting request parses its body in-thread instead.
    for (const resolve of pending.values()) resolve(undefined);
    pending.clear();
  };
  started.on('error', fail);
  started.on('exit', fail);
  return started;
}

/** Parses a YAML request body: in a worker thread when it is large and not JSON, else at once. */
export async function parseYamlBody(text: string): Promise<YamlParsed> {
  const json = parseAsJson(text);
  if (json) return json;
  if (text.length < offLoopThresholdBytes) return parseYamlText(text);
  worker ??= startWorker();
  const running = worker;
  if (!running) return parseYamlText(text);
  const id = nextId++;
  // Held while a parse is in flight, so a server waiting only for it is not left without work.
  running.ref();
  const parsed = await new Promise<YamlParsed | undefined>((resolve) => {
    pending.set(id, resolve);
    running.postMessage({ id, text });
  });
  return parsed ?? parseYamlText(text);
}
