// Durability of the API server's data directory.
export { WriteAheadLog, WalError, walFileName } from './write-ahead-log.js';
export type { FsyncPolicy, WriteAheadLogOptions, WriteAheadLogOpenResult, WalRecord, WalCorruption, WalDamage } from './write-ahead-log.js';
export { WalCorruptionError, isWalCorruptionError } from './wal-corruption-error.js';
export { encodeRecord, decodeRecords, findIntactRecordsAfter } from './wal-record-codec.js';
export type { IntactTail } from './wal-record-codec.js';
export { nodeFileSystem } from './wal-file-system.js';
export type { WalFile, WalFileSystem } from './wal-file-system.js';
export { DataDirLock, DataDirLockFailedError, DataDirLockedError, isDataDirLockedError, lockFileName } from './data-dir-lock.js';
