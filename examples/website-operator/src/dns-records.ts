/**
 * The external system of the example: a DNS provider's records, kept as one JSON file per host name
 * in a directory. Kubernetes garbage-collects the Deployment and the Service a Website owns, but
 * nothing would ever remove its DNS record: that is what the finalizer is for.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One record: the host name, and the Website (by uid) and Service it points at. */
export interface DnsRecord {
  hostname: string;
  target: string;
  owner: string;
}

export class DnsRecords {
  constructor(readonly dir: string) {}

  private fileOf(hostname: string): string {
    return join(this.dir, `${hostname}.json`);
  }

  /** Creates or replaces the record of `hostname`. Atomic: a reader never sees half a file. */
  async upsert(record: DnsRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = this.fileOf(record.hostname);
    // One temporary name per record: a write cut by a crash is overwritten by the next one, or removed with the record.
    const tmp = `${file}.tmp`;
    await writeFile(tmp, `${JSON.stringify(record)}\n`);
    await rename(tmp, file);
  }

  /** Removes the record of `hostname` if `owner` owns it; a missing record is fine (a retried removal). */
  async remove(hostname: string, owner: string): Promise<void> {
    const current = await this.get(hostname);
    if (current !== undefined && current.owner !== owner) return;
    await rm(this.fileOf(hostname), { force: true });
    await rm(`${this.fileOf(hostname)}.tmp`, { force: true });
  }

  async get(hostname: string): Promise<DnsRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.fileOf(hostname), 'utf8')) as DnsRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Every record. */
  async list(): Promise<DnsRecord[]> {
    let files: string[];
    try {
      files = (await readdir(this.dir)).filter((f) => f.endsWith('.json'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const records = await Promise.all(files.map((f) => this.get(f.slice(0, -'.json'.length))));
    return records.filter((r): r is DnsRecord => r !== undefined);
  }
}
