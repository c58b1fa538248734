/**
 * Where a YAML request body is parsed. The `yaml` package parses about 1 MB/s, so a body of a few
 * hundred kilobytes of real YAML would hold the event loop, and every other client, for a large
 * part of a second. Bodies from {@link offLoopThresholdChars} up are parsed in a worker thread
 * (one per server, started on first use, reused, never holding the process open, terminated when
 * the server stops); smaller ones, and JSON documents sent as YAML (parsed by `JSON.parse` in
 * milliseconds), in the request's own turn.
 *
 * When the worker cannot start (its module missing, or TypeScript sources loaded without a loader
 * the worker can use), bodies are parsed in-thread from then on: the answer is the same, only the
 * event loop is held. When a running worker dies, the request whose body it was parsing fails
 * with a 500 (that body is not parsed again: it may be what killed the worker); the bodies queued
 * behind it go to a new worker.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { internalError } from '../http/status-error.js';
import { parseAsJson, parseYamlText } from './yaml-text.js';
import type { YamlParsed } from './yaml-text.js';

/**
 * Bodies this long (characters) and longer are parsed off the event loop. Measured on the 2-core
 * machine under load (load average 6.5), block YAML in-thread, median and worst of 7: 16 KiB 6 and
 * 7 ms, 32 KiB 25 and 45 ms, 64 KiB 57 and 92 ms (most of the 100 ms a request may hold the loop).
 * Through the worker a 16 KiB body takes about 55 ms but holds the loop at most 12 ms.
 */
export const offLoopThresholdChars = 16 * 1024;

// Each a literal `new URL` beside this module, so that the packed-tarball check finds the `.js` one.
const compiledWorker = new URL('./yaml-worker-main.js', import.meta.url);
const sourceWorker = new URL('./yaml-worker-main.ts', import.meta.url);

/** The worker's module beside this one: `.js` from dist, `.ts` when run from sources (tsx). */
export const defaultWorkerModule = fileURLToPath(import.meta.url.endsWith('.ts') ? sourceWorker : compiledWorker);

/** How a {@link YamlBodyParser} works. */
export interface YamlBodyParserOptions {
  /** Bodies this long (characters) and longer go to the worker. Default: {@link offLoopThresholdChars}. */
  readonly offLoopThresholdChars?: number;
  /** The worker thread's module (a file path). Default: {@link defaultWorkerModule}. */
  readonly workerModule?: string;
  /** Where the one line saying the worker could not start goes. Default: none. */
  readonly logger?: (line: string) => void;
}

/** A message from the worker: ready once loaded, then one reply per body. */
type WorkerReply = { readonly ready: true } | { readonly id: number; readonly json: string } | { readonly id: number; readonly parsed: YamlParsed };

interface PendingParse {
  readonly text: string;
  readonly resolve: (parsed: YamlParsed) => void;
  readonly reject: (err: Error) => void;
}

interface RunningWorker {
  readonly thread: Worker;
  /** Its module loaded: a death from now on is a crash, before it a failure to start. */
  ready: boolean;
  failure: string | undefined;
  readonly pending: Map<number, PendingParse>;
}

/** Parses a server's YAML request bodies, large ones in its worker thread. */
export class YamlBodyParser {
  readonly #thresholdChars: number;
  readonly #workerModule: string;
  readonly #logger: ((line: string) => void) | undefined;
  #worker: RunningWorker | undefined;
  /** The worker could not start: everything is parsed in-thread from then on. */
  #unavailable = false;
  #stopped = false;
  #nextId = 0;
  #parsedOffLoop = 0;

  constructor(options: YamlBodyParserOptions = {}) {
    this.#thresholdChars = options.offLoopThresholdChars ?? offLoopThresholdChars;
    this.#workerModule = options.workerModule ?? defaultWorkerModule;
    this.#logger = options.logger;
  }

  /** Bodies the worker thread parsed so far. */
  get parsedOffLoop(): number {
    return this.#parsedOffLoop;
  }

  /** Parses a YAML request body: in the worker thread when it is large and not JSON, else at once. */
  async parse(text: string): Promise<YamlParsed> {
    const json = parseAsJson(text);
    if (json) return json;
    if (text.length < this.#thresholdChars) return parseYamlText(text);
    return new Promise<YamlParsed>((resolve, reject) => this.#send({ text, resolve, reject }));
  }

  /** Hands a body to the worker (started if need be), or parses it in-thread when there is none. */
  #send(parse: PendingParse): void {
    if (!this.#unavailable && !this.#stopped) this.#worker ??= this.#start();
    const running = this.#worker;
    if (!running) {
      parse.resolve(parseYamlText(parse.text));
      return;
    }
    const id = this.#nextId++;
    // Held while a parse is in flight, so a caller waiting only for it is not left without work.
    running.thread.ref();
    running.pending.set(id, parse);
    running.thread.postMessage({ id, text: parse.text });
  }

  /** Terminates the worker; requests it was parsing fail. Later bodies are parsed in-thread. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const running = this.#worker;
    this.#worker = undefined;
    if (running) await running.thread.terminate();
  }

  #start(): RunningWorker | undefined {
    if (!existsSync(this.#workerModule)) {
      this.#unavailable = true;
      this.#logger?.(`kubeloop-apiserver: large YAML bodies are parsed on the event loop: the parser's worker module ${this.#workerModule} is missing`);
      return undefined;
    }
    // From dist the worker needs none of the process's flags (some, such as the test runner's or
    // `--input-type`, make a worker fail); from sources it needs the loader that runs TypeScript.
    const thread = new Worker(this.#workerModule, this.#workerModule.endsWith('.ts') ? {} : { execArgv: [] });
    thread.unref();
    const running: RunningWorker = { thread, ready: false, failure: undefined, pending: new Map() };
    thread.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        running.ready = true;
        return;
      }
      const parse = running.pending.get(reply.id);
      running.pending.delete(reply.id);
      if (running.pending.size === 0) thread.unref();
      if (!parse) return;
      this.#parsedOffLoop++;
      // JSON text: the server's JSON.parse of it is several times faster than deserializing the
      // structured clone of an object with many small members.
      parse.resolve('json' in reply ? { ok: true, value: JSON.parse(reply.json) as unknown } : reply.parsed);
    });
    thread.on('error', (err) => {
      running.failure = err.message;
    });
    thread.on('exit', (code) => this.#ended(running, code));
    return running;
  }

  /** The worker ended: by `stop()`, by failing to start, or by dying while it parsed. */
  #ended(running: RunningWorker, code: number): void {
    if (this.#worker === running) this.#worker = undefined;
    const why = running.failure ?? `exit code ${code}`;
    if (!running.ready && !this.#stopped) {
      this.#unavailable = true;
      this.#logger?.(`kubeloop-apiserver: large YAML bodies are parsed on the event loop: the parser's worker thread did not start (${why})`);
    }
    const [current, ...queued] = running.pending.values();
    running.pending.clear();
    if (this.#stopped) {
      for (const parse of [current, ...queued]) parse?.reject(internalError('the server is stopping'));
      return;
    }
    // The worker takes bodies in order: the oldest one waiting is the one it died on.
    if (running.ready) current?.reject(internalError(`the YAML parser's worker thread stopped (${why}) while parsing the request body`));
    else if (current) queued.unshift(current);
    for (const parse of queued) this.#send(parse);
  }
}
