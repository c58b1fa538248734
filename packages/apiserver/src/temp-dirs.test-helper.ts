/**
 * Temporary directories for the API server's own tests, removed when the suite (or file) ends.
 * It registers a node:test hook, so it stays out of `testing/`, the public kit that imports no test runner.
 */
import { after } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Registers an `after` hook in the current suite (the file, at top level) that removes every
 * directory made; returns the function that makes one, named `<prefix><random>` in the OS temp dir.
 */
export function tempDirsForSuite(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  after(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
