import { KubeloopError } from '@kubeloop/resource';

/**
 * The write-ahead log has a bad record with intact records after it: not a torn tail (which a
 * crash mid-append leaves, and which is cut off), but damage in the middle of the file. Starting
 * would silently lose the records after it and reuse their resourceVersions, so the server refuses
 * to start, as etcd does; `repair` (`--repair`) keeps the valid prefix and drops the rest.
 */
export class WalCorruptionError extends KubeloopError {
  /** The log file. */
  readonly path: string;
  /** Byte offset of the bad record. */
  readonly offset: number;
  /** 0-based index of the bad record (how many valid records precede it). */
  readonly recordIndex: number;
  /** What is wrong with it, e.g. `checksum mismatch`. */
  readonly reason: string;
  /** How many intact records follow it. */
  readonly intactRecordsAfter: number;

  constructor(details: { path: string; offset: number; recordIndex: number; reason: string; intactRecordsAfter: number }) {
    super(
      'WalCorruptionError',
      `write-ahead log ${details.path} is corrupt at byte ${details.offset} (record ${details.recordIndex + 1}: ${details.reason}) ` +
        `and ${details.intactRecordsAfter} intact records follow it; refusing to start rather than drop them. ` +
        `Restore the file from a backup, or start with --repair (option repair: true) to keep the ${details.recordIndex} records ` +
        `before byte ${details.offset} and drop everything from there on (saved beside the log).`,
    );
    this.path = details.path;
    this.offset = details.offset;
    this.recordIndex = details.recordIndex;
    this.reason = details.reason;
    this.intactRecordsAfter = details.intactRecordsAfter;
  }
}

/** True for a {@link WalCorruptionError}, also from another copy of this package. */
export function isWalCorruptionError(err: unknown): err is WalCorruptionError {
  return err instanceof Error && (err as { code?: unknown }).code === 'WalCorruptionError';
}
