/**
 * What opening a log finds in its file: the valid records, and a bad record's consequences. A torn
 * last record (a crash mid-append) is cut off; a bad record with intact records after it is damage:
 * {@link WalCorruptionError} unless `repair` is set, then it and all after it are cut off. Cut-off
 * bytes are saved beside the log for inspection.
 */
import { WalCorruptionError } from './wal-corruption-error.js';
import type { WalFileSystem } from './wal-file-system.js';
import { decodeRecords, findIntactRecordsAfter } from './wal-record-codec.js';
import type { WalCorruption, WalRecord } from './wal-record-codec.js';

/** A bad record found at open, and what was cut off because of it. */
export interface WalDamage extends WalCorruption {
  /**
   * `torn-tail`: nothing intact followed the bad record (a crash mid-append); `repaired`: intact
   * records followed it and were dropped because `repair` was set.
   */
  kind: 'torn-tail' | 'repaired';
  /** 0-based index of the bad record (how many valid records precede it). */
  recordIndex: number;
  /** Bytes cut off, from {@link WalCorruption.offset} to the end of the file. */
  droppedBytes: number;
  /** Intact records among them (0 for a torn tail). */
  droppedRecords: number;
  /** The highest resourceVersion among those intact records (0 when none): the server continues past it. */
  droppedMaxRv: number;
  /** Where the cut-off bytes were saved. */
  savedTo: string;
}

/** The log file as opening found (and, after a bad record, left) it. */
export interface RecoveredLog {
  /** Every valid record, in append order. */
  readonly records: WalRecord[];
  /** The encoded size of each record. */
  readonly recordBytes: readonly number[];
  /** Bytes of valid records: the file's size from now on. */
  readonly validLength: number;
  /** Set when a bad record was found and what followed it cut off. */
  readonly damage: WalDamage | undefined;
  /** The file did not exist (its directory entry still has to be synced). */
  readonly created: boolean;
}

/** Reads the log at `path` (absent: empty) and cuts off a torn or, with `repair`, damaged tail. */
export async function recoverLog(fs: WalFileSystem, path: string, repair: boolean): Promise<RecoveredLog> {
  let contents: Buffer;
  let created = false;
  try {
    contents = await fs.readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    contents = Buffer.alloc(0);
    created = true;
  }
  const { records, recordBytes, validLength, corruption } = decodeRecords(contents);
  if (corruption === undefined) return { records, recordBytes, validLength, damage: undefined, created };

  const intact = findIntactRecordsAfter(contents, corruption.offset);
  if (intact.count > 0 && !repair) {
    throw new WalCorruptionError({ path, offset: corruption.offset, recordIndex: records.length, reason: corruption.reason, intactRecordsAfter: intact.count });
  }
  const saved = `${path}.corrupt-${validLength}-${Date.now()}`;
  const damage: WalDamage = {
    ...corruption,
    kind: intact.count > 0 ? 'repaired' : 'torn-tail',
    recordIndex: records.length,
    droppedBytes: contents.length - validLength,
    droppedRecords: intact.count,
    droppedMaxRv: intact.maxRv,
    savedTo: saved,
  };
  await fs.writeFile(saved, contents.subarray(validLength));
  const truncating = await fs.open(path, 'r+');
  try {
    await truncating.truncate(validLength);
    await truncating.sync();
  } finally {
    await truncating.close();
  }
  return { records, recordBytes, validLength, damage, created };
}
