/**
 * An informer for the slots of a ring this replica runs (see `shard-ring.ts`): one list and watch
 * per slot, each with the slot's KEP-5866 `shardSelector` (filtered on the client when the server
 * ignores it), fanned into the handlers as one informer. Taking a slot lists only that slot's
 * objects; giving one up stops its watch and tells handlers `release` for each of its objects: the
 * object moved to another replica, which is not a delete (no cleanup must run for it).
 */
import type { KubeObject, Schema, ShardRange } from '@kubeloop/resource';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';
import type { Informer, ReadonlyStore } from '../informer/informer.js';
import { KubernetesBasedInformer } from '../informer/kubernetes-based-informer.js';
import type { KubernetesBasedInformerOptions } from '../informer/kubernetes-based-informer.js';
import type { ListWatchClient } from '../informer/list-watch-client.js';
import { consoleLogger } from '../observability/logger.js';
import type { Logger } from '../observability/logger.js';

/** Options of {@link ShardedInformer}: those of each slot's `KubernetesBasedInformer`, but its `shard` (set per slot). */
export type ShardedInformerOptions<T extends KubeObject = KubeObject> = Omit<KubernetesBasedInformerOptions<T>, 'shard'>;

interface RunningSlot<T extends KubeObject> {
  readonly informer: KubernetesBasedInformer<T>;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/** The union of the slots' caches, read-only. */
class SlotsStore<T extends KubeObject> implements ReadonlyStore<T> {
  constructor(private readonly slots: () => Iterable<RunningSlot<T>>) {}

  get(key: string): T | undefined {
    for (const slot of this.slots()) {
      const object = slot.informer.store.get(key);
      if (object !== undefined) return object;
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *keys(): IterableIterator<string> {
    for (const slot of this.slots()) yield* slot.informer.store.keys();
  }

  *values(): IterableIterator<T> {
    for (const slot of this.slots()) yield* slot.informer.store.values();
  }

  get size(): number {
    let size = 0;
    for (const slot of this.slots()) size += slot.informer.store.size;
    return size;
  }
}

/** The informer of one kind for the slots a replica runs (see the file comment). */
export class ShardedInformer<T extends KubeObject = KubeObject> implements Informer<T> {
  readonly store: ReadonlyStore<T>;
  readonly #kind: Schema;
  readonly #client: ListWatchClient<T>;
  readonly #namespace: string;
  readonly #options: ShardedInformerOptions<T>;
  readonly #logger: Logger;
  readonly #handlers: ResourceWatcher<T>[] = [];
  readonly #slots = new Map<number, RunningSlot<T>>();
  #signal: AbortSignal | undefined;
  #changes: Promise<void> = Promise.resolve();
  /** Slots asked for before `run()`: started when it begins. */
  #pending: { readonly slots: ReadonlySet<number>; readonly rangeOf: (slot: number) => ShardRange } | undefined;

  constructor(kind: Schema, client: ListWatchClient<T>, namespace: string, options: ShardedInformerOptions<T> = {}) {
    this.#kind = kind;
    this.#client = client;
    this.#namespace = namespace;
    this.#options = options;
    this.#logger = options.logger ?? consoleLogger;
    this.store = new SlotsStore(() => this.#slots.values());
  }

  addEventHandler(handler: ResourceWatcher<T>): void {
    this.#handlers.push(handler);
    for (const slot of this.#slots.values()) slot.informer.addEventHandler(handler);
  }

  /** Runs until `signal` aborts; slots come and go with {@link setSlots}. */
  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending !== undefined) void this.setSlots(pending.slots, pending.rangeOf);
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    await this.#changes;
    await Promise.all([...this.#slots.values()].map((slot) => slot.done));
  }

  /** True when every running slot has listed its objects (also with no slot at all). */
  hasSynced(): boolean {
    return [...this.#slots.values()].every((slot) => slot.informer.hasSynced());
  }

  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.#slots.values()].map((slot) => slot.informer.waitForSync(signal)));
  }

  /** The lowest-numbered running slot's (each slot has a stream of its own; resourceVersions are opaque, not compared). */
  lastSyncResourceVersion(): string {
    const first = Math.min(...this.#slots.keys());
    return this.#slots.get(first)?.informer.lastSyncResourceVersion() ?? '';
  }

  schema(): Schema {
    return this.#kind;
  }

  /** The slots running. */
  slots(): number[] {
    return [...this.#slots.keys()].sort((a, b) => a - b);
  }

  /**
   * Runs exactly `slots` (each slot's hash range given by `rangeOf`): slots given up stop and their
   * objects are released to the handlers; new slots start (resolves before they have synced). Before
   * `run()`, the slots are kept and start with it.
   */
  setSlots(slots: ReadonlySet<number>, rangeOf: (slot: number) => ShardRange): Promise<void> {
    this.#changes = this.#changes.then(() => this.#apply(slots, rangeOf));
    return this.#changes;
  }

  async #apply(slots: ReadonlySet<number>, rangeOf: (slot: number) => ShardRange): Promise<void> {
    for (const [slot, running] of [...this.#slots]) {
      if (slots.has(slot)) continue;
      this.#slots.delete(slot);
      running.stop.abort();
      await running.done;
      await this.#release([...running.informer.store.values()]);
    }
    const signal = this.#signal;
    if (signal === undefined) {
      this.#pending = { slots, rangeOf };
      return;
    }
    if (signal.aborted) return;
    for (const slot of slots) {
      if (this.#slots.has(slot)) continue;
      const informer = new KubernetesBasedInformer<T>(this.#kind, this.#client, this.#namespace, { ...this.#options, shard: [rangeOf(slot)] });
      for (const handler of this.#handlers) informer.addEventHandler(handler);
      const stop = new AbortController();
      const done = informer.run(AbortSignal.any([signal, stop.signal])).catch((error: unknown) => {
        this.#logger.error('sharded informer: a slot stopped with an error', { kind: this.#kind.kind, slot, error });
      });
      this.#slots.set(slot, { informer, stop, done });
    }
  }

  /** Tells every handler that has `release` about each object; errors are logged, never retried. */
  async #release(objects: readonly T[]): Promise<void> {
    for (const object of objects) {
      for (const handler of this.#handlers) {
        if (typeof handler.release !== 'function') continue;
        try {
          await handler.release(releaseContext(this.#logger), object);
        } catch (error) {
          this.#logger.error('a handler failed to release an object that moved to another replica', { kind: this.#kind.kind, object: `${object.metadata.namespace ?? ''}/${object.metadata.name}`, error });
        }
      }
    }
  }
}

function releaseContext(logger: Logger): HandlerContext {
  return { signal: new AbortController().signal, logger };
}
