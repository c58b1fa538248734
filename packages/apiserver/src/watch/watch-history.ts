/**
 * The recent changes of one resource type, kept so that a watch can resume from a
 * resourceVersion. Bounded by count (per type) and by bytes (a {@link HistoryBudget} shared by
 * every type): the oldest changes are forgotten first, and a resume from before what is kept is
 * answered with 410 Expired (the client relists).
 */
import type { ChangeEvent } from '../storage/change-event.js';
import type { BudgetedHistory, HistoryBudget } from '../storage/history-budget.js';

/** The bytes a kept change holds on to: the JSON of its new and of its previous state. */
export function changeBytes(event: ChangeEvent): number {
  return event.current.json.length + (event.previous?.json.length ?? 0);
}

/** The kept changes of one resource type, oldest first. */
export class WatchHistory implements BudgetedHistory {
  readonly #capacity: number;
  readonly #budget: HistoryBudget | undefined;
  #events: ChangeEvent[] = [];
  #start = 0;
  #bytes = 0;
  /** Every change after this resourceVersion is kept. */
  #since: number;

  /**
   * @param capacity how many changes to keep.
   * @param since the resourceVersion from which this type's changes are complete (its creation).
   * @param budget the byte bound shared with the other types' histories; none: count only.
   */
  constructor(capacity: number, since: number, budget?: HistoryBudget) {
    this.#capacity = Math.max(1, capacity);
    this.#since = since;
    this.#budget = budget;
    budget?.register(this);
  }

  /** Every change with a resourceVersion greater than this is kept; a resume from before it gets 410. */
  get since(): number {
    return this.#since;
  }

  /** How many changes are kept. */
  get size(): number {
    return this.#events.length - this.#start;
  }

  /** The bytes the kept changes hold (see {@link changeBytes}). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The resourceVersion of the oldest kept change. */
  get oldestRv(): number | undefined {
    return this.#events[this.#start]?.rv;
  }

  /** Records a change (resourceVersions increase). */
  push(event: ChangeEvent): void {
    this.#events.push(event);
    const bytes = changeBytes(event);
    this.#bytes += bytes;
    this.#budget?.charge(bytes);
    if (this.size > this.#capacity) this.dropOldest();
    this.#budget?.enforce();
  }

  /** Forgets the oldest kept change: resumes from before it get 410. */
  dropOldest(): void {
    const dropped = this.#events[this.#start];
    if (dropped === undefined) return;
    this.#since = dropped.rv;
    const bytes = changeBytes(dropped);
    this.#bytes -= bytes;
    this.#budget?.charge(-bytes);
    this.#events[this.#start] = undefined as unknown as ChangeEvent;
    this.#start++;
    // Shift the array now and then rather than on every drop.
    if (this.#start >= this.#capacity || this.#start === this.#events.length) {
      this.#events = this.#events.slice(this.#start);
      this.#start = 0;
    }
  }

  /** Changes after `rv`, oldest first; `undefined` when some of them are no longer kept. */
  after(rv: number): ChangeEvent[] | undefined {
    if (rv < this.#since) return undefined;
    let lo = this.#start;
    let hi = this.#events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#events[mid] as ChangeEvent).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.#events.slice(lo);
  }

  /** Forgets everything: resumes from before `now` get 410. */
  forget(now: number): void {
    this.#budget?.charge(-this.#bytes);
    this.#bytes = 0;
    this.#events = [];
    this.#start = 0;
    this.#since = now;
  }

  /** Leaves the shared budget (the type is no longer served). */
  dispose(): void {
    this.#budget?.unregister(this, this.#bytes);
    this.#bytes = 0;
    this.#events = [];
    this.#start = 0;
  }
}
