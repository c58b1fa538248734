/** Temporary directories for tests, removed in one call from `after()`. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Creates temporary directories and removes all of them at once. */
export class TempDirs {
  private readonly dirs: string[] = [];

  /** A new empty directory under the OS temp dir, named `kubeloop-<prefix>-XXXXXX`. */
  async make(prefix: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), `kubeloop-${prefix}-`));
    this.dirs.push(dir);
    return dir;
  }

  /** Removes every directory made so far. */
  async removeAll(): Promise<void> {
    await Promise.all(this.dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  }
}
