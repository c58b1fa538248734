import { InvalidArgumentError } from './errors.js';
import { realClock } from './clock.js';
import type { Clock, Timer } from './clock.js';

/** Options of a {@link RetryScheduler}. */
export interface RetrySchedulerOptions<E> {
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

/** The waiting entries of one key: an intrusive circular list, so that firing and cancelling need no map lookup. */
interface KeyList<E> {
  key: string;
  head: Node<E> | undefined;
  count: number;
  /** Queued for removal from the key map once the current firing is over. */
  emptied: boolean;
}

interface Node<E> {
  due: number;
  entry: E;
  cancelled: boolean;
  list: KeyList<E>;
  bucket: Bucket<E>;
  prev: Node<E>;
  next: Node<E>;
}

/** The entries that wake up together: every entry whose due time aligns up to `at`, in schedule order. */
interface Bucket<E> {
  at: number;
  nodes: Node<E>[];
  /** Waiting (not cancelled) nodes. */
  live: number;
}

/** Node's timers overflow (and fire at once) beyond 2^31-1 ms; a longer wait is armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const NONE: never[] = [];
/** Pool sizes: enough to absorb a wake-up's worth of reschedules without holding memory after a burst. */
const MAX_FREE_NODES = 4096;
const MAX_FREE_BUCKETS = 256;
/** Placeholder for fields set right after a node is built (keeps one object shape for every node). */
const UNSET = undefined as unknown as Node<never> & Bucket<never> & KeyList<never>;

/**
 * Holds delayed work (retries, `requeueAfter`) behind one timer on the injected clock, always armed
 * for the earliest entry. Entries are plain data keyed by object, so the owner can cancel them by
 * predicate (dequeue policies), and a due entry is handed back to the owner (to go through its
 * per-object queue) rather than run here.
 *
 * Layout (a calendar queue): entries that wake up at the same time share a bucket (an array, in
 * schedule order); one min-heap orders the bucket times; each key's entries form an intrusive list.
 * `schedule` is O(1) (plus O(log b) when it opens a bucket), firing is O(1) per entry with
 * sequential memory access, `cancel` is O(entries of that key) with lazy removal. With
 * `resolutionMs`, one wake-up serves every entry due in that window. Memory follows the waiting
 * entries: cancelled ones are compacted away once they outnumber them.
 */
export class RetryScheduler<E> {
  private readonly clock: Clock;
  private readonly onDue: (key: string, entry: E) => void;
  private readonly resolutionMs: number;
  private readonly buckets = new Map<number, Bucket<E>>();
  /** Min-heap of bucket times. */
  private times: number[] = [];
  private readonly byKey = new Map<string, KeyList<E>>();
  private emptied: KeyList<E>[] = [];
  private readonly freeNodes: Node<E>[] = [];
  private readonly freeBuckets: Bucket<E>[] = [];
  private firing = false;
  private live = 0;
  private cancelled = 0;
  private running = false;
  private timer: Timer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private cachedNow = 0;
  private nowCached = false;

  constructor(options: RetrySchedulerOptions<E>) {
    this.clock = options.clock ?? realClock;
    this.onDue = options.onDue;
    const resolution = options.resolutionMs ?? 1;
    if (!Number.isInteger(resolution) || resolution < 1) throw new InvalidArgumentError(`resolutionMs must be an integer >= 1, got ${resolution}`);
    this.resolutionMs = resolution;
  }

  /** Number of entries waiting. */
  get size(): number {
    return this.live;
  }

  /** True when `key` has waiting entries (one map lookup: the controller's per-event fast path). */
  hasPending(key: string): boolean {
    const list = this.byKey.get(key);
    return list !== undefined && list.count > 0;
  }

  /** Number of entries waiting for `key`. */
  pending(key: string): number {
    return this.byKey.get(key)?.count ?? 0;
  }

  /** The entries waiting for `key`, in schedule order. */
  entries(key: string): E[] {
    const out: E[] = [];
    const head = this.byKey.get(key)?.head;
    if (head === undefined) return out;
    let node = head;
    do {
      out.push(node.entry);
      node = node.next;
    } while (node !== head);
    return out;
  }

  /** When the earliest entry falls due (clock milliseconds), or undefined when empty. */
  nextDueAt(): number | undefined {
    const bucket = this.firstLiveBucket();
    if (bucket === undefined) return undefined;
    let min = Number.POSITIVE_INFINITY;
    for (const node of bucket.nodes) if (!node.cancelled && node.due < min) min = node.due;
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

  /** Drops every entry; returns how many there were. */
  clear(): number {
    const n = this.live;
    this.buckets.clear();
    this.times = [];
    this.byKey.clear();
    this.emptied = [];
    this.live = 0;
    this.cancelled = 0;
    this.disarm();
    return n;
  }

  /** Queues `entry` for `key`, due `delayMs` (clamped to >= 0) from now. */
  schedule(key: string, entry: E, delayMs: number): void {
    let list = this.byKey.get(key);
    if (list === undefined) {
      list = { key, head: undefined, count: 0, emptied: false };
      this.byKey.set(key, list);
    }
    const due = this.now() + (delayMs > 0 ? delayMs : 0);
    let node = this.freeNodes.pop();
    if (node === undefined) node = { due, entry, cancelled: false, list, bucket: UNSET, prev: UNSET, next: UNSET };
    else {
      node.due = due;
      node.entry = entry;
      node.list = list;
    }
    const head = list.head;
    if (head === undefined) {
      node.prev = node;
      node.next = node;
      list.head = node;
    } else {
      const tail = head.prev;
      node.prev = tail;
      node.next = head;
      tail.next = node;
      head.prev = node;
    }
    list.count++;
    this.live++;
    const at = this.place(node);
    if (this.running && at < this.armedFor) this.arm();
  }

  /** Removes the waiting entries of `key` that `predicate` accepts and returns them. */
  cancel(key: string, predicate: (entry: E) => boolean): E[] {
    const list = this.byKey.get(key);
    if (list === undefined || list.head === undefined) return NONE;
    let removed: E[] | undefined;
    let node = list.head;
    const tail = node.prev;
    for (;;) {
      const next = node.next;
      const last = node === tail;
      if (predicate(node.entry)) {
        node.cancelled = true;
        node.bucket.live--;
        this.live--;
        this.cancelled++;
        this.unlink(node);
        (removed ??= []).push(node.entry);
      }
      if (last) break;
      node = next;
    }
    if (removed === undefined) return NONE;
    if (this.firing) return removed; // the firing loop sweeps, and counts the cancelled nodes it detached
    this.sweep();
    // Lazy deletion: compact once cancelled nodes outnumber waiting ones, so memory follows waiting entries.
    if (this.cancelled > 64 && this.cancelled > this.live) this.compact();
    return removed;
  }

  /**
   * The clock's time, read once per synchronous run of code: a burst of `schedule` calls (one
   * task failing many objects) reads the clock once, as Node's own timers use the event loop's
   * cached time. Clock reads are system calls on some hosts.
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
    // Detach every due bucket first: entries scheduled while firing (even with delay 0) land in
    // new buckets and wait for the next wake-up, so an owner that reschedules cannot loop here.
    const due: Bucket<E>[] = [];
    while (this.times.length > 0 && this.times[0]! <= now) {
      const at = this.popTime();
      const bucket = this.buckets.get(at);
      if (bucket === undefined) continue;
      this.buckets.delete(at);
      due.push(bucket);
    }
    this.firing = true;
    try {
      for (let b = 0; b < due.length; b++) {
        const bucket = due[b]!;
        const nodes = bucket.nodes;
        for (let i = 0; i < nodes.length; i++) {
          const node = nodes[i]!;
          if (node.cancelled) {
            this.cancelled--;
            this.recycle(node);
            continue;
          }
          this.live--;
          this.unlink(node);
          const key = node.list.key;
          const entry = node.entry;
          this.recycle(node);
          this.onDue(key, entry);
          if (!this.running) {
            // Stopped from onDue: put back what has not fired.
            this.restore(nodes, i + 1);
            for (let r = b + 1; r < due.length; r++) this.restore(due[r]!.nodes, 0);
            return;
          }
        }
        nodes.length = 0;
        if (this.freeBuckets.length < MAX_FREE_BUCKETS) this.freeBuckets.push(bucket);
      }
    } finally {
      this.firing = false;
      this.sweep();
    }
    this.arm();
  };

  /** Puts a node into the bucket of its wake-up time; returns that time. */
  private place(node: Node<E>): number {
    const at = Math.ceil(node.due / this.resolutionMs) * this.resolutionMs;
    let bucket = this.buckets.get(at);
    if (bucket === undefined) {
      bucket = this.freeBuckets.pop();
      if (bucket === undefined) bucket = { at, nodes: [node], live: 1 };
      else {
        bucket.at = at;
        bucket.nodes.push(node);
        bucket.live = 1;
      }
      this.buckets.set(at, bucket);
      this.pushTime(at);
    } else {
      bucket.nodes.push(node);
      bucket.live++;
    }
    node.bucket = bucket;
    return at;
  }

  private restore(nodes: Node<E>[], from: number): void {
    for (let i = from; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (node.cancelled) this.cancelled--;
      else this.place(node);
    }
  }

  /**
   * Returns a finished node to the pool: steady-state retrying (an entry fires, its object fails
   * again, a new entry is scheduled) then allocates nothing here, which keeps the garbage
   * collector out of the hot path.
   */
  private recycle(node: Node<E>): void {
    node.entry = undefined as E;
    node.list = UNSET;
    node.bucket = UNSET;
    node.prev = UNSET;
    node.next = UNSET;
    node.cancelled = false;
    if (this.freeNodes.length < MAX_FREE_NODES) this.freeNodes.push(node);
  }

  /** Takes a node out of its key's list; an emptied list leaves the key map at the next sweep. */
  private unlink(node: Node<E>): void {
    const list = node.list;
    list.count--;
    if (list.count === 0) {
      list.head = undefined;
      if (!list.emptied) {
        list.emptied = true;
        this.emptied.push(list);
      }
      return;
    }
    node.prev.next = node.next;
    node.next.prev = node.prev;
    if (list.head === node) list.head = node.next;
  }

  /** Removes lists left empty from the key map (after firing, so an owner that reschedules the same key keeps its list). */
  private sweep(): void {
    const emptied = this.emptied;
    if (emptied.length === 0) return;
    this.emptied = [];
    for (const list of emptied) {
      list.emptied = false;
      if (list.count === 0 && this.byKey.get(list.key) === list) this.byKey.delete(list.key);
    }
  }

  /** The earliest bucket with a waiting entry, dropping fully cancelled buckets on the way. */
  private firstLiveBucket(): Bucket<E> | undefined {
    while (this.times.length > 0) {
      const bucket = this.buckets.get(this.times[0]!);
      if (bucket !== undefined && bucket.live > 0) return bucket;
      this.popTime();
      if (bucket !== undefined) {
        this.buckets.delete(bucket.at);
        this.cancelled -= bucket.nodes.length;
      }
    }
    return undefined;
  }

  private arm(): void {
    if (!this.running) return;
    const bucket = this.firstLiveBucket();
    if (bucket === undefined) {
      this.disarm();
      return;
    }
    if (this.timer !== undefined && this.armedFor === bucket.at) return;
    this.disarm();
    this.armedFor = bucket.at;
    this.timer = this.clock.setTimer(Math.min(Math.max(0, bucket.at - this.now()), MAX_TIMER_MS), this.fire);
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private compact(): void {
    for (const bucket of this.buckets.values()) {
      if (bucket.live === 0) this.buckets.delete(bucket.at);
      else if (bucket.live < bucket.nodes.length) bucket.nodes = bucket.nodes.filter((n) => !n.cancelled);
    }
    this.cancelled = 0;
    // A sorted array is a valid min-heap.
    this.times = [...this.buckets.keys()].sort((a, b) => a - b);
  }

  // --- binary min-heap of bucket times ---

  private pushTime(at: number): void {
    const heap = this.times;
    let i = heap.length;
    heap.push(at);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p <= at) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = at;
  }

  private popTime(): number {
    const heap = this.times;
    const top = heap[0]!;
    const last = heap.pop()!;
    const n = heap.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && heap[r]! < heap[l]! ? r : l;
        if (heap[c]! >= last) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }
}
