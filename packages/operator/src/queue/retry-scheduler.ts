import { InvalidArgumentError } from '../errors.js';
import { realClock } from '../clock.js';
import type { Clock, Timer } from '../clock.js';

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

/**
 * The entries that wake up together (every entry whose due time aligns up to `at`), in schedule
 * order, as parallel arrays: no object per entry. A cancelled or fired slot holds {@link GONE}.
 */
interface Bucket {
  at: number;
  keys: string[];
  entries: unknown[];
  dues: number[];
  /** Schedule order, to build the key index in that order. */
  seqs: number[];
  /** The key-index node of each slot while the index is built; undefined otherwise. */
  nodes: (Node | undefined)[] | undefined;
  /** Slots still waiting. */
  live: number;
  /** In the bucket map (false once detached for firing). */
  waiting: boolean;
}

/** A waiting entry in the key index: where it is, and its neighbours in its key's list. */
interface Node {
  bucket: Bucket;
  index: number;
  seq: number;
  list: KeyList;
  prev: Node;
  next: Node;
}

/** The waiting entries of one key, in schedule order: an intrusive circular list of nodes. */
interface KeyList {
  key: string;
  head: Node | undefined;
  count: number;
}

/** Marks a slot that was cancelled or has fired. */
const GONE: unique symbol = Symbol('gone');
/** Node's timers overflow (and fire at once) beyond 2^31-1 ms; a longer wait is armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const NONE: never[] = [];
/** Idle key lists are swept once they number more than this and more than the lists in use. */
const MIN_IDLE_LISTS_TO_SWEEP = 1024;
/** The key index is dropped after this many schedules (and twice the waiting entries) without a key query. */
const MIN_UNQUERIED_SCHEDULES_TO_DROP_INDEX = 4096;

/**
 * Holds delayed work (retries, `requeueAfter`) behind one timer on the injected clock, always armed
 * for the earliest entry. Entries are plain data keyed by object, so the owner can cancel them by
 * predicate (dequeue policies), and a due entry is handed back to the owner (to go through its
 * per-object queue) rather than run here.
 *
 * Layout (a calendar queue): entries that wake up at the same time share a bucket (parallel arrays,
 * in schedule order); one min-heap orders the bucket times. `schedule` is O(1) (plus O(log b) when
 * it opens a bucket) and allocates nothing per entry; firing is O(1) per entry with sequential
 * memory access. With `resolutionMs`, one wake-up serves every entry due in that window. Memory
 * follows the waiting entries: cancelled ones are compacted away once they outnumber them.
 *
 * The key index (each key's entries, for {@link cancel}, {@link hasPending}, {@link pending} and
 * {@link entries}) is built on the first such query and kept up to date while queries keep coming;
 * after many schedules with no query (a retry storm with no new events: nothing to cancel) it is
 * dropped, and rebuilt by the next query in O(waiting entries), in one go (about 1 us per waiting
 * entry: 100 ms at 100k, once, when events resume after a storm). Keeping it costs an object, a
 * hash lookup and list links per schedule, on a map as large as the failing objects: without it a
 * retry costs about half as much CPU. A rebuild is paid for by at least twice as many schedules
 * that skipped the index.
 */
export class RetryScheduler<E> {
  private readonly clock: Clock;
  private readonly onDue: (key: string, entry: E) => void;
  private readonly resolutionMs: number;
  private readonly buckets = new Map<number, Bucket>();
  /** Min-heap of bucket times. */
  private times: number[] = [];
  private seq = 0;
  private live = 0;
  /** Cancelled slots in the buckets of the map (not yet fired or compacted). */
  private cancelled = 0;
  private running = false;
  private timer: Timer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private cachedNow = 0;
  private nowCached = false;

  // Key index (see the class comment).
  private indexed = false;
  private byKey = new Map<string, KeyList>();
  /** Lists in `byKey` with no waiting entry: kept so that a key that keeps failing reuses its list. */
  private idleLists = 0;
  /** Schedules since the last key query, while indexed. */
  private unqueried = 0;

  /** The due buckets detached by the wake-up in progress (their slots that have not fired still wait). */
  private firingBuckets: Bucket[] = NONE;
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
      out.push(node.bucket.entries[node.index] as E);
      node = node.next;
    } while (node !== head);
    return out;
  }

  /** When the earliest entry falls due (clock milliseconds), or undefined when empty. */
  nextDueAt(): number | undefined {
    const bucket = this.firstLiveBucket();
    if (bucket === undefined) return undefined;
    let min = Number.POSITIVE_INFINITY;
    const { entries, dues } = bucket;
    for (let i = 0; i < entries.length; i++) if (entries[i] !== GONE && dues[i]! < min) min = dues[i]!;
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
    const seq = this.seq++;
    const bucket = this.place(key, entry, due, seq);
    this.live++;
    if (this.indexed) {
      if (++this.unqueried > MIN_UNQUERIED_SCHEDULES_TO_DROP_INDEX && this.unqueried > 2 * this.live) this.forgetIndex();
      else this.addNode(bucket, bucket.entries.length - 1, seq, this.listFor(key));
    }
    if (this.running && bucket.at < this.armedFor) this.arm();
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
      const bucket = node.bucket;
      const entry = bucket.entries[node.index] as E;
      if (predicate(entry)) {
        bucket.entries[node.index] = GONE;
        bucket.nodes![node.index] = undefined;
        bucket.live--;
        if (bucket.waiting) this.cancelled++;
        this.live--;
        this.unlink(node, list);
        (removed ??= []).push(entry);
      }
      if (last) break;
      node = next;
    }
    if (removed === undefined) return NONE;
    if (this.firingBuckets !== NONE) return removed; // the wake-up sweeps idle lists when it is over
    this.sweepIdleLists();
    // Lazy deletion: compact once cancelled slots outnumber waiting ones, so memory follows waiting entries.
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
    const due: Bucket[] = [];
    while (this.times.length > 0 && this.times[0]! <= now) {
      const at = this.popTime();
      const bucket = this.buckets.get(at);
      if (bucket === undefined) continue;
      this.buckets.delete(at);
      bucket.waiting = false;
      this.cancelled -= bucket.entries.length - bucket.live;
      due.push(bucket);
    }
    this.firingBuckets = due;
    const clears = this.clears;
    try {
      firing: for (let b = 0; b < due.length; b++) {
        const bucket = due[b]!;
        const { keys, entries } = bucket;
        for (let i = 0; i < entries.length; i++) {
          const entry = entries[i];
          if (entry === GONE) continue;
          // Marked first: a key-index rebuild from onDue must not see it as waiting.
          entries[i] = GONE;
          bucket.live--;
          this.live--;
          const node = bucket.nodes?.[i];
          if (node !== undefined) this.unlink(node, node.list);
          this.onDue(keys[i]!, entry as E);
          if (this.clears !== clears) break firing; // cleared from onDue: the rest of this wake-up is dropped too
          if (!this.running) {
            // Stopped from onDue: put back what has not fired.
            for (let r = b; r < due.length; r++) this.restore(due[r]!);
            return;
          }
        }
      }
    } finally {
      this.firingBuckets = NONE;
      this.sweepIdleLists();
    }
    this.arm();
  };

  /** Appends an entry to the bucket of its wake-up time (opened if needed) and returns that bucket. */
  private place(key: string, entry: unknown, due: number, seq: number): Bucket {
    const at = Math.ceil(due / this.resolutionMs) * this.resolutionMs;
    let bucket = this.buckets.get(at);
    if (bucket === undefined) {
      // Fresh arrays, not pooled ones: young arrays pointing at young entries keep the GC's remembered set empty.
      bucket = { at, keys: [key], entries: [entry], dues: [due], seqs: [seq], nodes: undefined, live: 1, waiting: true };
      this.buckets.set(at, bucket);
      this.pushTime(at);
      return bucket;
    }
    bucket.keys.push(key);
    bucket.entries.push(entry);
    bucket.dues.push(due);
    bucket.seqs.push(seq);
    bucket.live++;
    return bucket;
  }

  /** Puts the slots of a detached due bucket that have not fired back into waiting buckets. */
  private restore(from: Bucket): void {
    const { keys, entries, dues, seqs, nodes } = from;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry === GONE) continue;
      const bucket = this.place(keys[i]!, entry, dues[i]!, seqs[i]!);
      const node = nodes?.[i];
      if (node !== undefined) this.moveNode(node, bucket, bucket.entries.length - 1);
    }
  }

  // --- key index ---

  /** The list of `key` in the key index (built first if needed); counts as a key query. */
  private keyList(key: string): KeyList | undefined {
    this.unqueried = 0;
    if (!this.indexed) this.buildIndex();
    return this.byKey.get(key);
  }

  /** The list of `key`, created (or revived from idle) for a new entry. */
  private listFor(key: string): KeyList {
    let list = this.byKey.get(key);
    if (list === undefined) {
      list = { key, head: undefined, count: 0 };
      this.byKey.set(key, list);
    } else if (list.count === 0) this.idleLists--;
    return list;
  }

  /** Creates the index node of a slot and appends it to its key list (schedule order). */
  private addNode(bucket: Bucket, index: number, seq: number, list: KeyList): Node {
    const node: Node = { bucket, index, seq, list, prev: undefined as unknown as Node, next: undefined as unknown as Node };
    (bucket.nodes ??= [])[index] = node;
    this.link(node, list);
    return node;
  }

  /** Points a node at its slot's new place. */
  private moveNode(node: Node, bucket: Bucket, index: number): void {
    node.bucket = bucket;
    node.index = index;
    (bucket.nodes ??= [])[index] = node;
  }

  private link(node: Node, list: KeyList): void {
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
  private unlink(node: Node, list: KeyList): void {
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

  /** Builds the key index from every waiting slot (also those of a wake-up in progress), each key's list in schedule order. */
  private buildIndex(): void {
    this.indexed = true;
    this.unqueried = 0;
    if (this.live === 0) return;
    // Buckets are visited in no particular order: a key whose entries arrive out of schedule order is sorted afterwards.
    const unordered = new Set<KeyList>();
    const add = (bucket: Bucket): void => {
      const { keys, entries, seqs } = bucket;
      for (let i = 0; i < entries.length; i++) {
        if (entries[i] === GONE) continue;
        const list = this.listFor(keys[i]!);
        const tail = list.head?.prev;
        if (tail !== undefined && tail.seq > seqs[i]!) unordered.add(list);
        this.addNode(bucket, i, seqs[i]!, list);
      }
    };
    for (const bucket of this.buckets.values()) add(bucket);
    for (const bucket of this.firingBuckets) add(bucket);
    for (const list of unordered) this.sortList(list);
  }

  /** Relinks a key list in schedule order. */
  private sortList(list: KeyList): void {
    const nodes: Node[] = [];
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

  /** Drops the key index: O(buckets), paid for by the schedules that skipped it. */
  private forgetIndex(): void {
    if (!this.indexed) return;
    this.indexed = false;
    this.byKey = new Map();
    this.idleLists = 0;
    for (const bucket of this.buckets.values()) bucket.nodes = undefined;
    for (const bucket of this.firingBuckets) bucket.nodes = undefined;
  }

  // --- timer ---

  /** The earliest bucket with a waiting entry, dropping fully cancelled buckets on the way. */
  private firstLiveBucket(): Bucket | undefined {
    while (this.times.length > 0) {
      const bucket = this.buckets.get(this.times[0]!);
      if (bucket !== undefined && bucket.live > 0) return bucket;
      this.popTime();
      if (bucket !== undefined) {
        this.buckets.delete(bucket.at);
        this.cancelled -= bucket.entries.length;
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

  /** Drops cancelled slots from every waiting bucket (keeping order), and buckets left empty. */
  private compact(): void {
    for (const bucket of this.buckets.values()) {
      if (bucket.live === 0) {
        this.buckets.delete(bucket.at);
        continue;
      }
      if (bucket.live === bucket.entries.length) continue;
      const { keys, entries, dues, seqs, nodes } = bucket;
      let j = 0;
      for (let i = 0; i < entries.length; i++) {
        if (entries[i] === GONE) continue;
        keys[j] = keys[i]!;
        entries[j] = entries[i];
        dues[j] = dues[i]!;
        seqs[j] = seqs[i]!;
        if (nodes !== undefined) {
          const node = nodes[i];
          nodes[j] = node;
          if (node !== undefined) node.index = j;
        }
        j++;
      }
      keys.length = j;
      entries.length = j;
      dues.length = j;
      seqs.length = j;
      if (nodes !== undefined) nodes.length = j;
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
