/**
 * The API server's write-ahead log: every acknowledged write is appended here before the client
 * gets its answer, and the log is replayed when the server starts on the same data directory.
 *
 * Flow: {@link WriteAheadLog.open} replays `wal.log` (a torn last record, which a crash mid-append
 * leaves, is reported and cut off; a bad record with intact records after it is damage, and
 * open fails with {@link WalCorruptionError} unless `repair` is set) -> the server appends one record per write ->
 * when {@link WriteAheadLog.needsCompaction} says so, the server passes a snapshot of its live
 * objects to {@link WriteAheadLog.compact}, which replaces the file atomically.
 *
 * Durability ({@link FsyncPolicy}), what a resolved {@link WriteAheadLog.append} guarantees:
 * - `always`: the record is on stable storage (fdatasync) — survives a process crash and a power
 *   loss. Appends that arrive while an fsync runs are written and synced together afterwards
 *   (group commit), so concurrent writers share fsyncs.
 * - `batch`: the record is in the operating system (write(2) returned) — survives a process crash;
 *   an fsync follows within 10 ms, so a power loss can lose at most the last ~10 ms of writes.
 * - `never`: the record is in the operating system — survives a process crash; the OS flushes
 *   when it likes (fsync only on compaction and close).
 *
 * Guarantees: records replay in append order; a record is either replayed whole or not at all;
 * a failed append is rolled back (file truncated to the last good record) and rejected, so it is
 * not replayed after a restart; if even the rollback fails, the log accepts no more writes (and
 * that one append may replay). A failed compaction leaves the old file, and appends, intact; it is
 * retried once the file has grown by another quarter of the threshold (at least 1 MiB).
 * Error messages name the failed system call and errno, never the directory.
 * Caveats: one process per directory (the server takes a lock, see `data-dir-lock.ts`); bytes
 * cut off at open (a torn tail, or what `repair` drops) are saved beside the log for inspection.
 */
import { join } from 'node:path';
import { KubeloopError } from '@kubeloop/resource';
import { LiveBytes } from './live-bytes.js';
import { encodeRecord } from './wal-record-codec.js';
import { ioFailureSummary, nodeFileSystem } from './wal-file-system.js';
import type { WalFile, WalFileSystem } from './wal-file-system.js';
import type { WalRecord } from './wal-record-codec.js';
import { recoverLog } from './wal-recovery.js';
import type { WalDamage } from './wal-recovery.js';

export type { WalRecord, WalCorruption } from './wal-record-codec.js';
export type { WalDamage } from './wal-recovery.js';

/** When appends reach stable storage; see the module documentation. */
export type FsyncPolicy = 'always' | 'batch' | 'never';

/** Options of {@link WriteAheadLog.open}. */
export interface WriteAheadLogOptions {
  /** Durability of each append (see {@link FsyncPolicy}). No default: the caller chooses. */
  fsync: FsyncPolicy;
  /**
   * {@link WriteAheadLog.needsCompaction} turns true once the file is this large and at least twice
   * the size of its live records (the last put of each key not deleted since: what a compaction
   * keeps), so that a large live set does not compact in a loop. Default: 64 MiB.
   */
  compactAfterBytes?: number;
  /** The file operations to use (tests inject failures here). Default: the real file system. */
  fs?: WalFileSystem;
  /**
   * When a bad record has intact records after it: keep the records before it and drop the rest
   * (reported in {@link WriteAheadLogOpenResult.corruption}) instead of failing with
   * {@link WalCorruptionError}. Default: false.
   */
  repair?: boolean;
}

/** What {@link WriteAheadLog.open} found. */
export interface WriteAheadLogOpenResult {
  /** The log, ready for appends after the valid records. */
  log: WriteAheadLog;
  /** Every valid record, in append order. */
  records: WalRecord[];
  /** Set when a torn tail was cut off or a damaged file repaired; the file was cut back to `offset`. */
  corruption?: WalDamage;
}

/** A failure of the write-ahead log itself (closed, or broken by an I/O error). */
export class WalError extends KubeloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('WalError', message, options);
  }
}

/** File name of the log inside its directory. */
export const walFileName = 'wal.log';
const compactingSuffix = '.compacting';
const batchSyncIntervalMs = 10;
const defaultCompactAfterBytes = 64 * 1024 * 1024;
const compactChunkBytes = 1024 * 1024;
const compactRetryGrowthBytes = 1024 * 1024;

type Operation =
  | { kind: 'append'; data: Buffer; resolve: () => void; reject: (err: unknown) => void }
  | { kind: 'compact'; snapshot: readonly WalRecord[]; resolve: () => void; reject: (err: unknown) => void }
  | { kind: 'sync'; resolve: () => void; reject: (err: unknown) => void }
  | { kind: 'close'; resolve: () => void; reject: (err: unknown) => void };

async function writeFully(handle: WalFile, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

async function syncDirectory(fs: WalFileSystem, dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** An append-only, checksummed, compactable log of writes. Create with {@link WriteAheadLog.open}. */
export class WriteAheadLog {
  private readonly ops: Operation[] = [];
  private draining = false;
  private dirty = false;
  private syncTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private failure: unknown;
  private compactionQueued = false;
  /** After a failed compaction, the size at which to try again (the disk may be full: not on every write). */
  private retryCompactionAtSize = 0;
  private readonly counters = { appends: 0, writes: 0, fsyncs: 0, compactions: 0 };
  private live = new LiveBytes();

  private readonly fs: WalFileSystem;
  private readonly dir: string;
  private handle: WalFile;
  /** Bytes in the file, all of them whole records. */
  private size: number;
  private readonly policy: FsyncPolicy;
  private readonly compactAfterBytes: number;

  private constructor(opened: { fs: WalFileSystem; dir: string; handle: WalFile; size: number; policy: FsyncPolicy; compactAfterBytes: number }) {
    this.fs = opened.fs;
    this.dir = opened.dir;
    this.handle = opened.handle;
    this.size = opened.size;
    this.policy = opened.policy;
    this.compactAfterBytes = opened.compactAfterBytes;
  }

  /**
   * Opens (creating if needed) the log in `dir`, replays it and cuts off a torn or corrupt tail.
   *
   * @throws {@link WalError} for invalid options; I/O errors as they come.
   */
  static async open(dir: string, options: WriteAheadLogOptions): Promise<WriteAheadLogOpenResult> {
    if (options.fsync !== 'always' && options.fsync !== 'batch' && options.fsync !== 'never') {
      throw new WalError(`fsync must be 'always', 'batch' or 'never', got ${JSON.stringify(options.fsync)}`);
    }
    const compactAfterBytes = options.compactAfterBytes ?? defaultCompactAfterBytes;
    if (!Number.isFinite(compactAfterBytes) || compactAfterBytes <= 0) throw new WalError('compactAfterBytes must be a positive number');

    const fs = options.fs ?? nodeFileSystem;
    await fs.makeDirectory(dir);
    const path = join(dir, walFileName);
    // A compaction that crashed before its rename left only a temporary file: the log is intact.
    await fs.removeFile(path + compactingSuffix);

    const { records, recordBytes, validLength, damage, created } = await recoverLog(fs, path, options.repair === true);
    const handle = await fs.open(path, 'a');
    if (created) await syncDirectory(fs, dir);
    const log = new WriteAheadLog({ fs, dir, handle, size: validLength, policy: options.fsync, compactAfterBytes });
    records.forEach((record, i) => log.live.add(record, recordBytes[i] ?? 0));
    const result: WriteAheadLogOpenResult = { log, records };
    if (damage !== undefined) result.corruption = damage;
    return result;
  }

  /**
   * Counters since open: records appended, write(2) batches, fsyncs and compactions. With
   * `fsync: 'always'`, `fsyncs` well below `appends` shows group commit at work.
   */
  get stats(): { appends: number; writes: number; fsyncs: number; compactions: number } {
    return { ...this.counters };
  }

  /** Size of the log file in bytes, including appends not yet synced. */
  get sizeBytes(): number {
    return this.size;
  }

  /**
   * Appends a record. Resolves once it is as durable as the {@link FsyncPolicy} promises;
   * appends resolve in call order. Rejects with {@link WalError} after {@link close} or an I/O failure.
   */
  append(record: WalRecord): Promise<void> {
    const data = encodeRecord(record);
    return this.enqueue((resolve, reject) => ({ kind: 'append', data, resolve, reject })).then(() => this.live.add(record, data.length));
  }

  /** True when the file has grown enough that the server should call {@link compact}. */
  needsCompaction(): boolean {
    if (this.compactionQueued || this.failure !== undefined || this.closed) return false;
    return this.size >= Math.max(this.compactAfterBytes, 2 * this.live.total, this.retryCompactionAtSize);
  }

  /**
   * Replaces the log with `snapshot` (the live objects): writes a new file, fsyncs it, renames it
   * over the old one and fsyncs the directory. Appends made before this call are written to the old
   * file first (the snapshot must already contain them); appends made after it go to the new file.
   */
  compact(snapshot: readonly WalRecord[]): Promise<void> {
    this.compactionQueued = true;
    return this.enqueue((resolve, reject) => ({ kind: 'compact', snapshot, resolve, reject })).then(
      () => {
        this.compactionQueued = false;
      },
      (err: unknown) => {
        this.compactionQueued = false;
        this.retryCompactionAtSize = this.size + Math.max(compactRetryGrowthBytes, this.compactAfterBytes / 4);
        throw err;
      },
    );
  }

  /** Writes and syncs pending appends, then closes the file. Later appends reject. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.enqueue((resolve, reject) => ({ kind: 'close', resolve, reject }));
  }

  private enqueue(make: (resolve: () => void, reject: (err: unknown) => void) => Operation): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closed) {
        reject(new WalError('write-ahead log is closed'));
        return;
      }
      const op = make(resolve, reject);
      // A failed log still closes its file.
      if (this.failure !== undefined && op.kind !== 'close') {
        reject(new WalError('write-ahead log failed earlier and accepts no more writes', { cause: this.failure }));
        return;
      }
      this.ops.push(op);
      if (op.kind === 'close') this.closed = true;
      this.kick();
    });
  }

  private kick(): void {
    if (this.draining) return;
    this.draining = true;
    this.drain()
      .catch((err: unknown) => {
        // Not expected (every operation handles its own errors), but never leave callers hanging.
        this.failure ??= err;
        for (const op of this.ops.splice(0)) op.reject(new WalError('write-ahead log failed', { cause: err }));
      })
      .finally(() => {
        this.draining = false;
        if (this.ops.length > 0) this.kick();
      });
  }

  // The single writer: takes every queued append at once (group commit), or one other operation.
  private async drain(): Promise<void> {
    while (this.ops.length > 0) {
      const first = this.ops[0]!;
      if (first.kind === 'append') {
        let n = 1;
        while (n < this.ops.length && this.ops[n]!.kind === 'append') n++;
        const batch = this.ops.splice(0, n) as Extract<Operation, { kind: 'append' }>[];
        await this.writeBatch(batch);
        continue;
      }
      this.ops.shift();
      try {
        if (first.kind === 'compact') await this.doCompact(first.snapshot);
        else if (first.kind === 'sync') await this.syncIfDirty();
        else await this.doClose();
        first.resolve();
      } catch (err) {
        first.reject(err);
      }
    }
  }

  private async writeBatch(batch: Extract<Operation, { kind: 'append' }>[]): Promise<void> {
    if (this.failure !== undefined) {
      for (const op of batch) op.reject(new WalError('write-ahead log failed earlier and accepts no more writes', { cause: this.failure }));
      return;
    }
    const data = batch.length === 1 ? batch[0]!.data : Buffer.concat(batch.map((op) => op.data));
    const start = this.size;
    try {
      await writeFully(this.handle, data);
      this.counters.writes++;
      this.counters.appends += batch.length;
      this.size += data.length;
      this.dirty = true;
      if (this.policy === 'always') await this.syncIfDirty();
      else if (this.policy === 'batch') this.scheduleSync();
    } catch (err) {
      // Whether the write or its fsync failed, the batch is answered with an error: cut it off.
      this.size = start;
      await this.rollBack(err);
      for (const op of batch) op.reject(new WalError(`write-ahead log append failed: ${ioFailureSummary(err)}`, { cause: err }));
      return;
    }
    for (const op of batch) op.resolve();
  }

  // Cuts a failed batch off (so that it does not replay and the records after it stay replayable);
  // if even that fails, the log refuses further writes rather than risk acknowledging unreadable ones.
  private async rollBack(err: unknown): Promise<void> {
    try {
      await this.handle.truncate(this.size);
      await this.handle.datasync();
    } catch {
      this.failure = err;
    }
  }

  private scheduleSync(): void {
    if (this.syncTimer !== undefined) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      if (this.closed || this.failure !== undefined) return;
      this.ops.push({ kind: 'sync', resolve: () => undefined, reject: () => undefined });
      this.kick();
    }, batchSyncIntervalMs);
    this.syncTimer.unref();
  }

  private async syncIfDirty(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    try {
      await this.handle.datasync();
      this.counters.fsyncs++;
    } catch (err) {
      this.dirty = true;
      throw err;
    }
  }

  private async doCompact(snapshot: readonly WalRecord[]): Promise<void> {
    if (this.failure !== undefined) throw new WalError('write-ahead log failed earlier; cannot compact', { cause: this.failure });
    const path = join(this.dir, walFileName);
    const temporary = path + compactingSuffix;
    let written = 0;
    const live = new LiveBytes();
    const out = await this.fs.open(temporary, 'w');
    try {
      let chunk: Buffer[] = [];
      let chunkBytes = 0;
      for (const record of snapshot) {
        const line = encodeRecord(record);
        live.add(record, line.length);
        chunk.push(line);
        chunkBytes += line.length;
        if (chunkBytes >= compactChunkBytes) {
          await writeFully(out, Buffer.concat(chunk));
          written += chunkBytes;
          chunk = [];
          chunkBytes = 0;
        }
      }
      if (chunkBytes > 0) await writeFully(out, Buffer.concat(chunk));
      written += chunkBytes;
      await out.sync();
    } catch (err) {
      await out.close().catch(() => undefined);
      await this.fs.removeFile(temporary).catch(() => undefined);
      throw new WalError(`write-ahead log compaction failed: ${ioFailureSummary(err)}`, { cause: err });
    }
    await out.close();
    try {
      await this.fs.rename(temporary, path);
    } catch (err) {
      await this.fs.removeFile(temporary).catch(() => undefined);
      throw new WalError(`write-ahead log compaction failed: ${ioFailureSummary(err)}`, { cause: err });
    }
    try {
      await syncDirectory(this.fs, this.dir);
      const previous = this.handle;
      this.handle = await this.fs.open(path, 'a');
      await previous.close();
    } catch (err) {
      // The new file is in place but we may not be able to write to it: stop accepting writes.
      this.failure = err;
      throw new WalError(`write-ahead log compaction failed after the new file was in place: ${ioFailureSummary(err)}`, { cause: err });
    }
    this.size = written;
    // Appends queued before the snapshot are in it; later ones add themselves after this.
    this.live = live;
    this.counters.compactions++;
    this.dirty = false;
  }

  private async doClose(): Promise<void> {
    if (this.syncTimer !== undefined) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    try {
      if (this.failure === undefined) await this.syncIfDirty();
    } finally {
      await this.handle.close();
    }
  }
}
