/**
 * A server's worker thread for work that would hold its event loop, and every other client, for a
 * large part of a second: parsing large YAML bodies (the `yaml` package parses about 1 MB/s) and
 * computing large patches (server-side apply's field ownership over tens of thousands of fields).
 * One per server, started on first use, reused, never holding the process open, terminated when
 * the server stops. Tasks run one at a time, in order.
 *
 * When the worker cannot start (its module missing, or TypeScript sources loaded without a loader
 * the worker can use), tasks run in-thread from then on: the answer is the same, only the event
 * loop is held. When a running worker dies, the request whose task it was running fails with a 500
 * (that task is not run again: it may be what killed the worker); the tasks queued behind it go to
 * a new worker.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { internalError } from '../http/status-error.js';
import { runOffLoopTask } from './off-loop-task.js';
import type { OffLoopReply, OffLoopTask } from './off-loop-task.js';

// Each a literal `new URL` beside this module, so that the packed-tarball check finds the `.js` one.
const compiledWorker = new URL('./off-loop-worker-main.js', import.meta.url);
const sourceWorker = new URL('./off-loop-worker-main.ts', import.meta.url);

/** The worker's module beside this one: `.js` from dist, `.ts` when run from sources (tsx). */
export const defaultWorkerModule = fileURLToPath(import.meta.url.endsWith('.ts') ? sourceWorker : compiledWorker);

/** How an {@link OffLoopWorker} works. */
export interface OffLoopWorkerOptions {
  /** The worker thread's module (a file path). Default: {@link defaultWorkerModule}. */
  readonly workerModule?: string;
  /** Where the one line saying the worker could not start goes. Default: none. */
  readonly logger?: (line: string) => void;
}

/** A message from the worker: ready once loaded, then one reply per task. */
type WorkerMessage = { readonly ready: true } | { readonly id: number; readonly reply: OffLoopReply };

/** A task's reply, and whether the worker thread ran it (else the event loop did, for want of a worker). */
export interface OffLoopOutcome {
  readonly reply: OffLoopReply;
  readonly inWorker: boolean;
}

interface PendingTask {
  readonly task: OffLoopTask;
  readonly resolve: (outcome: OffLoopOutcome) => void;
  readonly reject: (err: Error) => void;
}

interface RunningWorker {
  readonly thread: Worker;
  /** Its module loaded: a death from now on is a crash, before it a failure to start. */
  ready: boolean;
  failure: string | undefined;
  readonly pending: Map<number, PendingTask>;
}

/** What each kind of task is, for the 500 of a task whose worker died. */
const taskWords: Record<OffLoopTask['kind'], string> = { yaml: 'parsing the request body', json: 'parsing the request body', patch: 'computing the patch', 'update-fields': 'computing the managedFields' };

/** Runs tasks in a worker thread, or in-thread when there is none. */
export class OffLoopWorker {
  readonly #workerModule: string;
  readonly #logger: ((line: string) => void) | undefined;
  #worker: RunningWorker | undefined;
  /** The worker could not start: everything runs in-thread from then on. */
  #unavailable = false;
  #stopped = false;
  #nextId = 0;

  constructor(options: OffLoopWorkerOptions = {}) {
    this.#workerModule = options.workerModule ?? defaultWorkerModule;
    this.#logger = options.logger;
  }

  /** Runs a task in the worker thread (started if need be), or in-thread when there is none. */
  run(task: OffLoopTask): Promise<OffLoopOutcome> {
    return new Promise<OffLoopOutcome>((resolve, reject) => this.#send({ task, resolve, reject }));
  }

  /** Terminates the worker; the tasks it was running fail. Later tasks run in-thread. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const running = this.#worker;
    this.#worker = undefined;
    if (running) await running.thread.terminate();
  }

  #send(pending: PendingTask): void {
    if (!this.#unavailable && !this.#stopped) this.#worker ??= this.#start();
    const running = this.#worker;
    if (!running) {
      pending.resolve({ reply: runOffLoopTask(pending.task), inWorker: false });
      return;
    }
    const id = this.#nextId++;
    // Held while a task is in flight, so a caller waiting only for it is not left without work.
    running.thread.ref();
    running.pending.set(id, pending);
    running.thread.postMessage({ id, task: pending.task });
  }

  #start(): RunningWorker | undefined {
    if (!existsSync(this.#workerModule)) {
      this.#unavailable = true;
      this.#logger?.(`kubeloop-apiserver: large request bodies are parsed and patched on the event loop: the worker module ${this.#workerModule} is missing`);
      return undefined;
    }
    // From dist the worker needs none of the process's flags (some, such as the test runner's or
    // `--input-type`, make a worker fail); from sources it needs the loader that runs TypeScript.
    const thread = new Worker(this.#workerModule, this.#workerModule.endsWith('.ts') ? {} : { execArgv: [] });
    thread.unref();
    const running: RunningWorker = { thread, ready: false, failure: undefined, pending: new Map() };
    thread.on('message', (message: WorkerMessage) => {
      if ('ready' in message) {
        running.ready = true;
        return;
      }
      const pending = running.pending.get(message.id);
      running.pending.delete(message.id);
      if (running.pending.size === 0) thread.unref();
      if (!pending) return;
      pending.resolve({ reply: message.reply, inWorker: true });
    });
    thread.on('error', (err) => {
      running.failure = err.message;
    });
    thread.on('exit', (code) => this.#ended(running, code));
    return running;
  }

  /** The worker ended: by `stop()`, by failing to start, or by dying while it ran a task. */
  #ended(running: RunningWorker, code: number): void {
    if (this.#worker === running) this.#worker = undefined;
    const why = running.failure ?? `exit code ${code}`;
    if (!running.ready && !this.#stopped) {
      this.#unavailable = true;
      this.#logger?.(`kubeloop-apiserver: large request bodies are parsed and patched on the event loop: the worker thread did not start (${why})`);
    }
    const [current, ...queued] = running.pending.values();
    running.pending.clear();
    if (this.#stopped) {
      for (const pending of [current, ...queued]) pending?.reject(internalError('the server is stopping'));
      return;
    }
    // The worker takes tasks in order: the oldest one waiting is the one it died on.
    if (running.ready && current) current.reject(internalError(`the server's worker thread stopped (${why}) while ${taskWords[current.task.kind]}`));
    else if (current) queued.unshift(current);
    for (const pending of queued) this.#send(pending);
  }
}
