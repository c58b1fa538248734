/**
 * The file operations the write-ahead log uses, behind a small interface so that tests can make
 * the disk fail (ENOSPC on a write, EIO on an fsync) without filling a real disk. Production code
 * uses {@link nodeFileSystem}.
 */
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';

/** An open file: the subset of Node's `FileHandle` the log calls. */
export interface WalFile {
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/** The directory and file operations of the log. */
export interface WalFileSystem {
  /** Opens a file; `flags` as Node's (`'a'`, `'w'`, `'r'`, `'r+'`). */
  readonly open: (path: string, flags: string) => Promise<WalFile>;
  readonly readFile: (path: string) => Promise<Buffer>;
  readonly writeFile: (path: string, data: Buffer) => Promise<void>;
  readonly rename: (from: string, to: string) => Promise<void>;
  /** Removes a file; a missing one is not an error. */
  readonly removeFile: (path: string) => Promise<void>;
  /** Creates a directory and its parents; an existing one is not an error. */
  readonly makeDirectory: (path: string) => Promise<void>;
}

/** The real file system. */
export const nodeFileSystem: WalFileSystem = {
  open: (path, flags) => open(path, flags),
  readFile: (path) => readFile(path),
  writeFile: (path, data) => writeFile(path, data),
  rename: (from, to) => rename(from, to),
  removeFile: (path) => rm(path, { force: true }),
  makeDirectory: async (path) => {
    await mkdir(path, { recursive: true });
  },
};

/**
 * A short, path-free description of an I/O failure (`ENOSPC (write)`), for messages that reach
 * clients: Node's own messages name the file, and so the data directory.
 */
export function ioFailureSummary(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  if (e?.code !== undefined) return e.syscall !== undefined ? `${e.code} (${e.syscall})` : e.code;
  return 'I/O error';
}
