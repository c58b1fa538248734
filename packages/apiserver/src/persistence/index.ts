// Durability of the API server's data directory.
export { WriteAheadLog, WalError, walFileName } from './write-ahead-log.js';
export type { FsyncPolicy, WriteAheadLogOptions, WriteAheadLogOpenResult, WalRecord, WalCorruption } from './write-ahead-log.js';
export { encodeRecord, decodeRecords } from './wal-record-codec.js';
export { nodeFileSystem } from './wal-file-system.js';
export type { WalFile, WalFileSystem } from './wal-file-system.js';
