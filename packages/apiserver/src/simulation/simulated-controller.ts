/**
 * The shape of every simulated controller, and the queue that runs one: like a controller of
 * kube-controller-manager, it hears changes of the kinds it watches (from the store, as the real
 * one hears its informers), maps each to the keys of the objects to sync, and syncs one key at a
 * time. A key is queued once however often it changes; a key that changes while it syncs is synced
 * again after. A sync that fails on a conflict (409: another writer was first) is retried at once
 * on fresh state; any other failure is logged and retried after a backoff on the simulation's clock.
 */
import type { Clock, Timer } from '@kubeloop/resource';
import type { ChangeEvent } from '../storage/change-event.js';
import { isStatusError } from '../http/status-error.js';
import { DeferredDrainQueue } from '../deferred-drain-queue.js';

/** One simulated controller. */
export interface SimulatedController {
  /** Its name in logs, as kube-controller-manager names it (`deployment`, `replicaset`...). */
  readonly name: string;
  /** The store keys (`storeKeyOf(type)`) whose changes it hears. */
  readonly watches: readonly string[];
  /** The keys to sync for one change: the changed object's own, or its owner's for a dependent. */
  keysFor(storeKey: string, event: ChangeEvent): Iterable<string>;
  /** The keys to sync when the simulation starts (objects stored before it ran). */
  initialKeys(): Iterable<string>;
  /**
   * Moves one object's world one step closer to what its spec asks. Resolves to a delay (ms, on the
   * simulation's clock) after which to sync it again (a timed step such as a readiness delay), or
   * to undefined when only a change can make more work.
   */
  sync(key: string): Promise<number | undefined>;
  /**
   * Called once, before the simulation starts, with a function that queues a key: for work no
   * stored change announces (a workload fault set or cleared). Default: none.
   */
  connect?(requeue: (key: string) => void): void;
}

const firstBackoffMs = 500;
const maxBackoffMs = 30_000;

/** Runs one controller: its queue of keys, its timers and its retries. */
export class ControllerQueue {
  readonly #controller: SimulatedController;
  readonly #clock: Clock;
  readonly #logger: (line: string) => void;
  /** Keys waiting to sync, in arrival order; one that changes while it syncs is synced again after. */
  readonly #queue: DeferredDrainQueue<string>;
  readonly #timers = new Map<string, Timer>();
  readonly #failures = new Map<string, number>();

  constructor(controller: SimulatedController, options: { clock: Clock; logger: (line: string) => void; onIdle: () => void }) {
    this.#controller = controller;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#queue = new DeferredDrainQueue<string>({
      process: (key) => this.#sync(key),
      onError: (key, err) => this.#failed(key, err),
      onIdle: options.onIdle,
      // One key per turn: requests keep being served between syncs.
      yieldBetweenKeys: true,
    });
  }

  get controller(): SimulatedController {
    return this.#controller;
  }

  /** Nothing waits and nothing syncs (timers may be pending). */
  get idle(): boolean {
    return this.#queue.idle;
  }

  /** Queues one key; a timer already set for it stays (whichever comes first syncs it). */
  add(key: string): void {
    this.#queue.add(key);
  }

  /** Stops taking work and cancels its timers; resolves once the sync in progress is done. */
  async stop(): Promise<void> {
    const stopped = this.#queue.stop();
    for (const timer of this.#timers.values()) timer.cancel();
    this.#timers.clear();
    await stopped;
  }

  #after(key: string, delayMs: number): void {
    this.#timers.get(key)?.cancel();
    this.#timers.set(
      key,
      this.#clock.setTimer(delayMs, () => {
        this.#timers.delete(key);
        this.add(key);
      }),
    );
  }

  async #sync(key: string): Promise<void> {
    const again = await this.#controller.sync(key);
    this.#failures.delete(key);
    if (again !== undefined && !this.#queue.stopped) this.#after(key, again);
  }

  #failed(key: string, err: unknown): void {
    if (this.#queue.stopped) return;
    if (isStatusError(err) && err.status.code === 409) {
      this.#queue.add(key);
      return;
    }
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    const delay = Math.min(maxBackoffMs, firstBackoffMs * 2 ** (failures - 1));
    const message = err instanceof Error ? err.message : String(err);
    this.#logger(`kubeloop-apiserver: simulated ${this.#controller.name} controller failed to sync ${key} (retry ${failures} in ${delay / 1000} s): ${message}`);
    this.#after(key, delay);
  }
}
