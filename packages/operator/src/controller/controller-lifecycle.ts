import { setMaxListeners } from 'node:events';
import { KubeloopError } from '@kubeloop/resource';
import type { Clock } from '../clock.js';
import { whileHoldingProcessOpen } from '../keep-alive.js';
import { CacheSyncTimeoutError, InvalidArgumentError, isAbortError } from '../errors.js';
import type { Informer } from '../informer/informer.js';
import type { LogAttributes, Logger } from '../observability/logger.js';
import type { HandlerContext } from '../handlers/resource-watcher.js';

/** Default of `cacheSyncTimeoutMs`: 2 minutes, as controller-runtime's `CacheSyncTimeout`. */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/** Where a controller is in its one run; `warming` runs the informers only (see {@link ControllerLifecycle.warmUp}). */
export type RunState = 'idle' | 'warming' | 'running' | 'stopping' | 'stopped';

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
  /**
   * How long `run()` waits for every informer to sync before it gives up with a
   * `CacheSyncTimeoutError`; `Infinity` waits forever. Default: {@link DEFAULT_CACHE_SYNC_TIMEOUT_MS}.
   */
  cacheSyncTimeoutMs?: number | undefined;
}

/** The parts of a controller that the lifecycle starts and stops. */
export interface ControllerParts {
  /** The per-object work queue: started first, drained at shutdown. */
  queue: { start(): void; shutdown(timeoutMs: number): Promise<boolean>; readonly inFlight: number };
  /** Delayed work (retries, requeues): dropped at shutdown. */
  scheduler: { start(): void; stop(): void; clear(): number };
  /** Starts every informer through {@link ControllerLifecycle.runInformer}. */
  startInformers(): void;
  /** The informers the controller reads: no work starts before all of them have synced. */
  informers(): readonly Informer[];
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * The run-once lifecycle that `InformerController` and `ReconcileController` share: start the
 * informers; wait until all of them have synced (the sync gate: events queue and coalesce meanwhile,
 * no handler runs against a half-filled cache), then start the scheduler and the queue; wait for the
 * caller's signal or a fatal informer error;
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
  private readonly informersRun: Informer[] = [];
  private gateOpen = false;
  private endWarmUp: (() => void) | undefined;
  private readonly cacheSyncTimeoutMs: number;

  constructor(private readonly options: ControllerLifecycleOptions) {
    this.ctx = { signal: NEVER_ABORTED, logger: options.logger };
    const timeout = options.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    if (!(timeout > 0)) throw new InvalidArgumentError(`cacheSyncTimeoutMs must be > 0 (Infinity: no limit), got ${timeout}`);
    this.cacheSyncTimeoutMs = timeout;
  }

  /** True once every informer has synced and workers take keys (readiness); false again once stopping. */
  get synced(): boolean {
    return this.gateOpen && this.runState === 'running';
  }

  /**
   * True while warming or running once every informer started so far has synced: a warm replica's
   * caches are full (its readiness while it follows, see `runOperator`'s `warmup`). Unlike
   * {@link synced}, it says nothing about workers.
   */
  get cachesSynced(): boolean {
    return (this.runState === 'warming' || this.runState === 'running') && this.informersRun.every((i) => i.hasSynced());
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
  run(signal: AbortSignal, parts: ControllerParts): Promise<void> {
    return whileHoldingProcessOpen(() => this.runHeld(signal, parts));
  }

  private async runHeld(signal: AbortSignal, parts: ControllerParts): Promise<void> {
    const { clock, shutdownTimeoutMs, name, logger, logAttributes } = this.options;
    if (this.runState === 'stopped' && this.fatalError !== undefined) throw this.fatalError.error; // failed while warming
    if (this.runState !== 'idle' && this.runState !== 'warming') throw new KubeloopError('ControllerAlreadyRun', `${name}: run() can be called once`);
    // Warm: the informers already run (and have usually synced), so the gate below opens at once.
    const warm = this.runState === 'warming';
    this.runState = 'running';
    this.endWarmUp?.();
    const runAbort = warm ? this.runAbort! : this.startInformers(parts);
    if (await this.waitForCaches(signal, () => parts.informers())) {
      this.gateOpen = true;
      parts.scheduler.start();
      parts.queue.start();
    }

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
   * Warm replica (controller-runtime's `EnableWarmup`): starts the informers now, so that their caches
   * fill while this replica is not the leader; workers start only in `run()`, whose sync gate then opens
   * at once, with no relist. Resolves when the warm-up ends: `run()` took the informers over (its
   * signal governs them from then on), or `signal` aborted first and the informers have stopped (the
   * controller is then stopped: a later `run()` rejects with `ControllerAlreadyRun`). Rejects with an
   * informer's configuration error, which a later `run()` rejects with too.
   * Calling it after `run()`, a second time or with an aborted signal does nothing.
   */
  warmUp(signal: AbortSignal, parts: Pick<ControllerParts, 'startInformers'>): Promise<void> {
    if (this.runState !== 'idle' || signal.aborted) return Promise.resolve();
    this.runState = 'warming';
    const runAbort = this.startInformers(parts);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.endWarmUp = undefined;
        this.runState = 'stopped';
        runAbort.abort(signal.reason);
        void Promise.allSettled(this.informerRuns).then(() => resolve());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.endWarmUp = () => {
        this.endWarmUp = undefined;
        this.wake = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      // An informer's fatal error while warming: stop warming, and keep it for run().
      this.wake = () => {
        if (this.runState !== 'warming') return;
        onAbort();
        signal.removeEventListener('abort', onAbort);
        const error = this.fatalError?.error;
        reject(error instanceof Error ? error : new Error(String(error)));
      };
    });
  }

  /**
   * Runs an informer until the controller stops (from `startInformers`, or later while running).
   * Per the Informer contract `run()` rejects only for a configuration error: that error goes to
   * `onFatal` and stops the controller, whose `run()` then rejects with it.
   */
  runInformer(informer: Informer, onFatal: (error: unknown) => void): void {
    const signal = this.runAbort!.signal;
    this.informersRun.push(informer);
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

  /**
   * The sync gate: resolves true once every informer has synced, false when the caller's signal
   * aborts or an informer fails first; past `cacheSyncTimeoutMs` it records a `CacheSyncTimeoutError`
   * as the run's fatal error and resolves false.
   */
  private waitForCaches(signal: AbortSignal, informers: () => readonly Informer[]): Promise<boolean> {
    const { clock, name, logger, logAttributes } = this.options;
    return new Promise<boolean>((resolve) => {
      if (signal.aborted || this.fatalError !== undefined) {
        resolve(false);
        return;
      }
      let settled = false;
      const done = (open: boolean): void => {
        if (settled) return;
        settled = true;
        timer?.cancel();
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
        resolve(open);
      };
      const onAbort = (): void => done(false);
      const timer = Number.isFinite(this.cacheSyncTimeoutMs)
        ? clock.setTimer(this.cacheSyncTimeoutMs, () => {
            const unsynced = informers()
              .filter((i) => !i.hasSynced())
              .map((i) => i.schema().kind);
            const error = new CacheSyncTimeoutError(name, this.cacheSyncTimeoutMs, unsynced);
            logger.error(error.message, { ...logAttributes, error });
            this.fatalError ??= { error };
            done(false);
          })
        : undefined;
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = () => done(false);
      this.allSynced(informers).then(
        () => done(true),
        () => done(false),
      );
    });
  }

  /** Resolves once every informer has synced, those added while waiting included. */
  private async allSynced(informers: () => readonly Informer[]): Promise<void> {
    const runSignal = this.runAbort!.signal;
    const awaited = new Set<Informer>();
    for (;;) {
      const pending = informers().filter((i) => !awaited.has(i));
      if (pending.length === 0) return;
      for (const informer of pending) awaited.add(informer);
      await Promise.all(pending.map((i) => i.waitForSync(runSignal)));
    }
  }

  /** Makes the run's abort signal (the handlers' and informers') and starts the informers under it. */
  private startInformers(parts: Pick<ControllerParts, 'startInformers'>): AbortController {
    const runAbort = new AbortController();
    // Every request of every running handler and informer listens on this one signal: many listeners
    // are its normal state, not the leak Node warns about beyond 10.
    setMaxListeners(0, runAbort.signal);
    this.runAbort = runAbort;
    this.ctx = { signal: runAbort.signal, logger: this.options.logger };
    parts.startInformers();
    return runAbort;
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
