/**
 * Read your own writes (client-go 1.36's stale-controller mitigation, KEP-5647; the Java operator
 * SDK's comparable-resource-version cache): a reconcile must not act on a cache older than the
 * controller's own last write, or it creates or updates twice.
 *
 * Flow: writes made through a client from `ReconcileController.trackWrites(client)` record the
 * resourceVersion the server returned, under the written object's key and, for a child, under the
 * key of its controlling owner of the reconciled kind (the ReplicaSet -> Pod case of KEP-5647).
 * Before a key is reconciled, each recorded version is compared with the newest resourceVersion that
 * the informers of the written kind have processed (`lastSyncResourceVersion()`: events and
 * bookmarks). While a cache is older, the reconcile is deferred by `retryDelayMs` (not a failure:
 * no error, no backoff, no retry count); past `timeoutMs` it proceeds anyway with a warning and a
 * metric.
 *
 * Guarantees: resourceVersions are compared only as KEP-5504 allows (decimal integers of one
 * resource, see `compareResourceVersions`); when either side is not comparable, or no informer of
 * the controller reads the written kind, nothing is deferred (the behaviour without tracking).
 * Caveats: only writes through the tracking client count; a record is cleared by the first check
 * that finds the cache caught up, so memory follows the keys written and not yet reconciled.
 */
import { compareResourceVersions, objectKey } from '@kubeloop/resource';
import type { Client, Identifier, KubeObject, Patch, Schema } from '@kubeloop/resource';
import type { DeleteOptions, RequestOptions, WriteOptions } from '@kubeloop/resource';
import { Counter } from 'prom-client';
import type { Clock } from '../../clock.js';
import { InvalidArgumentError } from '../../errors.js';
import type { Informer } from '../../informer/informer.js';
import type { Logger } from '../../observability/logger.js';
import type { PrometheusCollector } from '../../observability/metrics.js';

/** Default of {@link ReadYourWritesOptions.timeoutMs}: 10 s. */
export const DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS = 10_000;
/** Default of {@link ReadYourWritesOptions.retryDelayMs}: 100 ms. */
export const DEFAULT_READ_YOUR_WRITES_RETRY_DELAY_MS = 100;

/** Options of read-your-writes deferral (`ReconcileControllerOptions.readYourWrites`). */
export interface ReadYourWritesOptions {
  /** How long a key's reconcile may be deferred in all before it proceeds with a warning. Default: 10000 ms. */
  timeoutMs?: number | undefined;
  /** How long each deferral waits before the cache is checked again. Default: 100 ms. */
  retryDelayMs?: number | undefined;
}

/** What the tracking client wraps: a typed client's kind, reads and writes (a @kubeloop/resource `Client` fits). */
export type WriteClient<T extends KubeObject = KubeObject> = Pick<Client<T>, 'kind' | 'get' | 'create' | 'update' | 'updateStatus' | 'patch' | 'delete'>;

/** Settings and collaborators of a {@link ReadYourWrites}. */
export interface ReadYourWritesSetup extends ReadYourWritesOptions {
  /** The reconciled kind: a child's controlling owner of this kind gets its writes recorded. */
  primary: Schema;
  /** The informers of the controller, by which the written kinds are read. */
  informers: () => readonly Informer[];
  clock: Clock;
  logger: Logger;
  /** The controller's name, for logs and the metric label. */
  controller: string;
  /** Prefix of the metric names. Default: none. */
  metricsNamespace?: string | undefined;
}

/** One controller's record of its writes, and the check made before each reconcile. */
export class ReadYourWrites {
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;
  /** key -> kind id (`apiVersion/kind`) -> the newest resourceVersion written. */
  private readonly writes = new Map<string, Map<string, string>>();
  /** key -> clock time of its first deferral. */
  private readonly deferredSince = new Map<string, number>();
  private readonly deferrals: Counter;
  private readonly expirations: Counter;

  constructor(private readonly setup: ReadYourWritesSetup) {
    this.timeoutMs = setup.timeoutMs ?? DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS;
    this.retryDelayMs = setup.retryDelayMs ?? DEFAULT_READ_YOUR_WRITES_RETRY_DELAY_MS;
    if (!(this.timeoutMs >= 0)) throw new InvalidArgumentError(`readYourWrites.timeoutMs must be >= 0, got ${this.timeoutMs}`);
    if (!(this.retryDelayMs > 0) || !Number.isFinite(this.retryDelayMs)) {
      throw new InvalidArgumentError(`readYourWrites.retryDelayMs must be a finite number > 0, got ${this.retryDelayMs}`);
    }
    const name = (n: string): string => (setup.metricsNamespace ? `${setup.metricsNamespace}_${n}` : n);
    this.deferrals = new Counter({
      name: name('controller_read_your_writes_deferrals_total'),
      help: 'Reconciles deferred because the cache was older than the controller\'s own write',
      labelNames: ['controller'],
      registers: [],
    });
    this.expirations = new Counter({
      name: name('controller_read_your_writes_timeouts_total'),
      help: 'Reconciles that went ahead on a cache still older than the controller\'s own write after the deferral limit',
      labelNames: ['controller'],
      registers: [],
    });
  }

  /** A client whose writes are recorded (see the file comment); reads go straight through. */
  client<T extends KubeObject>(inner: WriteClient<T>): WriteClient<T> {
    if (inner == null) throw new InvalidArgumentError('client cannot be nil');
    return new TrackedWriteClient(inner, (object) => this.record(inner.kind, object));
  }

  /**
   * Before reconciling `key`: 0 to go ahead, or how long to defer it because a cache is still older
   * than a write recorded for it.
   */
  deferral(key: string): number {
    const pending = this.writes.get(key);
    if (pending === undefined) return 0;
    for (const [kindId, rv] of pending) {
      const cmp = compareResourceVersions(this.newestSeen(kindId), rv);
      if (cmp === undefined || cmp >= 0) pending.delete(kindId);
    }
    if (pending.size === 0) {
      this.clear(key);
      return 0;
    }
    const now = this.setup.clock.now();
    const since = this.deferredSince.get(key) ?? now;
    if (now - since >= this.timeoutMs) {
      this.expirations.labels(this.setup.controller).inc();
      this.setup.logger.warn(`controller ${this.setup.controller}: the cache is still older than the controller's own write after ${this.timeoutMs} ms; reconciling anyway`, {
        controller: this.setup.controller,
        key,
        written: Object.fromEntries(pending),
      });
      this.clear(key);
      return 0;
    }
    this.deferredSince.set(key, since);
    this.deferrals.labels(this.setup.controller).inc();
    return this.retryDelayMs;
  }

  /** Keys with writes not yet seen by the cache (for tests and debugging). */
  get pendingKeys(): number {
    return this.writes.size;
  }

  collectors(): PrometheusCollector[] {
    return [this.deferrals, this.expirations];
  }

  private clear(key: string): void {
    this.writes.delete(key);
    this.deferredSince.delete(key);
  }

  private record(kind: Schema, object: KubeObject | undefined): void {
    const rv = object?.metadata?.resourceVersion;
    if (object == null || !rv || typeof object.metadata.name !== 'string') return;
    const id = kindId(kind);
    // A kind no informer of the controller reads can never be seen catching up: not recorded.
    if (!this.setup.informers().some((i) => kindId(i.schema()) === id)) return;
    const primary = kindId(this.setup.primary);
    if (id === primary) this.remember(objectKey(object), id, rv);
    for (const owner of object.metadata.ownerReferences ?? []) {
      if (owner.controller === true && `${owner.apiVersion}/${owner.kind}` === primary) {
        const namespace = this.setup.primary.scope === 'Namespaced' ? object.metadata.namespace : undefined;
        this.remember(objectKey({ metadata: { name: owner.name, namespace } }), id, rv);
      }
    }
  }

  private remember(key: string, id: string, rv: string): void {
    let pending = this.writes.get(key);
    if (pending === undefined) {
      pending = new Map();
      this.writes.set(key, pending);
    }
    const known = pending.get(id);
    if (known === undefined || compareResourceVersions(known, rv) !== 1) pending.set(id, rv);
  }

  /** The newest resourceVersion processed by the informers of a kind (several: one per namespace, say). */
  private newestSeen(id: string): string | undefined {
    let newest: string | undefined;
    for (const informer of this.setup.informers()) {
      if (kindId(informer.schema()) !== id) continue;
      const seen = informer.lastSyncResourceVersion();
      if (newest === undefined || compareResourceVersions(seen, newest) === 1) newest = seen;
    }
    return newest;
  }
}

function kindId(kind: Pick<Schema, 'apiVersion' | 'kind'>): string {
  return `${kind.apiVersion}/${kind.kind}`;
}

/** Delegates to a typed client and reports every object a write returned. */
class TrackedWriteClient<T extends KubeObject> implements WriteClient<T> {
  constructor(
    private readonly inner: WriteClient<T>,
    private readonly written: (object: T | undefined) => void,
  ) {}

  get kind(): WriteClient<T>['kind'] {
    return this.inner.kind;
  }

  get(id: Identifier, options?: RequestOptions): Promise<T> {
    return this.inner.get(id, options);
  }

  async create(obj: T, options?: WriteOptions): Promise<T> {
    return this.seen(await this.inner.create(obj, options), options);
  }

  async update(obj: T, options?: WriteOptions): Promise<T> {
    return this.seen(await this.inner.update(obj, options), options);
  }

  async updateStatus(obj: T, options?: WriteOptions): Promise<T> {
    return this.seen(await this.inner.updateStatus(obj, options), options);
  }

  async patch(id: Identifier, patch: Patch<T>, options?: WriteOptions): Promise<T> {
    return this.seen(await this.inner.patch(id, patch, options), options);
  }

  async delete(id: Identifier, options?: DeleteOptions): Promise<T | undefined> {
    return this.seen(await this.inner.delete(id, options), undefined);
  }

  /** A dry run persisted nothing: there is nothing for the cache to catch up with. */
  private seen<R extends T | undefined>(object: R, options: { dryRun?: boolean | undefined } | undefined): R {
    if (options?.dryRun !== true) this.written(object);
    return object;
  }
}
