import { InvalidArgumentError, realClock } from '@kubeloop/operator';
import type { Clock, Timer } from '@kubeloop/operator';

/** Options of a {@link HeapRetryScheduler}. */
export interface HeapRetrySchedulerOptions<E> {
  /** Receives each entry when it falls due: wake-ups in time order, the entries of one wake-up in schedule order. */
  onDue: (key: string, entry: E) => void;
  /** Source of time and timers. Default: `realClock`. */
  clock?: Clock | undefined;
  /**
   * Wake-ups are aligned to whole multiples of this many milliseconds, so entries due close
   * together fire in one wake-up: an entry fires less than this much late, never early.
   * Default: 1 (the resolution of Node's timers).
   */
  resolutionMs?: number | undefined;
}

/** One waiting entry: its place in the heap, and what orders it there (`at`, then `seq`). */
interface Waiting<E> {
  key: string;
  entry: E;
  /** When it is due, clock milliseconds. */
  due: number;
  /** Its wake-up: `due` rounded up to the resolution. */
  at: number;
  /** Schedule order, to break ties between entries of one wake-up. */
  seq: number;
  /** Its index in the heap array, so that a cancel removes it in O(log n). */
  heapIndex: number;
}

/** Node's timers overflow (and fire at once) beyond 2^31-1 ms; a longer wait is armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const NONE: never[] = [];

/**
 * The simpler design that scenario 3 weighs @kubeloop/operator's `RetryScheduler` (a calendar queue)
 * against, with the same API and semantics (docs/benchmarks.md, "Retry scheduler"). It lives in the
 * bench because the calendar queue won; the clock caching and timer arming are written as the calendar
 * queue's, so that the comparison measures the data structures alone.
 *
 * Holds delayed work (retries, `requeueAfter`) behind one timer on the injected clock, always armed
 * for the earliest entry. Entries are plain data keyed by object, so the owner can cancel them by
 * predicate (dequeue policies), and a due entry is handed back to the owner (to go through its
 * per-object queue) rather than run here.
 *
 * Layout: one binary min-heap of the waiting entries ordered by (wake-up, schedule order), and a map
 * from key to that key's entries in schedule order (a key has few: one per failing handler).
 * `schedule`, firing and each cancelled entry are O(log n); key queries are one map lookup.
 */
export class HeapRetryScheduler<E> {
  private readonly clock: Clock;
  private readonly onDue: (key: string, entry: E) => void;
  private readonly resolutionMs: number;
  private heap: Waiting<E>[] = [];
  private byKey = new Map<string, Waiting<E>[]>();
  private seq = 0;
  private running = false;
  private firing = false;
  private timer: Timer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private cachedNow = 0;
  private nowCached = false;

  constructor(options: HeapRetrySchedulerOptions<E>) {
    this.clock = options.clock ?? realClock;
    this.onDue = options.onDue;
    const resolution = options.resolutionMs ?? 1;
    if (!Number.isInteger(resolution) || resolution < 1) throw new InvalidArgumentError(`resolutionMs must be an integer >= 1, got ${resolution}`);
    this.resolutionMs = resolution;
  }

  /** Number of entries waiting. */
  get size(): number {
    return this.heap.length;
  }

  /** True when `key` has waiting entries (one map lookup: the controller's per-event fast path). */
  hasPending(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Number of entries waiting for `key`. */
  pending(key: string): number {
    return this.byKey.get(key)?.length ?? 0;
  }

  /** The entries waiting for `key`, in schedule order. */
  entries(key: string): E[] {
    return this.byKey.get(key)?.map((w) => w.entry) ?? [];
  }

  /** When the earliest entry falls due (clock milliseconds), or undefined when empty. */
  nextDueAt(): number | undefined {
    const first = this.heap[0];
    if (first === undefined) return undefined;
    // The entries of the first wake-up are the heap's top subtree with the same `at`; any of them may be due first.
    let min = first.due;
    const stack = [0];
    while (stack.length > 0) {
      const i = stack.pop()!;
      for (const c of [2 * i + 1, 2 * i + 2]) {
        const child = this.heap[c];
        if (child === undefined || child.at !== first.at) continue;
        if (child.due < min) min = child.due;
        stack.push(c);
      }
    }
    return min;
  }

  /** Starts firing due entries (entries scheduled before `start` wait for it). */
  start(): void {
    this.running = true;
    this.arm();
  }

  /** Stops firing; entries stay until {@link clear} or a later {@link start}. */
  stop(): void {
    this.running = false;
    this.disarm();
  }

  /** Drops every entry (also the rest of a wake-up, when called from `onDue`); returns how many there were. */
  clear(): number {
    const n = this.heap.length;
    this.heap = [];
    this.byKey = new Map();
    this.disarm();
    return n;
  }

  /** Queues `entry` for `key`, due `delayMs` (clamped to >= 0) from now. */
  schedule(key: string, entry: E, delayMs: number): void {
    const due = this.now() + (delayMs > 0 ? delayMs : 0);
    const at = Math.ceil(due / this.resolutionMs) * this.resolutionMs;
    const waiting: Waiting<E> = { key, entry, due, at, seq: this.seq++, heapIndex: this.heap.length };
    this.heap.push(waiting);
    this.siftUp(waiting.heapIndex);
    const list = this.byKey.get(key);
    if (list === undefined) this.byKey.set(key, [waiting]);
    else list.push(waiting);
    // A wake-up in progress arms the timer when it is over.
    if (this.running && !this.firing && at < this.armedFor) this.arm();
  }

  /** Removes the waiting entries of `key` that `predicate` accepts and returns them, in schedule order. */
  cancel(key: string, predicate: (entry: E) => boolean): E[] {
    const list = this.byKey.get(key);
    if (list === undefined) return NONE;
    let removed: E[] | undefined;
    const kept: Waiting<E>[] = [];
    for (const waiting of list) {
      if (!predicate(waiting.entry)) {
        kept.push(waiting);
        continue;
      }
      this.removeAt(waiting.heapIndex);
      (removed ??= []).push(waiting.entry);
    }
    if (removed === undefined) return NONE;
    if (kept.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, kept);
    // The timer stays armed for the old first wake-up: if that one is gone, the wake-up finds nothing due and re-arms.
    return removed;
  }

  /**
   * The clock's time, read once per synchronous run of code: a burst of `schedule` calls (one
   * task failing many objects, or one wake-up whose owner reschedules what fired) reads the clock
   * once, as Node's own timers use the event loop's cached time.
   */
  private now(): number {
    if (!this.nowCached) {
      this.cachedNow = this.clock.now();
      this.nowCached = true;
      queueMicrotask(this.forgetNow);
    }
    return this.cachedNow;
  }

  private readonly forgetNow = (): void => {
    this.nowCached = false;
  };

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    if (!this.running) return;
    // A timer callback starts a fresh run of code: read the clock afresh.
    this.nowCached = false;
    const now = this.now();
    // Entries scheduled from onDue (even with delay 0) have a later seq: they wait for the next
    // wake-up, so an owner that reschedules cannot loop here.
    const firstLater = this.seq;
    this.firing = true;
    try {
      for (;;) {
        const first = this.heap[0];
        if (!this.running || first === undefined || first.at > now || first.seq >= firstLater) break;
        this.removeAt(0);
        this.forgetFromKey(first);
        this.onDue(first.key, first.entry);
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  };

  /** Takes a fired entry out of its key's list. */
  private forgetFromKey(waiting: Waiting<E>): void {
    const list = this.byKey.get(waiting.key);
    if (list === undefined) return;
    if (list.length === 1) {
      this.byKey.delete(waiting.key);
      return;
    }
    const i = list.indexOf(waiting);
    if (i >= 0) list.splice(i, 1);
  }

  private arm(): void {
    if (!this.running) return;
    const first = this.heap[0];
    if (first === undefined) {
      this.disarm();
      return;
    }
    if (this.timer !== undefined && this.armedFor === first.at) return;
    this.disarm();
    this.armedFor = first.at;
    this.timer = this.clock.setTimer(Math.min(Math.max(0, first.at - this.now()), MAX_TIMER_MS), this.fire);
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  // --- binary min-heap on (at, seq) ---

  private removeAt(i: number): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (i === heap.length) return;
    heap[i] = last;
    last.heapIndex = i;
    this.siftDown(i);
    this.siftUp(last.heapIndex);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    const item = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(item, p)) break;
      heap[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    heap[i] = item;
    item.heapIndex = i;
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(heap[r]!, heap[l]!) ? r : l;
      const child = heap[c]!;
      if (!before(child, item)) break;
      heap[i] = child;
      child.heapIndex = i;
      i = c;
    }
    heap[i] = item;
    item.heapIndex = i;
  }
}

/** Heap order: earlier wake-up first, then schedule order. */
function before(a: Waiting<unknown>, b: Waiting<unknown>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
