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

interface HeapNode<E> {
  due: number;
  seq: number;
  key: string;
  entry: E;
  cancelled: boolean;
  /** Circular doubly linked list of the waiting nodes of one key (the head's `prev` is the tail): O(1) removal, no arrays. */
  prev: HeapNode<E>;
  next: HeapNode<E>;
}

/** Node's timers overflow (and fire at once) beyond 2^31-1 ms; a longer wait is armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const NONE: never[] = [];
/** Placeholder for `prev`/`next` until a node is linked (keeps one object shape for every node). */
const UNLINKED = undefined as unknown as HeapNode<never>;

/**
 * Holds delayed work (retries, `requeueAfter`) in one min-heap behind one timer on the injected
 * clock, always armed for the earliest entry. Entries are plain data keyed by object, so the
 * owner can cancel them by predicate (dequeue policies), and a due entry is handed back to the
 * owner (to go through its per-object queue) rather than run here.
 *
 * Costs: `schedule` O(log n), `cancel` O(entries of that key) with lazy removal from the heap,
 * firing O(log n) per entry; one timer whatever the number of entries, and with `resolutionMs`
 * one wake-up per resolution window instead of one per distinct due time. Memory follows waiting
 * entries (cancelled ones are compacted away once they outnumber them).
 */
export class RetryScheduler<E> {
  private readonly clock: Clock;
  private readonly onDue: (key: string, entry: E) => void;
  private readonly resolutionMs: number;
  private heap: HeapNode<E>[] = [];
  /** The head node of each key's list. */
  private readonly byKey = new Map<string, HeapNode<E>>();
  private cancelledInHeap = 0;
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
    return this.heap.length - this.cancelledInHeap;
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
    this.dropCancelledTop();
    return this.heap[0]?.due;
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
    const n = this.size;
    this.heap = [];
    this.byKey.clear();
    this.cancelledInHeap = 0;
    this.disarm();
    return n;
  }

  /** Queues `entry` for `key`, due `delayMs` (clamped to >= 0) from now. */
  schedule(key: string, entry: E, delayMs: number): void {
    const node: HeapNode<E> = { due: this.now() + (delayMs > 0 ? delayMs : 0), seq: this.seq++, key, entry, cancelled: false, prev: UNLINKED, next: UNLINKED };
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
    this.push(node);
    if (this.running && this.wakeAt(node.due) < this.armedFor) this.arm();
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
        this.cancelledInHeap++;
        this.unlink(node);
        (removed ??= []).push(node.entry);
      }
      if (last) break;
      node = next;
    }
    if (removed === undefined) return NONE;
    // Lazy deletion: compact once cancelled nodes dominate, so memory follows waiting entries.
    if (this.cancelledInHeap > 64 && this.cancelledInHeap * 2 > this.heap.length) this.compact();
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
    // Entries scheduled while firing (even with delay 0) wait for the next wake-up: no starvation loop.
    const limitSeq = this.seq;
    for (;;) {
      const top = this.heap[0];
      if (top === undefined) break;
      if (top.cancelled) {
        this.pop();
        this.cancelledInHeap--;
        continue;
      }
      if (top.due > now || top.seq >= limitSeq) break;
      this.pop();
      this.unlink(top);
      this.onDue(top.key, top.entry);
      if (!this.running) return;
    }
    this.arm();
  };

  /** The wake-up time for an entry due at `due`: aligned up to the resolution. */
  private wakeAt(due: number): number {
    const r = this.resolutionMs;
    return r > 0 ? Math.ceil(due / r) * r : due;
  }

  private arm(): void {
    if (!this.running) return;
    this.dropCancelledTop();
    const top = this.heap[0];
    if (top === undefined) {
      this.disarm();
      return;
    }
    const at = this.wakeAt(top.due);
    if (this.timer !== undefined && this.armedFor === at) return;
    this.disarm();
    this.armedFor = at;
    this.timer = this.clock.setTimer(Math.min(Math.max(0, at - this.now()), MAX_TIMER_MS), this.fire);
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private forEachOf(key: string, fn: (node: HeapNode<E>) => void): void {
    const head = this.byKey.get(key);
    if (head === undefined) return;
    let node = head;
    do {
      fn(node);
      node = node.next;
    } while (node !== head);
  }

  /** Takes a node out of its key's list (not out of the heap). */
  private unlink(node: HeapNode<E>): void {
    if (node.next === node) {
      this.byKey.delete(node.key);
      return;
    }
    node.prev.next = node.next;
    node.next.prev = node.prev;
    if (this.byKey.get(node.key) === node) this.byKey.set(node.key, node.next);
  }

  private dropCancelledTop(): void {
    while (this.heap[0]?.cancelled === true) {
      this.pop();
      this.cancelledInHeap--;
    }
  }

  private compact(): void {
    this.heap = this.heap.filter((n) => !n.cancelled);
    this.cancelledInHeap = 0;
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  // --- binary min-heap on (due, seq) ---

  private push(node: HeapNode<E>): void {
    const heap = this.heap;
    heap.push(node);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.due < node.due || (p.due === node.due && p.seq < node.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = node;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    this.siftDown(0);
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const n = heap.length;
    const node = heap[start]!;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      let child = heap[l]!;
      if (r < n) {
        const right = heap[r]!;
        if (right.due < child.due || (right.due === child.due && right.seq < child.seq)) {
          c = r;
          child = right;
        }
      }
      if (node.due < child.due || (node.due === child.due && node.seq < child.seq)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = node;
  }
}
