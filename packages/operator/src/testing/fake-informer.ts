/**
 * Test doubles for the controller core: an informer that tests push events into, object
 * builders and a seeded random source. Not part of the public API.
 */
import { objectKey } from '@kubeloop/resource';
import type { KubeObject, Schema } from '@kubeloop/resource';
import type { Informer, ReadonlyStore } from '../informer/informer.js';
import { noopLogger } from '../observability/logger.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';

const ctx: HandlerContext = { signal: new AbortController().signal, logger: noopLogger };

/** A schema for test objects (group `test.kubeloop.dev`, kind `Widget`). */
export const widgetSchema: Schema = {
  group: 'test.kubeloop.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  apiVersion: 'test.kubeloop.dev/v1',
};

/** A test object; `rv` and `generation` default to '1' and 1. */
export function widget(name: string, options: { namespace?: string; rv?: string; generation?: number; spec?: unknown } = {}): KubeObject {
  return {
    apiVersion: widgetSchema.apiVersion,
    kind: widgetSchema.kind,
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      resourceVersion: options.rv ?? '1',
      generation: options.generation ?? 1,
    },
    spec: options.spec ?? {},
  };
}

/** An informer driven by the test: `add`/`update`/`delete` call every handler synchronously, as a real informer does. */
export class FakeInformer implements Informer {
  readonly handlers: ResourceWatcher[] = [];
  /** How many times `run` was called. */
  runs = 0;
  /** When set, `run` rejects with it (a configuration error). */
  failWith: Error | undefined;
  private readonly objects = new Map<string, KubeObject>();
  private synced = false;

  readonly store: ReadonlyStore = storeOf(this.objects);

  /** @param observed the kind it observes. Default: {@link widgetSchema}. */
  constructor(private readonly observed: Schema = widgetSchema) {}

  addEventHandler(handler: ResourceWatcher): void {
    this.handlers.push(handler);
  }

  async run(signal: AbortSignal): Promise<void> {
    this.runs++;
    if (this.failWith !== undefined) throw this.failWith;
    this.synced = true;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  hasSynced(): boolean {
    return this.synced;
  }

  async waitForSync(): Promise<void> {}

  lastSyncResourceVersion(): string {
    return '';
  }

  schema(): Schema {
    return this.observed;
  }

  // As a real informer, the cache changes before the handlers are told (bad input is passed on as is).
  add(object: KubeObject): void {
    if (object?.metadata != null) this.objects.set(objectKey(object), object);
    for (const h of this.handlers) void h.add(ctx, object);
  }

  update(old: KubeObject, object: KubeObject): void {
    if (object?.metadata != null) this.objects.set(objectKey(object), object);
    for (const h of this.handlers) void h.update(ctx, old, object);
  }

  delete(object: KubeObject): void {
    if (object?.metadata != null) this.objects.delete(objectKey(object));
    for (const h of this.handlers) void h.delete(ctx, object);
  }
}

/**
 * A {@link FakeInformer} whose initial list takes as long as the test wants: it has not synced
 * until `markSynced()` (a slow informer of a secondary kind, say). Events can be pushed before.
 */
export class SlowSyncInformer extends FakeInformer {
  private released = false;
  private waiters: (() => void)[] = [];

  constructor(observed: Schema = widgetSchema) {
    super(observed);
  }

  override async run(signal: AbortSignal): Promise<void> {
    this.runs++;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  override hasSynced(): boolean {
    return this.released;
  }

  override waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.released) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push(resolve);
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
  }

  /** Ends the initial list: `hasSynced()` turns true and waiters resolve. */
  markSynced(): void {
    this.released = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** A {@link FakeInformer} with a cache, like a real one: the store changes before handlers are called. */
export class CachingInformer extends FakeInformer {
  readonly cache = new Map<string, KubeObject>();
  override readonly store: ReadonlyStore = storeOf(this.cache);

  override add(object: KubeObject): void {
    this.cache.set(objectKey(object), object);
    super.add(object);
  }

  override update(old: KubeObject, object: KubeObject): void {
    this.cache.set(objectKey(object), object);
    super.update(old, object);
  }

  override delete(object: KubeObject): void {
    this.cache.delete(objectKey(object));
    super.delete(object);
  }
}

function storeOf(objects: Map<string, KubeObject>): ReadonlyStore {
  return {
    get: (key) => objects.get(key),
    has: (key) => objects.has(key),
    keys: () => objects.keys(),
    values: () => objects.values(),
    get size() {
      return objects.size;
    },
  };
}

/** A small seeded PRNG (mulberry32): the same seed gives the same storm. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A promise with its resolve function exposed, to hold a handler until the test releases it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls `condition` on macrotask turns until it holds; throws after `timeoutMs` of real time. */
export async function waitFor(condition: () => boolean, options: { timeoutMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 2000);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise<void>((r) => setImmediate(r));
  }
}
