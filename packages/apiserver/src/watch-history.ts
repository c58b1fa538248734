/**
 * The recent changes of one resource type, kept so that a watch can resume from a
 * resourceVersion. Bounded: the oldest changes are forgotten first, and a resume from before
 * what is kept is answered with 410 Expired (the client relists).
 */
import type { ChangeEvent } from './change-event.js';

/** The kept changes of one resource type, oldest first. */
export class WatchHistory {
  readonly #capacity: number;
  #events: ChangeEvent[] = [];
  #start = 0;
  /** Every change after this resourceVersion is kept. */
  #since: number;

  /**
   * @param capacity how many changes to keep.
   * @param since the resourceVersion from which this type's changes are complete (its creation).
   */
  constructor(capacity: number, since: number) {
    this.#capacity = Math.max(1, capacity);
    this.#since = since;
  }

  /** Every change with a resourceVersion greater than this is kept; a resume from before it gets 410. */
  get since(): number {
    return this.#since;
  }

  /** How many changes are kept. */
  get size(): number {
    return this.#events.length - this.#start;
  }

  /** Records a change (resourceVersions increase). */
  push(event: ChangeEvent): void {
    this.#events.push(event);
    if (this.#events.length - this.#start > this.#capacity) {
      const dropped = this.#events[this.#start];
      if (dropped) this.#since = dropped.rv;
      this.#events[this.#start] = undefined as unknown as ChangeEvent;
      this.#start++;
      // Shift the array now and then rather than on every push.
      if (this.#start >= this.#capacity) {
        this.#events = this.#events.slice(this.#start);
        this.#start = 0;
      }
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
    this.#events = [];
    this.#start = 0;
    this.#since = now;
  }
}
