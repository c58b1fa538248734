import { InvalidArgumentError } from './errors.js';
import { realClock } from './clock.js';
import type { Clock } from './clock.js';

/** Default of {@link WorkQueueOptions.maxConcurrentWorkers}: 10 objects processed at once. */
export const DEFAULT_MAX_CONCURRENT_WORKERS = 10;

/** Options of a {@link WorkQueue}. */
export interface WorkQueueOptions<T> {
  /**
   * Processes one item: returns a promise when the work goes on asynchronously, or nothing when it
   * finished synchronously (the next item then starts without a promise hop). Items of one key are
   * never processed concurrently. A throw or rejection goes to `onError`.
   */
  process: (key: string, item: T) => Promise<void> | void;
  /** How many keys are processed at the same time. Default: {@link DEFAULT_MAX_CONCURRENT_WORKERS} (10). */
  maxConcurrentWorkers?: number | undefined;
  /**
   * Merges an incoming item into the last queued, not yet started item of the same key: return the
   * merged item, or undefined to queue the incoming item after it. Default: never merge.
   */
  coalesce?: ((queued: T, incoming: T) => T | undefined) | undefined;
  /** Receives a rejection of `process` (it should not reject). Default: ignore. */
  onError?: ((err: unknown, key: string, item: T) => void) | undefined;
  /** Clock of the shutdown deadline. Default: `realClock`. */
  clock?: Clock | undefined;
}

/** What {@link WorkQueue.add} did with an item. */
export type WorkQueueAddResult = 'queued' | 'coalesced' | 'rejected';

/**
 * Idle key states are kept in the key map, up to this many, and dropped together beyond it: a Map
 * that gets one key set and deleted per event rehashes all the time (about 0.4 us per event), while
 * a key that comes back soon (the usual: one object updated again and again) costs no map write.
 */
const MAX_IDLE_KEYS = 1024;

/** The state of one key: its queued items, and whether one of its items is running. */
interface KeyState<T> {
  key: string;
  items: T[];
  processing: boolean;
  /** Nothing queued or running: kept in the key map for reuse (see MAX_IDLE_KEYS), not in `ready`. */
  idle: boolean;
}

/**
 * A per-key work queue in the client-go/controller-runtime style: `ready` (keys with queued items,
 * in arrival order), `items` (what is waiting per key, "dirty"), `processing` (a key with a running
 * item is not ready again until that item finishes).
 *
 * Guarantees:
 * - items of one key are processed one at a time, in the order they were added (after coalescing);
 * - different keys are processed concurrently, at most `maxConcurrentWorkers` at once, round-robin
 *   between keys so one busy key cannot starve the others;
 * - `add` never runs `process` synchronously: callers (informers) are never blocked by handlers;
 * - memory follows the number of keys with pending work (plus at most 1,024 recently idle keys kept
 *   for reuse), and with `coalesce` not the number of events.
 */
export class WorkQueue<T> {
  /** The concurrency bound in effect. */
  readonly maxConcurrentWorkers: number;
  private readonly processFn: (key: string, item: T) => Promise<void> | void;
  private readonly coalesceFn: ((queued: T, incoming: T) => T | undefined) | undefined;
  private readonly onError: ((err: unknown, key: string, item: T) => void) | undefined;
  private readonly clock: Clock;
  private readonly states = new Map<string, KeyState<T>>();
  private readonly ready = new Fifo<KeyState<T>>();
  private queued = 0;
  private running = 0;
  private started = false;
  private closed = false;
  private pumpScheduled = false;
  private idleKeys = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions<T>) {
    const max = options.maxConcurrentWorkers ?? DEFAULT_MAX_CONCURRENT_WORKERS;
    if (!Number.isInteger(max) || max < 1) throw new InvalidArgumentError(`maxConcurrentWorkers must be an integer >= 1, got ${max}`);
    this.maxConcurrentWorkers = max;
    this.processFn = options.process;
    this.coalesceFn = options.coalesce;
    this.onError = options.onError;
    this.clock = options.clock ?? realClock;
  }

  /** Items queued and not started. */
  get depth(): number {
    return this.queued;
  }

  /** Items being processed. */
  get inFlight(): number {
    return this.running;
  }

  /** Keys with queued or running items. */
  get keyCount(): number {
    return this.states.size - this.idleKeys;
  }

  /** True once {@link shutdown} was called. */
  get isShutdown(): boolean {
    return this.closed;
  }

  /** Starts processing; items added before wait for it. */
  start(): void {
    if (this.closed || this.started) return;
    this.started = true;
    this.schedulePump();
  }

  /** Queues `item` for `key` (or merges it into the key's last queued item). Rejected after shutdown. */
  add(key: string, item: T): WorkQueueAddResult {
    if (this.closed) return 'rejected';
    const state = this.states.get(key);
    if (state === undefined) {
      const fresh: KeyState<T> = { key, items: [item], processing: false, idle: false };
      this.states.set(key, fresh);
      this.ready.push(fresh);
      this.queued++;
      this.schedulePump();
      return 'queued';
    }
    if (state.idle) {
      state.idle = false;
      this.idleKeys--;
      state.items.push(item);
      this.ready.push(state);
      this.queued++;
      this.schedulePump();
      return 'queued';
    }
    const items = state.items;
    if (this.coalesceFn !== undefined && items.length > 0) {
      const merged = this.coalesceFn(items[items.length - 1]!, item);
      if (merged !== undefined) {
        items[items.length - 1] = merged;
        return 'coalesced';
      }
    }
    items.push(item);
    this.queued++;
    // A known key is either in `ready` already or processing (and re-queued when done).
    return 'queued';
  }

  /** The queued, not started items of `key`, in order. */
  queuedItems(key: string): readonly T[] {
    return this.states.get(key)?.items ?? [];
  }

  /** Removes the queued, not started items of `key` that `predicate` accepts and returns them. */
  removeQueued(key: string, predicate: (item: T) => boolean): T[] {
    const state = this.states.get(key);
    if (state === undefined || state.items.length === 0) return [];
    const removed: T[] = [];
    state.items = state.items.filter((item) => {
      if (!predicate(item)) return true;
      removed.push(item);
      return false;
    });
    this.queued -= removed.length;
    // A key left with nothing to do stays in `ready` until popped; the pump skips it then.
    if (state.items.length === 0 && !state.processing) this.states.delete(key);
    if (removed.length > 0) this.notifyIdle();
    return removed;
  }

  /** Resolves when nothing is queued or running (at once if idle). */
  whenIdle(): Promise<void> {
    if (this.queued === 0 && this.running === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking work: later `add`s are rejected and queued, not started items are dropped (an
   * informer's next list delivers every object again). Resolves `true` once the running items have
   * finished, or `false` if `deadlineMs` passed first (the items keep running in the background).
   */
  async shutdown(deadlineMs: number): Promise<boolean> {
    if (!this.closed) {
      this.closed = true;
      this.ready.clear();
      for (const state of this.states.values()) {
        this.queued -= state.items.length;
        state.items = [];
        if (!state.processing) this.states.delete(state.key);
      }
      this.idleKeys = 0;
      this.notifyIdle();
    }
    if (this.running === 0) return true;
    let timer: { cancel(): void } | undefined;
    const deadline = new Promise<boolean>((resolve) => {
      timer = this.clock.setTimer(Math.max(0, deadlineMs), () => resolve(false));
    });
    const drained = this.whenIdle().then(() => true);
    try {
      return await Promise.race([drained, deadline]);
    } finally {
      timer?.cancel();
    }
  }

  private schedulePump(): void {
    if (this.pumpScheduled || !this.started) return;
    this.pumpScheduled = true;
    queueMicrotask(this.pump);
  }

  private readonly pump = (): void => {
    this.pumpScheduled = false;
    while (this.running < this.maxConcurrentWorkers && !this.closed) {
      const state = this.ready.shift();
      if (state === undefined) break;
      const item = state.items.shift();
      if (item === undefined) continue; // emptied by removeQueued
      this.queued--;
      state.processing = true;
      this.running++;
      // Finished synchronously: the key is settled here and the loop goes on (no re-entrant pump).
      if (this.runItem(state, item)) this.finish(state);
    }
    this.notifyIdle();
  };

  /** Starts `item`; true when it finished synchronously, else the key is settled when it does. */
  private runItem(state: KeyState<T>, item: T): boolean {
    let pending: Promise<void> | void;
    try {
      pending = this.processFn(state.key, item);
    } catch (err) {
      this.reportError(err, state.key, item);
      return true;
    }
    if (pending === undefined) return true;
    pending.then(
      () => this.settle(state),
      (err: unknown) => {
        this.reportError(err, state.key, item);
        this.settle(state);
      },
    );
    return false;
  }

  private reportError(err: unknown, key: string, item: T): void {
    try {
      this.onError?.(err, key, item);
    } catch {
      // An error reporter that throws must not stop the queue.
    }
  }

  /** An asynchronous item finished: settle its key, start what can start. */
  private settle(state: KeyState<T>): void {
    this.finish(state);
    this.pump();
  }

  private finish(state: KeyState<T>): void {
    this.running--;
    state.processing = false;
    if (state.items.length > 0 && !this.closed) this.ready.push(state);
    else if (this.closed) this.states.delete(state.key);
    else {
      // A processing key is never removed from `states` by others (removeQueued and shutdown skip it).
      state.idle = true;
      if (++this.idleKeys > MAX_IDLE_KEYS) this.dropIdleKeys();
    }
  }

  private dropIdleKeys(): void {
    for (const state of this.states.values()) if (state.idle) this.states.delete(state.key);
    this.idleKeys = 0;
  }

  private notifyIdle(): void {
    if (this.queued !== 0 || this.running !== 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** An array-backed FIFO with O(1) amortised shift. */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
