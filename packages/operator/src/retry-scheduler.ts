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

/** The waiting entries of one key, in schedule order: an intrusive circular list of nodes. */
interface KeyList<E> {
  key: string;
  head: Node<E> | undefined;
  count: number;
}

interface Node<E> {
  due: number;
  /** Schedule order, to rebuild the key index in that order. */
  seq: number;
  key: string;
  entry: E;
  cancelled: boolean;
  /** The node's key list; undefined while the key index is not built. */
  list: KeyList<E> | undefined;
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
/** Idle key lists are swept once they number more than this and more than the lists in use. */
const MIN_IDLE_LISTS_TO_SWEEP = 1024;
/** The key index is dropped after this many schedules (and twice the waiting entries) without a key query. */
const MIN_UNQUERIED_SCHEDULES_TO_DROP_INDEX = 4096;
/** Placeholder for fields set right after a node is built (keeps one object shape for every node). */
const UNSET = undefined as unknown as Node<never> & Bucket<never>;

/**
 * Holds delayed work (retries, `requeueAfter`) behind one timer on the injected clock, always armed
 * for the earliest entry. Entries are plain data keyed by object, so the owner can cancel them by
 * predicate (dequeue policies), and a due entry is handed back to the owner (to go through its
 * per-object queue) rather than run here.
 *
 * Layout (a calendar queue): entries that wake up at the same time share a bucket (an array, in
 * schedule order); one min-heap orders the bucket times. `schedule` is O(1) (plus O(log b) when it
 * opens a bucket), firing is O(1) per entry with sequential memory access. With `resolutionMs`,
 * one wake-up serves every entry due in that window. Memory follows the waiting entries: cancelled
 * ones are compacted away once they outnumber them.
 *
 * The key index (each key's entries, for {@link cancel}, {@link hasPending}, {@link pending} and
 * {@link entries}) is built on the first such query and kept up to date while queries keep coming;
 * after many schedules with no query (a retry storm with no new events: nothing to cancel) it is
 * dropped and rebuilt on the next query, in O(waiting entries). Keeping it costs a hash lookup
 * and list links per schedule on a map as large as the failing objects, the biggest per-retry cost
 * at scale; the rebuild is paid for by at least twice as many schedules that skipped it.
 */
export class RetryScheduler<E> {
  private readonly clock: Clock;
  private readonly onDue: (key: string, entry: E) => void;
  private readonly resolutionMs: number;
  private readonly buckets = new Map<number, Bucket<E>>();
  /** Min-heap of bucket times. */
  private times: number[] = [];
  private readonly freeNodes: Node<E>[] = [];
  private readonly freeBuckets: Bucket<E>[] = [];
  private seq = 0;
  private live = 0;
  private cancelled = 0;
  private running = false;
  private timer: Timer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private cachedNow = 0;
  private nowCached = false;

  // Key index (see the class comment).
  private indexed = false;
  private byKey = new Map<string, KeyList<E>>();
  /** Lists in `byKey` with no waiting entry: kept so that a key that keeps failing reuses its list. */
  private idleLists = 0;
  /** Schedules since the last key query, while indexed. */
  private unqueried = 0;

  // Firing state: the detached due buckets, and the position of the entry handed to `onDue`.
  private firing = false;
  private firingBuckets: Bucket<E>[] = NONE;
  private firingBucket = 0;
  private firingNode = 0;
  /** Counts {@link clear} calls, so that a wake-up notices one made from `onDue`. */
  private clears = 0;

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

  /** True when `key` has waiting entries (one map lookup once the key index is built: the controller's per-event fast path). */
  hasPending(key: string): boolean {
    if (this.live === 0) return false;
    const list = this.keyList(key);
    return list !== undefined && list.count > 0;
  }

  /** Number of entries waiting for `key`. */
  pending(key: string): number {
    if (this.live === 0) return 0;
    return this.keyList(key)?.count ?? 0;
  }

  /** The entries waiting for `key`, in schedule order. */
  entries(key: string): E[] {
    const out: E[] = [];
    if (this.live === 0) return out;
    const head = this.keyList(key)?.head;
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

  /** Drops every entry (also the rest of a wake-up, when called from `onDue`); returns how many there were. */
  clear(): number {
    const n = this.live;
    this.clears++;
    this.buckets.clear();
    this.times = [];
    this.forgetIndex();
    this.live = 0;
    this.cancelled = 0;
    this.disarm();
    return n;
  }

  /** Queues `entry` for `key`, due `delayMs` (clamped to >= 0) from now. */
  schedule(key: string, entry: E, delayMs: number): void {
    const due = this.now() + (delayMs > 0 ? delayMs : 0);
    let node = this.freeNodes.pop();
    if (node === undefined) node = { due, seq: this.seq++, key, entry, cancelled: false, list: undefined, bucket: UNSET, prev: UNSET, next: UNSET };
    else {
      node.due = due;
      node.seq = this.seq++;
      node.key = key;
      node.entry = entry;
    }
    if (this.indexed) {
      if (++this.unqueried > MIN_UNQUERIED_SCHEDULES_TO_DROP_INDEX && this.unqueried > 2 * this.live) this.forgetIndex();
      else this.link(node, this.listFor(key));
    }
    this.live++;
    const at = this.place(node);
    if (this.running && at < this.armedFor) this.arm();
  }

  /** Removes the waiting entries of `key` that `predicate` accepts and returns them, in schedule order. */
  cancel(key: string, predicate: (entry: E) => boolean): E[] {
    if (this.live === 0) return NONE;
    const list = this.keyList(key);
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
        this.unlink(node, list);
        (removed ??= []).push(node.entry);
      }
      if (last) break;
      node = next;
    }
    if (removed === undefined) return NONE;
    if (this.firing) return removed; // the firing loop sweeps, and counts the cancelled nodes it detached
    this.sweepIdleLists();
    // Lazy deletion: compact once cancelled nodes outnumber waiting ones, so memory follows waiting entries.
    if (this.cancelled > 64 && this.cancelled > this.live) this.compact();
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
    this.firingBuckets = due;
    const clears = this.clears;
    try {
      firing: for (let b = 0; b < due.length; b++) {
        const bucket = due[b]!;
        const nodes = bucket.nodes;
        this.firingBucket = b;
        for (let i = 0; i < nodes.length; i++) {
          const node = nodes[i]!;
          if (node.cancelled) {
            this.cancelled--;
            this.recycle(node);
            continue;
          }
          this.live--;
          const list = node.list;
          if (list !== undefined) this.unlink(node, list);
          const key = node.key;
          const entry = node.entry;
          this.recycle(node);
          this.firingNode = i;
          this.onDue(key, entry);
          if (this.clears !== clears) break firing; // cleared from onDue: the rest of this wake-up is dropped too
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
      this.firingBuckets = NONE;
      this.sweepIdleLists();
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
    node.list = undefined;
    node.bucket = UNSET;
    node.prev = UNSET;
    node.next = UNSET;
    node.cancelled = false;
    if (this.freeNodes.length < MAX_FREE_NODES) this.freeNodes.push(node);
  }

  // --- key index ---

  /** The list of `key` in the key index (built first if needed); counts as a key query. */
  private keyList(key: string): KeyList<E> | undefined {
    this.unqueried = 0;
    if (!this.indexed) this.buildIndex();
    return this.byKey.get(key);
  }

  /** The list of `key`, created (or revived from idle) for a new entry. */
  private listFor(key: string): KeyList<E> {
    let list = this.byKey.get(key);
    if (list === undefined) {
      list = { key, head: undefined, count: 0 };
      this.byKey.set(key, list);
    } else if (list.count === 0) this.idleLists--;
    return list;
  }

  /** Appends a node to a key list (schedule order). */
  private link(node: Node<E>, list: KeyList<E>): void {
    node.list = list;
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
  }

  /** Takes a node out of its key's list; an emptied list stays in the key map, idle. */
  private unlink(node: Node<E>, list: KeyList<E>): void {
    node.list = undefined;
    list.count--;
    if (list.count === 0) {
      list.head = undefined;
      this.idleLists++;
      return;
    }
    node.prev.next = node.next;
    node.next.prev = node.prev;
    if (list.head === node) list.head = node.next;
  }

  /**
   * Removes idle lists from the key map once they outnumber the lists in use (and a floor): one
   * pass over the map per that many emptied lists, so O(1) amortized, and memory follows the keys
   * with waiting entries. Not while firing, so an owner that reschedules the same key keeps its list.
   */
  private sweepIdleLists(): void {
    const idle = this.idleLists;
    if (idle <= MIN_IDLE_LISTS_TO_SWEEP || idle <= this.byKey.size - idle) return;
    for (const [key, list] of this.byKey) if (list.count === 0) this.byKey.delete(key);
    this.idleLists = 0;
  }

  /** Builds the key index from every waiting node, each key's list in schedule order. */
  private buildIndex(): void {
    this.indexed = true;
    this.unqueried = 0;
    if (this.live === 0) return;
    // Buckets are in no particular order: a key whose entries arrive out of schedule order is sorted afterwards.
    const unordered = new Set<KeyList<E>>();
    const add = (node: Node<E>): void => {
      if (node.cancelled) return;
      const list = this.listFor(node.key);
      const tail = list.head?.prev;
      if (tail !== undefined && tail.seq > node.seq) unordered.add(list);
      this.link(node, list);
    };
    for (const bucket of this.buckets.values()) for (const node of bucket.nodes) add(node);
    if (this.firing) {
      // The due buckets are detached from `buckets`; their nodes after the one being fired still wait.
      const due = this.firingBuckets;
      const nodes = due[this.firingBucket]!.nodes;
      for (let i = this.firingNode + 1; i < nodes.length; i++) add(nodes[i]!);
      for (let b = this.firingBucket + 1; b < due.length; b++) for (const node of due[b]!.nodes) add(node);
    }
    for (const list of unordered) this.sortList(list);
  }

  /** Relinks a key list in schedule order. */
  private sortList(list: KeyList<E>): void {
    const nodes: Node<E>[] = [];
    let node = list.head!;
    do {
      nodes.push(node);
      node = node.next;
    } while (node !== list.head);
    nodes.sort((a, b) => a.seq - b.seq);
    list.head = undefined;
    list.count = 0;
    for (const n of nodes) this.link(n, list);
  }

  /** Drops the key index: every node forgets its list (O(waiting entries), paid for by the schedules that skipped the index). */
  private forgetIndex(): void {
    if (!this.indexed) return;
    this.indexed = false;
    this.byKey = new Map();
    this.idleLists = 0;
    const forget = (node: Node<E>): void => {
      node.list = undefined;
      node.prev = UNSET;
      node.next = UNSET;
    };
    for (const bucket of this.buckets.values()) for (const node of bucket.nodes) forget(node);
    // Nodes of the due buckets still waiting to fire (fired ones are in the pool or placed again: harmless).
    for (const bucket of this.firingBuckets) for (const node of bucket.nodes) forget(node);
  }

  // --- timer ---

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
