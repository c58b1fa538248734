import { InvalidArgumentError } from '../errors.js';
import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { DEFAULT_PRIORITY, ReadyQueue } from './ready-queue.js';

/** Default of {@link WorkQueueOptions.maxConcurrentWorkers}: 10 objects processed at once. */
export const DEFAULT_MAX_CONCURRENT_WORKERS = 10;

/** Options of a {@link WorkQueue}. */
export interface WorkQueueOptions<T> {
  /**
   * Processes one item: returns a promise when the work goes on asynchronously, or nothing when it
   * finished synchronously (the next item then starts without a promise hop). Items of one key are
   * never processed concurrently. A throw or rejection goes to `onError`. `priority` is the item's
   * priority (see {@link WorkQueue.add}), for work that requeues it at the same level.
   */
  process: (key: string, item: T, priority: number) => Promise<void> | void;
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
  /** Told when items enter the queue, start and finish (as client-go's queue metrics provider). Default: none. */
  metrics?: WorkQueueMetrics<T> | undefined;
}

/** What a {@link WorkQueue} reports of its items (see `QueueMetrics`). */
export interface WorkQueueMetrics<T> {
  /** `item` entered the queue (an item merged into a queued one is not reported: it is never processed). */
  queued(item: T): void;
  /** `item` starts processing; the returned token is handed to {@link finished} once it has. */
  started(item: T): number;
  /** The item started with `token` finished (returned, resolved, threw or rejected). */
  finished(token: number): void;
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
  /** The priority of each queued item (parallel to `items`). */
  priorities: number[];
  /** The level it waits at in `ready` (meaningful while `readyTicket` is not 0). */
  readyPriority: number;
  readyTicket: number;
  /** The priority of the item running now (meaningful while `processing`). */
  runningPriority: number;
  processing: boolean;
  /** Nothing queued or running: kept in the key map for reuse (see MAX_IDLE_KEYS), not in `ready`. */
  idle: boolean;
}

/**
 * A per-key work queue in the client-go/controller-runtime style: `ready` (keys with queued items,
 * by priority, then in arrival order), `items` (what is waiting per key, "dirty"), `processing` (a key with a running
 * item is not ready again until that item finishes).
 *
 * Guarantees:
 * - items of one key are processed one at a time, in the order they were added (after coalescing);
 * - different keys are processed concurrently, at most `maxConcurrentWorkers` at once, round-robin
 *   between keys so one busy key cannot starve the others;
 * - priorities (controller-runtime's priority queue): a key waits at the highest priority of its
 *   queued items (a merge keeps the higher); keys of a higher priority start first, keys of one
 *   priority in arrival order. Items of one key still run in the order they were added;
 * - `add` never runs `process` synchronously: callers (informers) are never blocked by handlers;
 * - memory follows the number of keys with pending work (plus at most 1,024 recently idle keys kept
 *   for reuse), and with `coalesce` not the number of events.
 */
export class WorkQueue<T> {
  /** The concurrency bound in effect. */
  readonly maxConcurrentWorkers: number;
  private readonly processFn: (key: string, item: T, priority: number) => Promise<void> | void;
  private readonly coalesceFn: ((queued: T, incoming: T) => T | undefined) | undefined;
  private readonly onError: ((err: unknown, key: string, item: T) => void) | undefined;
  private readonly clock: Clock;
  private readonly metrics: WorkQueueMetrics<T> | undefined;
  private readonly states = new Map<string, KeyState<T>>();
  private readonly ready = new ReadyQueue<KeyState<T>>();
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
    this.metrics = options.metrics;
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

  /**
   * Queues `item` for `key` (or merges it into the key's last queued item, which then keeps the
   * higher priority) at `priority` (higher starts first; default 0). Rejected after shutdown.
   */
  add(key: string, item: T, priority: number = DEFAULT_PRIORITY): WorkQueueAddResult {
    if (this.closed) return 'rejected';
    // Called from informer handlers: a bad priority must not throw there; it counts as the default.
    if (!Number.isFinite(priority)) priority = DEFAULT_PRIORITY;
    const state = this.states.get(key);
    if (state === undefined) {
      const fresh: KeyState<T> = { key, items: [item], priorities: [priority], readyPriority: priority, readyTicket: 0, runningPriority: priority, processing: false, idle: false };
      this.states.set(key, fresh);
      this.makeReady(fresh, priority);
      this.queued++;
      this.metrics?.queued(item);
      this.schedulePump();
      return 'queued';
    }
    if (state.idle) {
      state.idle = false;
      this.idleKeys--;
      state.items.push(item);
      state.priorities.push(priority);
      this.makeReady(state, priority);
      this.queued++;
      this.metrics?.queued(item);
      this.schedulePump();
      return 'queued';
    }
    const items = state.items;
    let result: WorkQueueAddResult = 'queued';
    const merged = this.coalesceFn !== undefined && items.length > 0 ? this.coalesceFn(items[items.length - 1]!, item) : undefined;
    if (merged !== undefined) {
      items[items.length - 1] = merged;
      const last = state.priorities.length - 1;
      state.priorities[last] = Math.max(state.priorities[last]!, priority);
      result = 'coalesced';
    } else {
      items.push(item);
      state.priorities.push(priority);
      this.queued++;
      this.metrics?.queued(item);
    }
    // A known key is either in `ready` already or processing (and re-queued when done): a waiting
    // key moves up when it gets a higher priority.
    if (state.readyTicket !== 0 && priority > state.readyPriority) this.makeReady(state, priority);
    return result;
  }

  /** The priority of the item of `key` being processed, undefined when none is: work it requeues can keep it. */
  processingPriority(key: string): number | undefined {
    const state = this.states.get(key);
    return state?.processing === true ? state.runningPriority : undefined;
  }

  /** The queued, not started items of `key`, in order. */
  queuedItems(key: string): readonly T[] {
    return this.states.get(key)?.items ?? [];
  }

  /**
   * The queued, not started item with the smallest `queuedAt(item)` (items it gives no time are
   * skipped), with its key; undefined when none. Walks every key: for a status page, not a hot path.
   */
  oldestQueued(queuedAt: (item: T) => number | undefined): { key: string; item: T; at: number } | undefined {
    let oldest: { key: string; item: T; at: number } | undefined;
    for (const state of this.states.values()) {
      for (const item of state.items) {
        const at = queuedAt(item);
        if (at !== undefined && (oldest === undefined || at < oldest.at)) oldest = { key: state.key, item, at };
      }
    }
    return oldest;
  }

  /** Removes the queued, not started items of `key` that `predicate` accepts and returns them. */
  removeQueued(key: string, predicate: (item: T) => boolean): T[] {
    const state = this.states.get(key);
    if (state === undefined || state.items.length === 0) return [];
    const removed: T[] = [];
    const items: T[] = [];
    const priorities: number[] = [];
    state.items.forEach((item, i) => {
      if (predicate(item)) removed.push(item);
      else {
        items.push(item);
        priorities.push(state.priorities[i]!);
      }
    });
    state.items = items;
    state.priorities = priorities;
    this.queued -= removed.length;
    if (state.items.length === 0 && !state.processing) {
      this.ready.remove(state);
      this.states.delete(key);
    }
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
        state.priorities = [];
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
      const priority = state.priorities.shift()!;
      this.queued--;
      state.processing = true;
      state.runningPriority = priority;
      this.running++;
      // Finished synchronously: the key is settled here and the loop goes on (no re-entrant pump).
      if (this.runItem(state, item, priority)) this.finish(state);
    }
    this.notifyIdle();
  };

  /** Starts `item`; true when it finished synchronously, else the key is settled when it does. */
  private runItem(state: KeyState<T>, item: T, priority: number): boolean {
    const token = this.metrics?.started(item) ?? 0;
    let pending: Promise<void> | void = undefined;
    try {
      pending = this.processFn(state.key, item, priority);
    } catch (err) {
      this.reportError(err, state.key, item);
    }
    if (pending === undefined) {
      this.metrics?.finished(token);
      return true;
    }
    void this.settleWhenDone(state, item, pending, token);
    return false;
  }

  /** Waits for an asynchronous item (its rejection goes to `onError`), then settles its key. */
  private async settleWhenDone(state: KeyState<T>, item: T, pending: Promise<void>, token: number): Promise<void> {
    try {
      await pending;
    } catch (err) {
      this.reportError(err, state.key, item);
    }
    this.metrics?.finished(token);
    this.finish(state);
    this.pump();
  }

  private reportError(err: unknown, key: string, item: T): void {
    try {
      this.onError?.(err, key, item);
    } catch {
      // An error reporter that throws must not stop the queue.
    }
  }

  private finish(state: KeyState<T>): void {
    this.running--;
    state.processing = false;
    if (state.items.length > 0 && !this.closed) this.makeReady(state, highest(state.priorities));
    else if (this.closed) this.states.delete(state.key);
    else {
      // A processing key is never removed from `states` by others (removeQueued and shutdown skip it).
      state.idle = true;
      if (++this.idleKeys > MAX_IDLE_KEYS) this.dropIdleKeys();
    }
  }

  private makeReady(state: KeyState<T>, priority: number): void {
    state.readyPriority = priority;
    this.ready.push(state, priority);
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

/** The highest of a non-empty list of priorities (a loop: a key may have many queued items). */
function highest(priorities: readonly number[]): number {
  let max = priorities[0]!;
  for (let i = 1; i < priorities.length; i++) if (priorities[i]! > max) max = priorities[i]!;
  return max;
}
