/**
 * One byte budget shared by the watch histories of every resource type: when the changes they
 * keep carry more object JSON than `maxBytes`, the oldest changes (across all types, by
 * resourceVersion) are forgotten first, and a watch resuming from before them gets 410 Expired
 * and relists. Without it, 500 updates of a 1 MB ConfigMap keep 1 GB alive.
 */

/** What the budget needs from a history. */
export interface BudgetedHistory {
  /** The resourceVersion of its oldest kept change, or undefined when it keeps none. */
  readonly oldestRv: number | undefined;
  /** Forgets its oldest kept change (the history reports the freed bytes through {@link HistoryBudget.charge}). */
  dropOldest(): void;
}

/** The shared byte bound of watch histories. */
export class HistoryBudget {
  readonly maxBytes: number;
  #bytes = 0;
  readonly #histories = new Set<BudgetedHistory>();

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes currently kept by every history. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Adds a history to the budget. */
  register(history: BudgetedHistory): void {
    this.#histories.add(history);
  }

  /** Removes a history (its type is gone); `bytes` is what it still kept. */
  unregister(history: BudgetedHistory, bytes: number): void {
    this.#histories.delete(history);
    this.#bytes -= bytes;
  }

  /** Records bytes kept (positive) or freed (negative) by a history. */
  charge(bytes: number): void {
    this.#bytes += bytes;
  }

  /** Forgets the globally oldest changes until the kept bytes fit. O(types) per forgotten change. */
  enforce(): void {
    while (this.#bytes > this.maxBytes) {
      let oldest: BudgetedHistory | undefined;
      let oldestRv = Infinity;
      for (const history of this.#histories) {
        const rv = history.oldestRv;
        if (rv !== undefined && rv < oldestRv) {
          oldest = history;
          oldestRv = rv;
        }
      }
      if (oldest === undefined) return;
      oldest.dropOldest();
    }
  }
}
