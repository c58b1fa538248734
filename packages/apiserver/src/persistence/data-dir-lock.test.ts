import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DataDirLock, DataDirLockFailedError, isDataDirLockedError, lockFileName } from './data-dir-lock.js';
import { tempDirsForSuite } from '../temp-dirs.test-helper.js';
import { waitFor } from '../testing/test-client.js';

const tempDir = tempDirsForSuite('kubeloop-lock-');

/** A process that exists until it is killed; resolves its pid and a function that ends it. */
async function otherProcess(): Promise<{ pid: number; end: () => Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    pid: child.pid as number,
    end: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('DataDirLock', () => {
  test('a second lock of the same directory in this process is refused until the first is released', async () => {
    const dir = await tempDir();
    const first = await DataDirLock.acquire(dir);
    await assert.rejects(DataDirLock.acquire(dir), (err: unknown) => {
      assert.ok(isDataDirLockedError(err));
      assert.equal(err.pid, process.pid);
      assert.match(err.message, new RegExp(`in use by another kubeloop-apiserver \\(pid ${process.pid} on `));
      return true;
    });
    await first.release();
    const second = await DataDirLock.acquire(dir);
    await second.release();
    assert.deepEqual(await readdir(dir), [], 'release removes the lock file and nothing is left behind');
  });

  test('a lock held by another live process on this host is refused, and taken over once that process is gone', async () => {
    const dir = await tempDir();
    const other = await otherProcess();
    await writeFile(join(dir, lockFileName), `${other.pid}\n${hostname()}\nsome-token\n`);
    try {
      await assert.rejects(DataDirLock.acquire(dir), (err: unknown) => isDataDirLockedError(err) && err.pid === other.pid);
    } finally {
      await other.end();
    }
    const lock = await DataDirLock.acquire(dir);
    assert.match(await readFile(join(dir, lockFileName), 'utf8'), new RegExp(`^${process.pid}\\n`));
    await lock.release();
  });

  test('a lock held by a zombie (killed, not yet reaped by its parent) is taken over: it holds nothing', async () => {
    const dir = await tempDir();
    // The child exits at once; its parent (perl, in every Debian: perl-base is essential) never waits for it.
    // A shell parent could reap it before exec'ing into its sleep, under load (seen in CI: ENOENT on /proc/<pid>/stat).
    const parent = spawn('perl', ['-e', '$| = 1; my $child = fork(); if ($child == 0) { exit 0 } print "$child\n"; sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
      await waitFor(async () => (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.startsWith('Z'), { message: `process ${pid} to be a zombie` });
      await writeFile(join(dir, lockFileName), `${pid}\n${hostname()}\nsome-token\n`);
      const lock = await DataDirLock.acquire(dir);
      assert.match(await readFile(join(dir, lockFileName), 'utf8'), new RegExp(`^${process.pid}\\n`));
      await lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  test('a stale lock naming this very pid (a restarted container) or holding garbage is taken over', async () => {
    for (const stale of [`${process.pid}\n${hostname()}\nold-token\n`, '']) {
      const dir = await tempDir();
      await writeFile(join(dir, lockFileName), stale);
      const lock = await DataDirLock.acquire(dir);
      await lock.release();
    }
  });

  test('a lock written on another host is never assumed stale', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, lockFileName), `1\nsome-other-host.example\ntoken\n`);
    await assert.rejects(DataDirLock.acquire(dir), (err: unknown) => isDataDirLockedError(err) && /pid 1 on some-other-host\.example/.test(err.message));
  });

  test('release leaves a lock file that is no longer its own alone', async () => {
    const dir = await tempDir();
    const lock = await DataDirLock.acquire(dir);
    const foreign = `1\nsome-other-host.example\ntoken\n`;
    await writeFile(join(dir, lockFileName), foreign);
    await lock.release();
    assert.equal(await readFile(join(dir, lockFileName), 'utf8'), foreign);
  });

  test('a full disk while writing the lock is a one-line typed error, and no temporary file is left', async () => {
    const dir = await tempDir();
    // A disk that fills up half-way through the write: the file is created, then the write fails.
    const fullDisk = {
      async writeFile(path: string, content: string, options: { flag: 'wx' }): Promise<void> {
        await writeFile(path, content.slice(0, 3), options);
        throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC' });
      },
    };
    await assert.rejects(DataDirLock.acquire(dir, fullDisk), (err: unknown) => {
      assert.ok(err instanceof DataDirLockFailedError);
      assert.equal(err.systemCode, 'ENOSPC');
      assert.match(err.message, /^cannot lock data directory \/.*: no space left on device \(ENOSPC\)$/);
      return true;
    });
    assert.deepEqual(await readdir(dir), [], 'no lock and no lock.<uuid> left behind');
    // With space again, the lock is taken.
    const lock = await DataDirLock.acquire(dir);
    await lock.release();
  });

  test('a data directory that cannot be created (a path through a file) is the same one-line typed error', async () => {
    const file = join(await tempDir(), 'a-file');
    await writeFile(file, '');
    await assert.rejects(DataDirLock.acquire(join(file, 'data')), (err: unknown) => {
      assert.ok(err instanceof DataDirLockFailedError, `expected a DataDirLockFailedError, got ${String(err)}`);
      assert.equal(err.systemCode, 'ENOTDIR');
      assert.equal(err.message.split('\n').length, 1, err.message);
      assert.match(err.message, /^cannot lock data directory \/.*\/a-file\/data: not a directory \(ENOTDIR\)$/);
      return true;
    });
  });
});
