/**
 * Shared informers (client-go's `SharedInformerFactory`, grafana-app-sdk's informer supplier,
 * kube-rs' shared streams): one watch and one cache per kind, namespace and selectors per factory
 * (one factory per process), however many controllers read that kind.
 *
 * `informerFor()` hands each user its own {@link SharedInformer} handle, an `Informer` that an
 * `InformerController` takes as any other. The handles of one key share one underlying informer:
 * the first handle that runs starts it, the last one to stop stops it (reference counting by
 * running handles); a later run starts a fresh one.
 *
 * Flow of a handle: `addEventHandler` collects its handlers; `run(signal)` joins the shared
 * informer: once that one has synced, the handle's handlers get the cache's objects as adds, then
 * every later event, in order, serialized with the other handles (one delivery at a time).
 * Guarantees: a handle's handlers never see an event before their replay of the cache; a stopped
 * handle gets nothing more; the replay is the cache as of the join, and every event after it follows
 * the replay. Caveat: a relist replaces the whole cache at once and then delivers its differences one
 * by one; a handle joining in between replays the new cache and then gets those differences too (an
 * add, or an update to the state it already has), where client-go blocks delivery while it replays.
 */
import { Client, MetadataClient } from '@kubeloop/resource';
import type { Kind, KubeObject, Schema, Transport } from '@kubeloop/resource';
import { InvalidArgumentError } from '../errors.js';
import type { Informer, ReadonlyStore } from './informer.js';
import type { InformerMetrics } from '../observability/metrics.js';
import { offerInformerMetrics } from '../observability/informer-metrics-wiring.js';
import { checkSelectors } from './checked-selectors.js';
import { KubernetesBasedInformer } from './kubernetes-based-informer.js';
import { consoleLogger } from '../observability/logger.js';
import type { InformerErrorContext, InformerErrorHandler, KubernetesBasedInformerOptions } from './kubernetes-based-informer.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';

/** What one shared informer observes: its key in the factory. */
export interface SharedInformerScope {
  /** The namespace; '' = all namespaces. Default: ''. */
  namespace?: string | undefined;
  /** Label selector. Default: every object. */
  labelSelector?: string | undefined;
  /** Field selector. Default: every object. */
  fieldSelector?: string | undefined;
  /** List and watch `PartialObjectMetadata` through a `MetadataClient`. Default: false (full objects). */
  metadataOnly?: boolean | undefined;
}

/** Options of {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions {
  /** Creates the clients of the default `newInformer`. Required unless `newInformer` is given. */
  transport?: Transport | undefined;
  /** Options of every informer the default `newInformer` creates (selectors come from the scope). Default: none. */
  informerOptions?: Omit<KubernetesBasedInformerOptions, 'labelSelector' | 'fieldSelector'> | undefined;
  /**
   * Creates the underlying informer of a kind and scope; called when a key gets its first running user.
   * Default: a `KubernetesBasedInformer` over a `Client` (a `MetadataClient` for `metadataOnly`) of `transport`.
   */
  newInformer?: ((kind: Kind, scope: Required<SharedInformerScope>) => Informer & Partial<{ errorHandler: InformerErrorHandler }>) | undefined;
}

/** One factory per process: shared informers keyed by kind and scope. */
export class SharedInformerFactory {
  private readonly entries = new Map<string, SharedEntry>();
  private readonly newInformer: (kind: Kind, scope: Required<SharedInformerScope>) => Informer & Partial<{ errorHandler: InformerErrorHandler }>;

  constructor(options: SharedInformerFactoryOptions) {
    if (options.newInformer) {
      this.newInformer = options.newInformer;
    } else {
      const transport = options.transport;
      if (transport === undefined) throw new InvalidArgumentError('SharedInformerFactory needs a transport or newInformer');
      this.newInformer = (kind, scope) =>
        new KubernetesBasedInformer<KubeObject>(kind, scope.metadataOnly ? new MetadataClient(kind, transport) : new Client(kind, transport), scope.namespace, {
          ...options.informerOptions,
          labelSelector: scope.labelSelector,
          fieldSelector: scope.fieldSelector,
        });
    }
  }

  /** A new handle on the shared informer of `kind` and `scope` (one underlying informer per key). */
  informerFor<T extends KubeObject = KubeObject>(kind: Kind, scope: SharedInformerScope = {}): SharedInformer<T> {
    checkSelectors(kind.kind, scope);
    const full: Required<SharedInformerScope> = {
      namespace: scope.namespace ?? '',
      labelSelector: scope.labelSelector ?? '',
      fieldSelector: scope.fieldSelector ?? '',
      metadataOnly: scope.metadataOnly ?? false,
    };
    const key = JSON.stringify([kind.group, kind.version, kind.kind, full.namespace, full.labelSelector, full.fieldSelector, full.metadataOnly]);
    return new SharedInformer<T>(kind, () => this.entryFor(key, kind, full) as unknown as SharedEntry<T>);
  }

  /** How many underlying informers exist now (started, or created for a handle not yet run). */
  get size(): number {
    return this.entries.size;
  }

  private entryFor(key: string, kind: Kind, scope: Required<SharedInformerScope>): SharedEntry {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = new SharedEntry(this.newInformer(kind, scope), () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      });
      this.entries.set(key, entry);
    }
    return entry;
  }
}

/** One underlying informer, its running users, and the serialized fan-out of its events. */
class SharedEntry<T extends KubeObject = KubeObject> {
  /** Handles running now (they get errors from the start). */
  private readonly members = new Set<Member<T>>();
  /** Handles that had their replay (they get events). */
  private readonly joined = new Set<Member<T>>();
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;
  /** Every delivery and join runs after the previous one. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    readonly informer: Informer<T> & Partial<{ errorHandler: InformerErrorHandler }>,
    private readonly onIdle: () => void,
  ) {
    informer.addEventHandler({
      add: (_ctx, object) => this.serial((h, ctx) => h.add(ctx, object)),
      update: (_ctx, old, object) => this.serial((h, ctx) => h.update(ctx, old, object)),
      delete: (_ctx, object) => this.serial((h, ctx) => h.delete(ctx, object)),
    });
    if (typeof informer.errorHandler === 'function') {
      informer.errorHandler = (context: InformerErrorContext, error: unknown) => {
        for (const handle of this.members) handle.reportError(context, error);
      };
    }
  }

  /** Starts the informer with the first user; resolves when `handle` has been given the cache and joined the fan-out. */
  async join(handle: Member<T>, signal: AbortSignal): Promise<{ running: Promise<void> }> {
    this.members.add(handle);
    if (this.running === undefined) {
      this.abort = new AbortController();
      this.running = this.informer.run(this.abort.signal);
    }
    const running = this.running;
    await Promise.race([this.informer.waitForSync(signal).catch(() => undefined), running]);
    if (signal.aborted) return { running };
    // The cache as of now: the informer updates its cache and hands the event to the fan-out in one
    // turn, so every event before this point is in the snapshot and every later one is delivered after it.
    const snapshot = Array.from(this.informer.store.values());
    await this.enqueue(async () => {
      const ctx: HandlerContext = { signal, logger: consoleLogger };
      handle.ctx = ctx;
      for (const object of snapshot) await handle.deliver((h) => h.add(ctx, object));
      this.joined.add(handle);
    });
    handle.markSynced();
    return { running };
  }

  /** Removes `handle`; the last user stops the informer (and waits for it). */
  async leave(handle: Member<T>): Promise<void> {
    this.joined.delete(handle);
    this.members.delete(handle);
    if (this.members.size > 0) return;
    this.abort?.abort();
    const running = this.running;
    this.running = undefined;
    this.onIdle();
    await running?.catch(() => undefined);
  }

  private serial(call: (handler: ResourceWatcher<T>, ctx: HandlerContext) => Promise<void>): Promise<void> {
    return this.enqueue(async () => {
      for (const handle of this.joined) await handle.deliver((h) => call(h, handle.ctx));
    });
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.tail.then(task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * One user's handle on a shared informer (see {@link SharedInformerFactory}): an `Informer` whose
 * handlers, sync state and error handler are its own, and whose cache is the shared one (read-only).
 */
export class SharedInformer<T extends KubeObject = KubeObject> implements Informer<T> {
  /** Receives the shared informer's list and watch errors while this handle runs (an `InformerController` chains its own). Default: none. */
  errorHandler: InformerErrorHandler = () => undefined;
  private readonly member: Member<T>;
  private active = false;
  /** The shared informer of this handle's key: the one it runs in, or last ran in. */
  private current: SharedEntry<T>;

  constructor(
    private readonly kind: Schema,
    private readonly entry: () => SharedEntry<T>,
  ) {
    this.current = entry();
    this.member = new Member<T>(kind, (context, error) => this.errorHandler(context, error));
  }

  addEventHandler(handler: ResourceWatcher<T>): void {
    if (!handler) throw new InvalidArgumentError('handler cannot be nil');
    this.member.handlers.push(handler);
  }

  /** Joins the shared informer (starting it if first), then runs until `signal` aborts; the last handle to stop stops it. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.active) throw new InvalidArgumentError('informer is already running');
    this.active = true;
    // After the last user stopped, the key gets a fresh informer.
    const entry = this.entry();
    this.current = entry;
    try {
      const { running } = await entry.join(this.member, signal);
      const stopped = new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([stopped, running]);
    } finally {
      this.active = false;
      await entry.leave(this.member);
    }
  }

  hasSynced(): boolean {
    return this.member.synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.member.waitForSync(signal);
  }

  lastSyncResourceVersion(): string {
    return this.current.informer.lastSyncResourceVersion();
  }

  /** The shared cache (read-only; its objects are shared by every user). */
  get store(): ReadonlyStore<T> {
    return this.current.informer.store;
  }

  schema(): Schema {
    return this.kind;
  }

  /** Offers metrics to the shared informer (the first user's are kept). */
  useMetrics(metrics: Pick<InformerMetrics, 'forKind'>): boolean {
    return offerInformerMetrics(this.current.informer, metrics);
  }
}

/** What a shared informer needs of one handle: its handlers, context, sync state and error sink (kept off the public API). */
class Member<T extends KubeObject> {
  readonly handlers: ResourceWatcher<T>[] = [];
  synced = false;
  /** The context of the handle's current run (its signal). */
  ctx: HandlerContext = { signal: AbortSignal.abort(), logger: consoleLogger };
  private syncWaiters: (() => void)[] = [];

  constructor(
    private readonly kind: Schema,
    private readonly errors: InformerErrorHandler,
  ) {}

  /** Calls every handler; a failing handler is reported and does not stop the others. */
  async deliver(call: (handler: ResourceWatcher<T>) => Promise<void>): Promise<void> {
    for (const handler of this.handlers) {
      try {
        await call(handler);
      } catch (error) {
        this.reportError({ phase: 'handler', kind: this.kind.kind }, error);
      }
    }
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason as Error);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  markSynced(): void {
    this.synced = true;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w();
  }

  reportError(context: InformerErrorContext, error: unknown): void {
    try {
      this.errors(context, error);
    } catch {
      // A throwing error handler must not stop the shared informer.
    }
  }
}
