/**
 * The "external system" of the demo: a catalogue of published playlists kept as one JSON file per
 * playlist in a directory, outside Kubernetes. Kubernetes garbage-collects the ConfigMap a
 * Playlist owns, but nothing would ever remove its catalogue entry: that is what the finalizer is
 * for. (In a real operator this would be a DNS record, a bucket, a row in someone's database.)
 */
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Identifier } from '@kubeloop/resource';
import type { Playlist } from './playlist.js';

/** What the catalogue stores about a playlist. */
export interface CatalogueEntry {
  namespace: string;
  name: string;
  uid: string;
  title: string;
  interval: string;
  items: number;
  generation: number;
}

/** A directory of `<namespace>.<name>.json` files. */
export class PlaylistCatalogue {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The file of one playlist (namespaces and names are DNS labels/subdomains: no `/`, no `..`). */
  fileOf(id: Identifier): string {
    return join(this.dir, `${id.namespace}.${id.name}.json`);
  }

  /** Creates or replaces the entry of a playlist. Atomic: readers never see half a file. */
  async publish(playlist: Playlist): Promise<CatalogueEntry> {
    const spec = playlist.spec;
    const entry: CatalogueEntry = {
      namespace: playlist.metadata.namespace ?? '',
      name: playlist.metadata.name,
      uid: playlist.metadata.uid ?? '',
      title: spec?.title ?? '',
      interval: spec?.interval ?? '',
      items: spec?.items.length ?? 0,
      generation: playlist.metadata.generation ?? 0,
    };
    await mkdir(this.dir, { recursive: true });
    const file = this.fileOf(entry);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(entry, null, 2)}\n`);
    await rename(tmp, file);
    return entry;
  }

  /**
   * Removes the temporary files of writes that never finished (`<entry>.<pid>.tmp`, left when a process
   * was killed between its write and its rename): nothing of the external side effect may leak. Files
   * of a process still alive (another replica sharing the directory, mid-write) stay. Returns how many went.
   */
  async sweepUnfinishedWrites(): Promise<number> {
    let swept = 0;
    for (const file of await this.files()) {
      const pid = /\.(\d+)\.tmp$/.exec(file)?.[1];
      if (pid === undefined || (Number(pid) !== process.pid && (await isAlive(Number(pid))))) continue;
      await rm(join(this.dir, file), { force: true });
      swept++;
    }
    return swept;
  }

  /** Removes the entry of a playlist; a missing entry is fine (the removal may be a retry). */
  async withdraw(id: Identifier): Promise<void> {
    await rm(this.fileOf(id), { force: true });
  }

  /** The `namespace.name` of every entry. */
  async list(): Promise<string[]> {
    return (await this.files()).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  }

  private async files(): Promise<string[]> {
    try {
      return await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }
}

/** Whether `pid` runs: it exists and, on Linux, is not a zombie (killed, its parent has not reaped it yet). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; comm may hold spaces and parentheses, the state follows the last ')'.
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): kill(0) said it exists
  }
}
