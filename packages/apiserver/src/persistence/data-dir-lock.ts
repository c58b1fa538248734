/**
 * An exclusive lock on a data directory, so that two servers never append to one log (they
 * would hand out the same resourceVersions and overwrite each other's compactions).
 *
 * The lock is the file `<dir>/lock` holding `pid`, `hostname` and a random token. It is created
 * atomically with its content (written to a temporary file, then hard-linked to the lock name,
 * which fails if the name exists), so no reader ever sees a half-written lock.
 *
 * A lock whose owner is gone is stale and is taken over: its process no longer exists on this
 * host, or it names this process but this process does not hold it (a restarted container that
 * got the same pid). Taking over renames the stale file aside first, so of two servers breaking
 * the same stale lock only one wins. A lock from another host is never assumed stale.
 *
 * Pure Node (no native module, no `flock`): it protects against a second kubeloop-apiserver, not
 * against other programs that ignore the lock file.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { KubeloopError } from '@kubeloop/resource';

/** File name of the lock inside the data directory. */
export const lockFileName = 'lock';

/** Another server holds the data directory. */
export class DataDirLockedError extends KubeloopError {
  /** The lock file. */
  readonly lockPath: string;
  /** The holder's pid (as written in the lock file; undefined when unreadable). */
  readonly pid: number | undefined;

  constructor(lockPath: string, owner: LockOwner | undefined) {
    const who = owner ? `pid ${owner.pid} on ${owner.hostname}` : 'an unknown process';
    super(
      'DataDirLockedError',
      `data directory is in use by another kubeloop-apiserver (${who}; lock file ${lockPath}): ` +
        'stop that server first, or delete the lock file if you are sure it is gone',
    );
    this.lockPath = lockPath;
    this.pid = owner?.pid;
  }
}

/**
 * The lock could not be written at all (a full disk, a read-only directory): a one-line message
 * naming the directory and the system's reason, not a stack. No temporary file is left behind.
 */
export class DataDirLockFailedError extends KubeloopError {
  /** The system error code (`ENOSPC`, `EROFS`, `EACCES`...). */
  readonly systemCode: string | undefined;

  constructor(dir: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const message = String((cause as Error)?.message ?? cause);
    // Node's errno messages are `CODE: description, syscall 'path'`: the description alone (the path is named already).
    const described = code !== undefined ? new RegExp(`^${code}: ([^,]+)`).exec(message)?.[1] : undefined;
    const reason = code === 'ENOSPC' ? 'no space left on device' : code === 'EROFS' ? 'read-only file system' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (described ?? message);
    super('DataDirLockFailedError', `cannot lock data directory ${dir}: ${reason}${code ? ` (${code})` : ''}`, { cause });
    this.systemCode = code;
  }
}

/** True for a {@link DataDirLockedError}, also from another copy of this package. */
export function isDataDirLockedError(err: unknown): err is DataDirLockedError {
  return err instanceof Error && (err as { code?: unknown }).code === 'DataDirLockedError';
}

interface LockOwner {
  pid: number;
  hostname: string;
  token: string;
}

// Directories locked by this process (realpaths): the pid in a lock file cannot tell two servers
// of one process apart.
const heldByThisProcess = new Set<string>();

function formatOwner(owner: LockOwner): string {
  return `${owner.pid}\n${owner.hostname}\n${owner.token}\n`;
}

function parseOwner(text: string): LockOwner | undefined {
  const [pid, host, token] = text.split('\n');
  if (!pid || !/^\d+$/.test(pid) || !host || !token) return undefined;
  return { pid: Number(pid), hostname: host, token };
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A killed process its parent has not reaped yet (a test harness that spawns without waiting) still
 * answers `kill(pid, 0)`, but it holds nothing. Linux: state `Z` in /proc/<pid>/stat, the field after
 * the command name (which may hold spaces and parentheses: read past the last ')'). Elsewhere: false.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'Z';
  } catch {
    return false;
  }
}

function isStale(owner: LockOwner | undefined): boolean {
  // Unreadable: not written by this code (the lock is created with its content), so no server holds it.
  if (owner === undefined) return true;
  if (owner.hostname !== hostname()) return false;
  if (owner.pid === process.pid) return true; // not in heldByThisProcess (checked before): left by an earlier life of this pid
  return !processExists(owner.pid);
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** How the lock writes its file: `node:fs/promises` (a test injects a disk that fails). */
export interface LockWrites {
  writeFile(path: string, content: string, options: { flag: 'wx' }): Promise<void>;
}

/** A held lock; {@link DataDirLock.release} it when the server stops. */
export class DataDirLock {
  #released = false;

  private constructor(
    private readonly key: string,
    /** The lock file. */
    readonly path: string,
    private readonly owner: LockOwner,
  ) {}

  /**
   * Takes the lock of `dir` (creating the directory if needed).
   *
   * @throws {@link DataDirLockedError} when another live server holds it.
   * @throws {@link DataDirLockFailedError} when the directory or the lock cannot be made.
   */
  static async acquire(dir: string, io: LockWrites = { writeFile }): Promise<DataDirLock> {
    let key: string;
    try {
      // A new data directory on a full disk, or a path through a file, fails here already.
      await mkdir(dir, { recursive: true });
      key = await realpath(dir);
    } catch (err) {
      throw new DataDirLockFailedError(dir, err);
    }
    const path = join(key, lockFileName);
    if (heldByThisProcess.has(key)) throw new DataDirLockedError(path, parseOwner((await readIfExists(path)) ?? ''));
    const owner: LockOwner = { pid: process.pid, hostname: hostname(), token: randomUUID() };
    const content = formatOwner(owner);
    const temporary = `${path}.${owner.token}`;
    try {
      await io.writeFile(temporary, content, { flag: 'wx' });
      // A few rounds: each either takes the lock, finds a live holder, or removes a stale one.
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          await link(temporary, path);
          heldByThisProcess.add(key);
          return new DataDirLock(key, path, owner);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const existing = await readIfExists(path);
        if (existing === undefined) continue;
        const holder = parseOwner(existing);
        if (!isStale(holder)) throw new DataDirLockedError(path, holder);
        await breakStaleLock(path, existing);
      }
      throw new DataDirLockedError(path, parseOwner((await readIfExists(path)) ?? ''));
    } catch (err) {
      if (err instanceof DataDirLockedError) throw err;
      throw new DataDirLockFailedError(key, err);
    } finally {
      // Also after a write that failed half-way (a full disk): the temporary file never stays.
      await rm(temporary, { force: true });
    }
  }

  /** Removes the lock file (if it is still ours). Idempotent. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    heldByThisProcess.delete(this.key);
    if (parseOwner((await readIfExists(this.path)) ?? '')?.token === this.owner.token) await rm(this.path, { force: true });
  }
}

// Moves the stale file aside (one rename wins); if what was moved is not the stale content seen
// (another server took the lock in between), it is put back.
async function breakStaleLock(path: string, staleContent: string): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if ((await readFile(aside, 'utf8')) !== staleContent) await link(aside, path).catch(() => undefined);
  } finally {
    await rm(aside, { force: true });
  }
}
