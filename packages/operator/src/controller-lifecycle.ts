import { KubeloopError } from '@kubeloop/resource';
import type { Clock } from './clock.js';
import { isAbortError } from './errors.js';
import type { Informer } from './informer.js';
import type { LogAttributes, Logger } from './logger.js';
import type { HandlerContext } from './resource-watcher.js';

/** Where a controller is in its one run. */
export type RunState = 'idle' | 'running' | 'stopping' | 'stopped';

/** What a {@link ControllerLifecycle} is told about its controller. */
export interface ControllerLifecycleOptions {
  /** Measures the shutdown deadline. */
  clock: Clock;
  /** How long a stop waits for running work, then informers. */
  shutdownTimeoutMs: number;
  /** Names the controller in errors and logs ("InformerController", "controller widget"). */
  name: string;
  /** Receives the shutdown messages. */
  logger: Logger;
  /** Added to every log line (e.g. `{ component: 'InformerController' }`). */
  logAttributes: LogAttributes;
}

/** The parts of a controller that the lifecycle starts and stops. */
export interface ControllerParts {
  /** The per-object work queue: started first, drained at shutdown. */
  queue: { start(): void; shutdown(timeoutMs: number): Promise<boolean>; readonly inFlight: number };
  /** Delayed work (retries, requeues): dropped at shutdown. */
  scheduler: { start(): void; stop(): void; clear(): number };
  /** Starts every informer through {@link ControllerLifecycle.runInformer}. */
  startInformers(): void;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * The run-once lifecycle that `InformerController` and `ReconcileController` share: start the
 * scheduler, the queue and the informers; wait for the caller's signal or a fatal informer error;
 * abort handlers' signal; drop delayed work; drain running work within the shutdown deadline, then
 * informers with what is left of it; reject with the informer's error if there was one.
 */
export class ControllerLifecycle {
  /** Given to every handler call; its signal aborts when the controller stops. */
  ctx: HandlerContext;

  private runState: RunState = 'idle';
  private runAbort: AbortController | undefined;
  private fatalError: { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private readonly informerRuns: Promise<void>[] = [];

  constructor(private readonly options: ControllerLifecycleOptions) {
    this.ctx = { signal: NEVER_ABORTED, logger: options.logger };
  }

  /** Where the run is. */
  get state(): RunState {
    return this.runState;
  }

  /** True once stopping has begun: no new delayed work should be scheduled. */
  get stopping(): boolean {
    return this.runState === 'stopping' || this.runState === 'stopped';
  }

  /**
   * Runs the controller until `signal` aborts or an informer fails, then stops it (see the class
   * comment). Rejects with the informer's error, or `ControllerAlreadyRun` on a second call.
   */
  async run(signal: AbortSignal, parts: ControllerParts): Promise<void> {
    const { clock, shutdownTimeoutMs, name, logger, logAttributes } = this.options;
    if (this.runState !== 'idle') throw new KubeloopError('ControllerAlreadyRun', `${name}: run() can be called once`);
    this.runState = 'running';
    const runAbort = new AbortController();
    this.runAbort = runAbort;
    this.ctx = { signal: runAbort.signal, logger };
    parts.scheduler.start();
    parts.queue.start();
    parts.startInformers();

    await new Promise<void>((resolve) => {
      if (signal.aborted || this.fatalError !== undefined) {
        resolve();
        return;
      }
      this.wake = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.wake = undefined;

    this.runState = 'stopping';
    runAbort.abort(this.fatalError?.error ?? signal.reason);
    const dropped = parts.scheduler.clear();
    parts.scheduler.stop();
    if (dropped > 0) logger.debug(`${name}: dropped delayed work at shutdown`, { ...logAttributes, dropped });
    const started = clock.now();
    const drained = await parts.queue.shutdown(shutdownTimeoutMs);
    const remaining = Math.max(0, shutdownTimeoutMs - (clock.now() - started));
    const informersStopped = await this.within(Promise.allSettled(this.informerRuns), remaining);
    if (!drained || !informersStopped) {
      logger.warn(`${name}: shutdown deadline passed with work still running`, { ...logAttributes, handlersRunning: parts.queue.inFlight, informersStopped });
    }
    this.runState = 'stopped';
    if (this.fatalError !== undefined) throw this.fatalError.error;
  }

  /**
   * Runs an informer until the controller stops (from `startInformers`, or later while running).
   * Per the Informer contract `run()` rejects only for a configuration error: that error goes to
   * `onFatal` and stops the controller, whose `run()` then rejects with it.
   */
  runInformer(informer: Informer, onFatal: (error: unknown) => void): void {
    const signal = this.runAbort!.signal;
    const run = async (): Promise<void> => {
      try {
        await informer.run(signal);
      } catch (err) {
        if (signal.aborted) return;
        onFatal(err);
        this.fatalError ??= { error: err };
        this.wake?.();
      }
    };
    this.informerRuns.push(run());
  }

  /**
   * A handler error that is only the shutdown aborting its signal: expected, so neither reported,
   * counted nor retried. Looks through `cause` chains (see `isAbortError`).
   */
  isShutdownAbort(error: unknown): boolean {
    const signal = this.ctx.signal;
    if (this.runState === 'running' || !signal.aborted) return false;
    return isAbortError(error, signal.reason);
  }

  private within(promise: Promise<unknown>, ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = this.options.clock.setTimer(ms, () => resolve(false));
      void promise.then(() => {
        timer.cancel();
        resolve(true);
      });
    });
  }
}
