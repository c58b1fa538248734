/**
 * Files only their owner may read: a kubeconfig carries the server's bearer token, so it is written
 * with mode 0600, and an existing file with looser permissions is narrowed first (a `mode` given to
 * `writeFile` applies only when it creates the file).
 */
import { chmod, writeFile } from 'node:fs/promises';

/** Writes `text` to `path` readable and writable by its owner only. */
export async function writeOwnerOnly(path: string, text: string): Promise<void> {
  await chmod(path, 0o600).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  await writeFile(path, text, { encoding: 'utf8', mode: 0o600 });
}
