import type { WalRecord } from './wal-record-codec.js';

/**
 * The bytes the live records of a log take: the last `put` of each key not deleted since, i.e.
 * about the size a compaction would shrink the file to. Compaction is triggered by comparing the
 * file with this, so that a log replayed at start (mostly superseded records) compacts as soon as
 * it holds twice its live data, not twice its own size.
 */
export class LiveBytes {
  readonly #byKey = new Map<string, number>();
  #total = 0;

  /** Accounts for one record (replayed or appended) of `bytes` encoded bytes. */
  add(record: WalRecord, bytes: number): void {
    const previous = this.#byKey.get(record.key) ?? 0;
    if (record.op === 'put') {
      this.#byKey.set(record.key, bytes);
      this.#total += bytes - previous;
    } else {
      this.#byKey.delete(record.key);
      this.#total -= previous;
    }
  }

  /** The live bytes. */
  get total(): number {
    return this.#total;
  }
}
