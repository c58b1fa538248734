/**
 * An in-process informer for the runtime-overhead scenario: the benchmark pushes updates into its cache
 * and handlers directly, so that the figures hold the controller's own cost per event and no I/O.
 */
import type { KubeObject, Schema } from '@kubeloop/resource';
import { noopLogger } from '@kubeloop/operator';
import type { HandlerContext, Informer, ReadonlyStore, ResourceWatcher } from '@kubeloop/operator';

const CTX: HandlerContext = { signal: new AbortController().signal, logger: noopLogger };

/** An informer fed by `update()`; it syncs at `run()` or when `markSynced()` is called. */
export class PushInformer<T extends KubeObject = KubeObject> implements Informer<T> {
  private readonly objects = new Map<string, T>();
  private readonly handlers: ResourceWatcher<T>[] = [];
  private synced = false;
  private waiters: (() => void)[] = [];
  private lastRv = '';

  readonly store: ReadonlyStore<T>;

  constructor(
    private readonly kind: Schema,
    /** True: synced once `run()` starts; false: only at `markSynced()`. */
    private readonly syncOnRun: boolean,
  ) {
    const objects = this.objects;
    this.store = {
      get: (key) => objects.get(key),
      has: (key) => objects.has(key),
      keys: () => objects.keys(),
      values: () => objects.values(),
      get size() {
        return objects.size;
      },
    };
  }

  addEventHandler(handler: ResourceWatcher<T>): void {
    this.handlers.push(handler);
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.syncOnRun) this.markSynced();
    if (signal.aborted) return;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  lastSyncResourceVersion(): string {
    return this.lastRv;
  }

  schema(): Schema {
    return this.kind;
  }

  markSynced(): void {
    this.synced = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Stores `object` under `key` and tells the handlers, as a watch event would. */
  update(key: string, object: T): void {
    const old = this.objects.get(key) ?? object;
    this.objects.set(key, object);
    this.lastRv = object.metadata.resourceVersion ?? this.lastRv;
    for (const handler of this.handlers) void handler.update(CTX, old, object);
  }
}
