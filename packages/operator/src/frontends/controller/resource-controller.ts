/**
 * consul-k8s' `controller.Controller`: watch one {@link Resource} and call its `upsert` and `delete`,
 * run on the core's `InformerController` (per-object queue, retry scheduler, error handler, metrics).
 *
 * Flow: the resource's informer feeds an `InformerController`. Each event (and each retry of it) is
 * decided when it is processed, from the informer's cache, whatever its type (consul-k8s'
 * `processSingle`): the key is gone -> `delete(key, object of the event)`, its last known state;
 * the key is present -> `upsert(key, cached)`, its newest state. A failure is reported and retried
 * per `retryPolicy` (5 times by default, then dropped, as upstream); a newer event of the same key
 * replaces its pending retries (both would read the same cache). A resource that is also a
 * {@link Backgrounder} runs beside the controller and is awaited when it stops.
 *
 * Guarantees: calls for one key are serial and in event order; keys run concurrently up to
 * `maxConcurrentWorkers`; queued, not started updates of a key coalesce. Caveats: as in consul-k8s,
 * `upsert` and `delete` must be idempotent (at-least-once); pending retries are dropped at shutdown.
 */
import { KubeloopError, objectKey } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import type { Clock } from '../../clock.js';
import { InvalidArgumentError } from '../../errors.js';
import type { Informer } from '../../informer/informer.js';
import { InformerController } from '../../controller/informer-controller.js';
import type { ErrorHandler } from '../../controller/informer-controller.js';
import { consoleLogger } from '../../observability/logger.js';
import type { Logger } from '../../observability/logger.js';
import type { ControllerStatus } from '../../status/controller-status.js';
import type { PrometheusCollector } from '../../observability/metrics.js';
import type { ResourceWatcher } from '../../handlers/resource-watcher.js';
import type { RetryDequeuePolicy } from '../../queue/retry-dequeue-policy.js';
import { exponentialBackoffRetryPolicy } from '../../queue/retry-policy.js';
import type { RetryPolicy } from '../../queue/retry-policy.js';
import { isBackgrounder } from './resource.js';
import type { Event, Resource } from './resource.js';

/** How many times a failed `upsert`/`delete` is retried by default before it is dropped (consul-k8s: `NumRequeues < 5`). */
export const DEFAULT_RESOURCE_MAX_RETRIES = 5;

/**
 * The default retry policy of a {@link Controller}, as consul-k8s: 5 ms doubling (the per-item
 * part of client-go's default controller rate limiter, capped at 1000 s), 5 retries, then the
 * event is dropped and reported (`retryAfterMs` undefined). A later event of the key starts over.
 */
export const DefaultResourceRetryPolicy: RetryPolicy = exponentialBackoffRetryPolicy(5, DEFAULT_RESOURCE_MAX_RETRIES - 1, { maxDelay: 1_000_000 });

/** A newer event of a key replaces its pending retries: `upsert` reads the newest state anyway, and a delete supersedes an upsert. */
const newerEventReplacesRetries: RetryDequeuePolicy = () => true;

/** Options of a {@link Controller}. */
export interface ControllerOptions<T extends KubeObject = KubeObject> {
  /** What to watch and how to handle it. */
  resource: Resource<T>;
  /** Where the controller logs (hclog in consul-k8s). Default: `consoleLogger`. */
  log?: Logger | undefined;
  /** When a failed `upsert`/`delete` is retried. Default: {@link DefaultResourceRetryPolicy} (5 ms doubling, 5 retries, then dropped). */
  retryPolicy?: RetryPolicy | undefined;
  /** Receives every failure. Default: the core's `DefaultErrorHandler`, on `log`. */
  errorHandler?: ErrorHandler | undefined;
  /** How many keys are handled at the same time. Default: 10. */
  maxConcurrentWorkers?: number | undefined;
  /** Source of time for retries and the shutdown deadline. Default: `realClock`. */
  clock?: Clock | undefined;
  /** How long `run()` waits, after the signal aborts, for running calls. Default: 30000 ms. */
  shutdownTimeoutMs?: number | undefined;
  /** Prefix of the metric names. Default: none. */
  metricsNamespace?: string | undefined;
  /** How long `run()` waits for the informer to sync before any call; then rejects with `CacheSyncTimeoutError`. Default: 120000. */
  cacheSyncTimeoutMs?: number | undefined;
}

/**
 * Watches a {@link Resource} and calls its callbacks as objects change (consul-k8s
 * `controller.Controller`). A controller runs once, as the core's `InformerController`.
 */
export class Controller<T extends KubeObject = KubeObject> {
  /** Where the controller logs. */
  readonly log: Logger;
  /** What is watched. */
  readonly resource: Resource<T>;

  private readonly options: ControllerOptions<T>;
  private informer: Informer<T> | undefined;
  private core: InformerController | undefined;
  private started = false;

  /** @throws InvalidArgumentError when `resource` is missing. Nothing starts before `run()`. */
  constructor(options: ControllerOptions<T>) {
    if (options?.resource == null) throw new InvalidArgumentError('resource cannot be nil');
    this.options = options;
    this.resource = options.resource;
    this.log = options.log ?? consoleLogger;
  }

  /** True while running once the resource's informer has synced and calls start (client-go `cache.Controller.HasSynced`; readiness). */
  hasSynced(): boolean {
    return this.core?.hasSynced() ?? false;
  }

  /** True while warming up or running once its informer has synced (a warm follower's readiness); says nothing about workers. */
  cachesSynced(): boolean {
    return this.core?.cachesSynced() ?? false;
  }

  /** What the status page shows (the core's: informer, queue, recent calls per object); an empty controller before the first use. */
  status(): ControllerStatus | undefined {
    return this.core?.status();
  }

  /** The resourceVersion the informer last saw; '' before it has listed (client-go `LastSyncResourceVersion`). */
  lastSyncResourceVersion(): string {
    return this.informer?.lastSyncResourceVersion() ?? '';
  }

  /** The metric collectors of the controller (the core's), for the user to register; gets the resource's informer. */
  prometheusCollectors(): PrometheusCollector[] {
    return this.ensureCore().prometheusCollectors();
  }

  /**
   * Warm replica: starts the resource's informer before `run()` (see `InformerController.warmUp`); no
   * upsert or delete is called, and the backgrounder does not start, until `run()`.
   */
  warmUp(signal: AbortSignal): Promise<void> {
    if (this.started) return Promise.resolve();
    return this.ensureCore().warmUp(signal);
  }

  /**
   * Runs until `signal` aborts, then waits for running calls and the {@link Backgrounder} (if the
   * resource is one) to finish. Rejects when the informer fails for good (a configuration error),
   * and with `ControllerAlreadyRun` when called a second time.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new KubeloopError('ControllerAlreadyRun', 'Controller.run() can be called once');
    this.started = true;
    const core = this.ensureCore();
    const resource = this.resource;
    const stopped = new AbortController();
    const onAbort = (): void => stopped.abort(signal.reason);
    const background = isBackgrounder(resource) ? this.runBackground(resource.run.bind(resource), stopped.signal) : undefined;
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      await core.run(signal);
    } finally {
      signal.removeEventListener('abort', onAbort);
      // Stopped by an informer failure too: the backgrounder ends with the controller.
      stopped.abort(signal.reason);
      await background;
    }
  }

  /** The core controller, created on first use: it reads `resource.informer()` once. */
  private ensureCore(): InformerController {
    if (this.core !== undefined) return this.core;
    const informer = this.resource.informer();
    if (informer == null) throw new InvalidArgumentError('resource.informer() returned nothing');
    const kind = informer.schema().kind;
    const core = new InformerController({
      logger: this.log,
      errorHandler: this.options.errorHandler,
      retryPolicy: this.options.retryPolicy ?? DefaultResourceRetryPolicy,
      retryDequeuePolicy: newerEventReplacesRetries,
      maxConcurrentWorkers: this.options.maxConcurrentWorkers,
      clock: this.options.clock,
      shutdownTimeoutMs: this.options.shutdownTimeoutMs,
      metricsNamespace: this.options.metricsNamespace,
      cacheSyncTimeoutMs: this.options.cacheSyncTimeoutMs,
    });
    core.addInformer(informer, kind);
    core.addWatcher(this.watcher(informer), kind);
    this.informer = informer;
    this.core = core;
    return core;
  }

  /** Waits for the backgrounder and logs (never throws) its failure: it has no error channel in consul-k8s either. */
  private async runBackground(run: (signal: AbortSignal) => Promise<void> | void, signal: AbortSignal): Promise<void> {
    try {
      await run(signal);
    } catch (err) {
      if (!signal.aborted || err !== signal.reason) this.log.error('controller backgrounder failed', { error: err });
    }
  }

  /**
   * Decides each event from the cache when it is processed, whatever its type: gone -> `delete`
   * with the event's object (the last known state), present -> `upsert` with the cached one. An
   * event whose key was deleted meanwhile never upserts a stale object, and a delete whose key was
   * created again upserts the new object.
   */
  private watcher(informer: Informer<T>): ResourceWatcher<T> {
    const process = async (object: T): Promise<void> => {
      const event: Event<T> = { key: objectKey(object), obj: object };
      const cached = informer.store.get(event.key);
      if (cached === undefined) await this.resource.delete(event.key, event.obj);
      else await this.resource.upsert(event.key, cached);
    };
    return {
      add: (_ctx, object) => process(object),
      update: (_ctx, _old, object) => process(object),
      delete: (_ctx, object) => process(object),
    };
  }
}
