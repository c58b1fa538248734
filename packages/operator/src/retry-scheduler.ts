import { InvalidArgumentError } from './errors.js';
import { realClock } from './clock.js';
import type { Clock, Timer } from './clock.js';

/** Options of a {@link RetryScheduler}. */
export interface RetrySchedulerOptions<E> {
  /** Receives each entry when it falls due (in due order; entries due at the same instant in schedule order). */
  onDue: (key: string, entry: E) => void;
  /** Source of time and timers. Default: `realClock`. */
  clock?: Clock | undefined;
  /**
   * Wake-ups are aligned to multiples of this many milliseconds, so entries due close together
   * fire in one wake-up: an entry fires at most this much late, never early. Default: 0 (exact).
   */
  resolutionMs?: number | undefined;
}

interface Node<E> {
  due: number;
  seq: number;
  key: string;
  entry: E;
  cancelled: boolean;
  bucket: Bucket<E>;
  /** Circular doubly linked list of the waiting nodes of one key (the head's `prev` is the tail): O(1) removal, no arrays. */
  prev: Node<E>;
  next: Node<E>;
}

/** The entries that wake up together: every entry whose due time aligns up to `at`. */
interface Bucket<E> {
  at: number;
  nodes: Node<E>[];
  /** Waiting (not cancelled) nodes. */
  live: number;
  /** False once a node was added with an earlier due time than the previous one (then sorted when fired). */
  sorted: boolean;
  lastDue: number;
}

/** Node's timers overflow (and fire at once) beyond 2^31-1 ms; a longer wait is armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const NONE: never[] = [];
/** Placeholder for fields set right after a node is built (keeps one object shape for every node). */
const UNSET = undefined as unknown as Node<never> & Bucket<never>;

/**
 * Holds delayed work (retries, `requeueAfter`) behind one timer on the injected clock, always armed
 * for the earliest entry. Entries are plain data keyed by object, so the owner can cancel them by
 * predicate (dequeue policies), and a due entry is handed back to the owner (to go through its
 * per-object queue) rather than run here.
 *
 * Layout: entries that wake up together share a bucket (an array); a min-heap orders the bucket
 * times; each key's entries form an intrusive list. `schedule` is O(1) (plus O(log b) for a new
 * bucket), firing O(1) per entry, `cancel` O(entries of that key) with lazy removal. With
 * `resolutionMs`, one wake-up serves every entry due in that window, instead of one per distinct
 * due time. Memory follows waiting entries (cancelled ones are compacted away).
 */
export class RetryScheduler<E> {
  private readonly clock: Clock;
  private readonly onDue: (key: string, entry: E) => void;
  private readonly resolutionMs: number;
  private readonly buckets = new Map<number, Bucket<E>>();
  /** Min-heap of bucket times. */
  private times: number[] = [];
  /** The head node of each key's list. */
  private readonly byKey = new Map<string, Node<E>>();
  private live = 0;
  private cancelled = 0;
  private seq = 0;
  private running = false;
  private timer: Timer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private cachedNow = 0;
  private nowCached = false;

  constructor(options: RetrySchedulerOptions<E>) {
    this.clock = options.clock ?? realClock;
    this.onDue = options.onDue;
    const resolution = options.resolutionMs ?? 0;
    if (!(resolution >= 0) || !Number.isFinite(resolution)) throw new InvalidArgumentError(`resolutionMs must be >= 0, got ${resolution}`);
    this.resolutionMs = resolution;
  }

  /** Number of entries waiting. */
  get size(): number {
    return this.live;
  }

  /** True when `key` has waiting entries (one map lookup: the controller's per-event fast path). */
  hasPending(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Number of entries waiting for `key`. */
  pending(key: string): number {
    let n = 0;
    this.forEachOf(key, () => n++);
    return n;
  }

  /** The entries waiting for `key`, in schedule order. */
  entries(key: string): E[] {
    const out: E[] = [];
    this.forEachOf(key, (node) => out.push(node.entry));
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
    this.live = 0;
    this.cancelled = 0;
    this.disarm();
    return n;
  }

  /** Queues `entry` for `key`, due `delayMs` (clamped to >= 0) from now. */
  schedule(key: string, entry: E, delayMs: number): void {
    const node: Node<E> = { due: this.now() + (delayMs > 0 ? delayMs : 0), seq: this.seq++, key, entry, cancelled: false, bucket: UNSET, prev: UNSET, next: UNSET };
    const head = this.byKey.get(key);
    if (head === undefined) {
      node.prev = node;
      node.next = node;
      this.byKey.set(key, node);
    } else {
      const tail = head.prev;
      node.prev = tail;
      node.next = head;
      tail.next = node;
      head.prev = node;
    }
    this.live++;
    const at = this.place(node);
    if (this.running && at < this.armedFor) this.arm();
  }

  /** Removes the waiting entries of `key` that `predicate` accepts and returns them. */
  cancel(key: string, predicate: (entry: E) => boolean): E[] {
    const head = this.byKey.get(key);
    if (head === undefined) return NONE;
    let removed: E[] | undefined;
    let node = head;
    const tail = head.prev;
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
    // Lazy deletion: compact once cancelled nodes dominate, so memory follows waiting entries.
    if (this.cancelled > 64 && this.cancelled > this.live) this.compact();
    return removed;
  }

  /**
   * The clock's time, read once per synchronous run of code: a burst of `schedule` calls (one
   * event loop task failing many objects) reads the clock once, as Node's own timers use the
   * loop's cached time. Clock reads are system calls on some hosts.
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
    // new buckets and wait for the next wake-up, so a handler that reschedules cannot loop here.
    const due: Bucket<E>[] = [];
    while (this.times.length > 0 && this.times[0]! <= now) {
      const at = this.popTime();
      const bucket = this.buckets.get(at);
      if (bucket === undefined) continue;
      this.buckets.delete(at);
      due.push(bucket);
    }
    for (let b = 0; b < due.length; b++) {
      const bucket = due[b]!;
      const nodes = bucket.nodes;
      if (!bucket.sorted) nodes.sort(byDueThenSeq);
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[i]!;
        if (node.cancelled) {
          this.cancelled--;
          continue;
        }
        this.live--;
        this.unlink(node);
        this.onDue(node.key, node.entry);
        if (!this.running) {
          // Stopped from onDue: put back what has not fired.
          this.restore(nodes.slice(i + 1), due.slice(b + 1));
          return;
        }
      }
    }
    this.arm();
  };

  /** Puts a node into the bucket of its wake-up time; returns that time. */
  private place(node: Node<E>): number {
    const at = this.wakeAt(node.due);
    let bucket = this.buckets.get(at);
    if (bucket === undefined) {
      bucket = { at, nodes: [node], live: 1, sorted: true, lastDue: node.due };
      this.buckets.set(at, bucket);
      this.pushTime(at);
    } else {
      bucket.nodes.push(node);
      bucket.live++;
      if (node.due < bucket.lastDue) bucket.sorted = false;
      else bucket.lastDue = node.due;
    }
    node.bucket = bucket;
    return at;
  }

  private restore(rest: Node<E>[], buckets: Bucket<E>[]): void {
    for (const list of [rest, ...buckets.map((b) => b.nodes)]) {
      for (const node of list) {
        if (node.cancelled) {
          this.cancelled--;
          continue;
        }
        this.place(node);
      }
    }
  }

  /** The wake-up time for an entry due at `due`: aligned up to the resolution. */
  private wakeAt(due: number): number {
    const r = this.resolutionMs;
    return r > 0 ? Math.ceil(due / r) * r : due;
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

  private forEachOf(key: string, fn: (node: Node<E>) => void): void {
    const head = this.byKey.get(key);
    if (head === undefined) return;
    let node = head;
    do {
      fn(node);
      node = node.next;
    } while (node !== head);
  }

  /** Takes a node out of its key's list (not out of its bucket). */
  private unlink(node: Node<E>): void {
    if (node.next === node) {
      this.byKey.delete(node.key);
      return;
    }
    node.prev.next = node.next;
    node.next.prev = node.prev;
    if (this.byKey.get(node.key) === node) this.byKey.set(node.key, node.next);
  }

  private compact(): void {
    for (const bucket of this.buckets.values()) {
      if (bucket.live === 0) {
        this.buckets.delete(bucket.at);
        continue;
      }
      if (bucket.live < bucket.nodes.length) bucket.nodes = bucket.nodes.filter((n) => !n.cancelled);
    }
    this.cancelled = 0;
    this.times = [...this.buckets.keys()].sort((a, b) => a - b);
  }

  // --- binary min-heap of bucket times ---

  private pushTime(at: number): void {
    const heap = this.times;
    heap.push(at);
    let i = heap.length - 1;
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

function byDueThenSeq<E>(a: Node<E>, b: Node<E>): number {
  return a.due - b.due || a.seq - b.seq;
}
