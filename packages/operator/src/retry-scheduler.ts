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
   * fire in one wake-up: an entry fires at most this late, never early. Default: 0 (exact).
   */
  resolutionMs?: number | undefined;
}

interface HeapNode<E> {
  due: number;
  seq: number;
  key: string;
  entry: E;
  cancelled: boolean;
  /** Circular doubly linked list of the live nodes of one key (the head's `prev` is the tail): O(1) removal, no arrays. */
  prev: HeapNode<E>;
  next: HeapNode<E>;
}

/** Node's timers overflow (and fire at once) beyond 2^31-1 ms; a longer wait is armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const NONE: never[] = [];

/**
 * Holds delayed work (retries, `requeueAfter`) in one min-heap behind one timer on the injected
 * clock, always armed for the earliest entry. Entries are plain data keyed by object, so the
 * owner can cancel them by predicate (dequeue policies) and a due entry goes back through the
 * owner's per-object queue rather than running here.
 *
 * Costs: `schedule` O(log n), `cancel` O(entries of that key) with lazy removal from the heap,
 * firing O(log n) per entry; one timer whatever the number of entries.
 */
export class RetryScheduler<E> {
  private readonly clock: Clock;
  private readonly onDue: (key: string, entry: E) => void;
  private heap: HeapNode<E>[] = [];
  private readonly byKey = new Map<string, HeapNode<E>[]>();
  private cancelledInHeap = 0;
  private seq = 0;
  private running = false;
  private timer: Timer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(options: RetrySchedulerOptions<E>) {
    this.clock = options.clock ?? realClock;
    this.onDue = options.onDue;
  }

  /** Number of entries waiting. */
  get size(): number {
    return this.heap.length - this.cancelledInHeap;
  }

  /** Number of entries waiting for `key`. */
  pending(key: string): number {
    return this.byKey.get(key)?.length ?? 0;
  }

  /** The entries waiting for `key`, earliest scheduled first. */
  entries(key: string): E[] {
    return (this.byKey.get(key) ?? NONE).map((n) => n.entry);
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
    const delay = delayMs > 0 ? delayMs : 0;
    const node: HeapNode<E> = { due: this.clock.now() + delay, seq: this.seq++, key, entry, cancelled: false };
    this.push(node);
    const list = this.byKey.get(key);
    if (list === undefined) this.byKey.set(key, [node]);
    else list.push(node);
    if (this.running && node.due < this.armedFor) this.arm();
  }

  /** Removes the waiting entries of `key` that `predicate` accepts and returns them. */
  cancel(key: string, predicate: (entry: E) => boolean): E[] {
    const list = this.byKey.get(key);
    if (list === undefined) return NONE;
    let removed: E[] | undefined;
    let write = 0;
    for (let read = 0; read < list.length; read++) {
      const node = list[read]!;
      if (predicate(node.entry)) {
        node.cancelled = true;
        this.cancelledInHeap++;
        (removed ??= []).push(node.entry);
      } else {
        list[write++] = node;
      }
    }
    if (removed === undefined) return NONE;
    list.length = write;
    if (write === 0) this.byKey.delete(key);
    // Lazy deletion: compact once cancelled nodes dominate, so memory follows live entries.
    if (this.cancelledInHeap > 64 && this.cancelledInHeap * 2 > this.heap.length) this.compact();
    return removed;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    if (!this.running) return;
    const now = this.clock.now();
    // Entries scheduled while firing (even with delay 0) wait for the next turn: no starvation loop.
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
      this.forget(top);
      this.onDue(top.key, top.entry);
      if (!this.running) return;
    }
    this.arm();
  };

  private arm(): void {
    if (!this.running) return;
    this.dropCancelledTop();
    const top = this.heap[0];
    if (top === undefined) {
      this.disarm();
      return;
    }
    if (this.timer !== undefined && this.armedFor === top.due) return;
    this.disarm();
    this.armedFor = top.due;
    this.timer = this.clock.setTimer(Math.min(Math.max(0, top.due - this.clock.now()), MAX_TIMER_MS), this.fire);
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private forget(node: HeapNode<E>): void {
    const list = this.byKey.get(node.key);
    if (list === undefined) return;
    if (list.length === 1) {
      if (list[0] === node) this.byKey.delete(node.key);
      return;
    }
    const i = list.indexOf(node);
    if (i >= 0) list.splice(i, 1);
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
      if (!before(node, p)) break;
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
      if (r < n && before(heap[r]!, heap[l]!)) c = r;
      const child = heap[c]!;
      if (!before(child, node)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = node;
  }
}

function before<E>(a: HeapNode<E>, b: HeapNode<E>): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
