/**
 * The load of the sharded fleet test: a population of ConfigMaps changed at a fixed rate (updates,
 * and deletes each followed by a create, so the population stays constant), picked by a seeded
 * random source so that a failing run can be replayed. It records what the invariants need: every
 * create and update with the version it wrote (`data.version`, counting up per object), and every
 * real delete. The operator's finalizer holds a deleted object until its cleanup ran; the writer
 * never touches an object after deleting it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Prng } from '@kubeloop/apiserver/testing';
import type { Client, ConfigMap } from '@kubeloop/resource';
import type { FinalObject, WriterChange, WriterDelete, WriterHistory } from './invariants.js';
import { versionOf } from './object-version.js';

/** Options of {@link SteadyWriter}. */
export interface SteadyWriterOptions {
  client: Client<ConfigMap>;
  namespace: string;
  /** Objects created by {@link populate}, and kept alive. */
  count: number;
  /** Changes per second of {@link run}. */
  ratePerSecond: number;
  /** Share of the changes that are deletes (each followed by a create), in [0, 1]. Default: 0.1. */
  deleteShare?: number;
  /** Seed of the random picks. Default: 1. */
  seed?: number;
  /** Objects created at the same time by {@link populate}. Default: 16. */
  createConcurrency?: number;
}

/** A live object as the writer knows it. */
interface Written {
  name: string;
  uid: string;
  version: number;
}

/** Changes ConfigMaps at a fixed rate and records what it did; see the file comment. */
export class SteadyWriter {
  private readonly changes: WriterChange[] = [];
  private readonly deletes: WriterDelete[] = [];
  private readonly live: Written[] = [];
  private created = 0;
  private readonly random: Prng;

  constructor(private readonly options: SteadyWriterOptions) {
    this.random = new Prng(options.seed ?? 1);
  }

  /** When {@link populate} finished (0 before). */
  populatedAt = 0;

  /** Changes made so far (creates and updates), and deletes. */
  get writes(): number {
    return this.changes.length + this.deletes.length;
  }

  /** Creates the population. */
  async populate(): Promise<void> {
    const concurrency = this.options.createConcurrency ?? 16;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < this.options.count) {
        next++;
        await this.create();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    this.populatedAt = Date.now();
  }

  /** Changes objects at the fixed rate until `signal` aborts (the change in progress completes). */
  async run(signal: AbortSignal): Promise<void> {
    const intervalMs = 1000 / this.options.ratePerSecond;
    const startedAt = Date.now();
    for (let i = 0; !signal.aborted; i++) {
      const due = startedAt + i * intervalMs;
      // Pacing real writes, not waiting for a retry: behind schedule, the next change goes at once.
      if (due > Date.now()) await sleep(due - Date.now(), undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      if (this.random.chance(this.options.deleteShare ?? 0.1)) {
        await this.deleteOne();
        await this.create();
      } else await this.updateOne();
    }
  }

  /**
   * What the writer did, and `final`: the objects on the server now (call once the fleet is quiet;
   * an object still being deleted is left out: its cleanup is checked through the deletes).
   */
  async history(): Promise<WriterHistory> {
    const items = (await this.options.client.listAll(this.options.namespace)).items;
    const final: FinalObject[] = items
      .filter((o) => o.metadata.deletionTimestamp === undefined)
      .map((o) => ({ uid: o.metadata.uid ?? '', object: `${this.options.namespace}/${o.metadata.name}`, version: versionOf(o) }));
    return { changes: [...this.changes], deletes: [...this.deletes], final };
  }

  /** Objects on the server still being deleted (their cleanup has not run yet). */
  async deleting(): Promise<number> {
    return (await this.options.client.listAll(this.options.namespace)).items.filter((o) => o.metadata.deletionTimestamp !== undefined).length;
  }

  private async create(): Promise<void> {
    const name = `obj-${++this.created}`;
    const at = Date.now();
    const made = await this.options.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: this.options.namespace }, data: { version: '1' } });
    const uid = made.metadata.uid ?? '';
    this.live.push({ name, uid, version: 1 });
    this.changes.push({ uid, object: this.key(name), version: 1, at });
  }

  private async updateOne(): Promise<void> {
    const object = this.pick();
    if (object === undefined) return;
    const version = object.version + 1;
    const at = Date.now();
    await this.options.client.patch({ namespace: this.options.namespace, name: object.name }, { merge: { data: { version: String(version) } } });
    object.version = version;
    this.changes.push({ uid: object.uid, object: this.key(object.name), version, at });
  }

  private async deleteOne(): Promise<void> {
    const object = this.pick();
    if (object === undefined) return;
    this.live.splice(this.live.indexOf(object), 1);
    const at = Date.now();
    const left = await this.options.client.delete({ namespace: this.options.namespace, name: object.name });
    this.deletes.push({ uid: object.uid, object: this.key(object.name), at, held: left?.metadata.deletionTimestamp !== undefined && (left.metadata.finalizers?.length ?? 0) > 0 });
  }

  private pick(): Written | undefined {
    return this.live.length === 0 ? undefined : this.live[this.random.int(0, this.live.length - 1)];
  }

  private key(name: string): string {
    return `${this.options.namespace}/${name}`;
  }
}
