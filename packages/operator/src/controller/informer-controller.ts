import { identifierKey, objectKey } from '@kubeloop/resource';
import { context } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import type { Identifier, KubeObject } from '@kubeloop/resource';
import { ReconcileAction, reconcileActionFromResourceAction } from '../handlers/actions.js';
import type { ResourceAction } from '../handlers/actions.js';
import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { ControllerLifecycle } from './controller-lifecycle.js';
import { ErrInformerAlreadyAdded, ErrNilObject, HandedOverError, InvalidArgumentError, isReconcileError, isTerminalError } from '../errors.js';
import { callWithTimeout } from './handler-timeout.js';
import type { Informer } from '../informer/informer.js';
import { HANDLED, chainInformerErrorHandler } from '../informer/kubernetes-based-informer.js';
import type { InformerErrorContext, InformerErrorPhase } from '../informer/kubernetes-based-informer.js';
import { ListMap } from './list-map.js';
import { consoleLogger } from '../observability/logger.js';
import type { Logger } from '../observability/logger.js';
import { ControllerMetrics, InformerMetrics } from '../observability/metrics.js';
import { ObjectHandlerContext } from './handler-context.js';
import { offerInformerMetrics } from '../observability/informer-metrics-wiring.js';
import { InformerCacheMetrics } from '../observability/informer-cache-metrics.js';
import { QueueMetrics } from '../observability/queue-metrics.js';
import { resourceKindKey, unmatchedRegistrations } from './registration-key.js';
import type { ResourceKindKey } from './registration-key.js';
import type { BoundEventMetrics, KindEventMetrics, PrometheusCollector } from '../observability/metrics.js';
import type { Reconciler, ReconcileRequest, ReconcileResult } from '../handlers/reconciler.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';
import { PredicateFilter } from './predicates.js';
import { ShardedInformer } from '../sharding/sharded-informer.js';
import type { Predicate } from './predicates.js';
import { controllerOwnerOf, primariesOf, unmatchedSecondaries } from './secondary-source.js';
import type { OwnsOptions, PrimaryMapper, SecondaryMapFunc, WatchesOptions } from './secondary-source.js';
import { LOW_PRIORITY } from '../queue/ready-queue.js';
import { isResync } from '../informer/resync.js';
import { OpinionatedRetryDequeuePolicy } from '../queue/retry-dequeue-policy.js';
import type { RetryDequeuePolicy } from '../queue/retry-dequeue-policy.js';
import { DefaultRetryPolicy, toMillis } from '../queue/retry-policy.js';
import type { RetryPolicy } from '../queue/retry-policy.js';
import { RetryScheduler } from '../queue/retry-scheduler.js';
import { HandlerCallLog } from '../status/handler-call-log.js';
import type { HandlerCallLogOptions } from '../status/handler-call-log.js';
import type { ControllerStatus, InformerStatus } from '../status/controller-status.js';
import { SpanNames, endSpan, recordSpanError, runInSpan, startObjectSpan, tracingEnabled } from '../observability/tracing.js';
import { DEFAULT_MAX_CONCURRENT_WORKERS, WorkQueue } from '../queue/work-queue.js';

/** Retries due within one 10 ms window fire in one wake-up (at most 10 ms late, never early). */
const RETRY_TIMER_RESOLUTION_MS = 10;

/** Default of {@link InformerControllerConfig.shutdownTimeoutMs}: 30 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

/** Where an error reported to an {@link ErrorHandler} came from, and what happens next. */
export interface ErrorHandlerContext extends HandlerContext {
  /** The controller's logger. */
  logger: Logger;
  /** The resource kind the event was registered under. */
  resourceKind: string;
  /** `namespace/name` of the object, '' when there is none. */
  objectKey: string;
  /** The informer action of the event, '' when there is none. */
  action: ResourceAction | '';
  /** What failed. */
  source: 'watcher' | 'reconciler' | 'informer' | 'controller';
  /**
   * For `source: 'informer'`: where the informer failed ('list', 'watch': it backs off and retries by
   * itself; 'handler': another handler of the informer threw). Undefined otherwise, and for an
   * informer whose `run()` rejected (a configuration error, which stops the controller).
   */
  phase: InformerErrorPhase | undefined;
  /** 0 for the first call of a handler for an event, n for its n-th retry (the `attempt` given to the retry policy). */
  attempt: number;
  /** The delay of the retry scheduled for this failure, undefined when it is not retried. */
  retryAfterMs: number | undefined;
}

/**
 * Receives every error of the controller: watcher and reconciler failures (first calls and retries),
 * informer failures (list and watch errors, failing handlers of the informer, a rejected `run()`).
 */
export type ErrorHandler = (ctx: ErrorHandlerContext, err: unknown) => void;

/**
 * Logs the error on the context's logger with component "InformerController" (grafana-app-sdk
 * `DefaultErrorHandler`). Unlike upstream, whose message is the error's text (printed again as
 * `error=`), the message says what happened next: the retry and its delay, that the retries gave up
 * (and after how many attempts), or that the informer retries by itself; the error's text is the
 * `error` attribute, once. Attributes with nothing to say (no object, no action) are left out.
 */
export const DefaultErrorHandler: ErrorHandler = (ctx, err) => {
  ctx.logger.error(describeFailure(ctx), {
    component: 'InformerController',
    error: err instanceof Error ? err.message : String(err),
    kind: ctx.resourceKind || undefined,
    object: ctx.objectKey || undefined,
    action: ctx.action || undefined,
    source: ctx.source,
    phase: ctx.phase,
    attempt: ctx.attempt,
    retryAfterMs: ctx.retryAfterMs,
  });
};

/** The message of {@link DefaultErrorHandler}: what failed and what happens next. */
function describeFailure(ctx: ErrorHandlerContext): string {
  if (ctx.source === 'informer') return ctx.phase === undefined ? 'informer failed: the controller stops' : `informer ${ctx.phase} failed`;
  if (ctx.source === 'controller') return 'controller failed';
  if (ctx.retryAfterMs !== undefined) return `${ctx.source} failed; retry ${ctx.attempt + 1} in ${formatSeconds(ctx.retryAfterMs)}`;
  if (ctx.attempt > 0) return `${ctx.source} gave up after ${ctx.attempt + 1} attempts`;
  return `${ctx.source} failed; not retried`;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** Configuration of an {@link InformerController}; every field is optional. */
export interface InformerControllerConfig {
  /** Receives every error (also reconciler errors and failed retries). Default: {@link DefaultErrorHandler}. */
  errorHandler?: ErrorHandler | undefined;
  /** When and after how long a failed handler call is retried. Default: `DefaultRetryPolicy` (5 s doubling, up to attempt 5). */
  retryPolicy?: RetryPolicy | undefined;
  /** Which pending retries a new event of the same object drops. Default: `OpinionatedRetryDequeuePolicy`. */
  retryDequeuePolicy?: RetryDequeuePolicy | undefined;
  /** How many objects are processed at the same time (events of one object are always serial). Default: 10. */
  maxConcurrentWorkers?: number | undefined;
  /** Source of time for retries and the shutdown deadline. Default: `realClock`. */
  clock?: Clock | undefined;
  /** Prefix of the metric names. Default: none. */
  metricsNamespace?: string | undefined;
  /** How long `run()` waits, after the signal aborts, for running handlers and informers to finish. Default: 30000 ms. */
  shutdownTimeoutMs?: number | undefined;
  /** Logger of the default error handler and of shutdown messages. Default: `consoleLogger`. */
  logger?: Logger | undefined;
  /**
   * A deadline for each watcher and reconciler call (events and retries), in milliseconds; 0 = none.
   * A call still running at its deadline has its `ctx.signal` aborted with a `HandlerTimeoutError`
   * and counts as failed at once: reported to `errorHandler`, counted in
   * `controller_handler_errors_total`, retried per `retryPolicy`; its object goes on to its next
   * work. Caveat: a handler that ignores its signal keeps running in the background, possibly beside
   * the next call for the same object. Default: 0 (no deadline).
   */
  handlerTimeoutMs?: number | undefined;
  /**
   * How long `run()` waits for its informers (those added before the gate opens) to sync; no handler runs before they
   * all have (events queue and coalesce meanwhile). Past it, `run()` stops and rejects with a
   * `CacheSyncTimeoutError`. `Infinity`: wait forever. Default: 120000 (controller-runtime's 2 minutes).
   */
  cacheSyncTimeoutMs?: number | undefined;
  /** The controller's name: the `controller` label of its metrics in `Operator.prometheusCollectors()`. Default: set by the operator (`controller-{n}`). */
  name?: string | undefined;
  /**
   * The recent handler calls kept per object for `status()` (the operator server's `/status` page):
   * bounds of the log, or `false` to keep none. Default: `{}` (the last 20 calls of the last 500
   * objects called, error messages cut to 300 characters; see `HandlerCallLog`).
   */
  callLog?: HandlerCallLogOptions | false | undefined;
}

/** Options of {@link InformerController.addInformer}. */
export interface AddInformerOptions {
  /**
   * Events of this informer are queued only when every predicate accepts them; filtered events are
   * counted in `controller_predicate_filtered_events_total{controller=<kind>,event}`, which
   * `prometheusCollectors()` includes once an informer with predicates was added. Default: none.
   */
  predicates?: readonly Predicate[] | undefined;
}

/**
 * Every option of {@link InformerControllerConfig} set to its default (grafana-app-sdk
 * `DefaultInformerControllerConfig`): a starting point to change one field of. `metricsNamespace`
 * stays undefined (no prefix).
 */
export function defaultInformerControllerConfig(): InformerControllerConfig {
  return {
    errorHandler: DefaultErrorHandler,
    retryPolicy: DefaultRetryPolicy,
    retryDequeuePolicy: OpinionatedRetryDequeuePolicy,
    maxConcurrentWorkers: DEFAULT_MAX_CONCURRENT_WORKERS,
    clock: realClock,
    metricsNamespace: undefined,
    shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS,
    logger: consoleLogger,
  };
}

/** An informer event waiting in an object's queue. */
interface EventItem {
  type: 'event';
  kind: string;
  action: ResourceAction;
  old: KubeObject | undefined;
  object: KubeObject;
  metrics: BoundEventMetrics;
  /** The context the informer delivered the event in (its informer-event-* span), while tracing. */
  trace: Context | undefined;
  /** A CREATE from the informer's initial list (see `HandlerContext.isInInitialList`). */
  initialList: boolean;
  /** When it was queued (see `QueueMetrics`). */
  queuedAt?: number | undefined;
  /**
   * The secondary event that asked for this resync of a primary (see `InformerController.owns`);
   * undefined for the primary's own events. Such an item goes to the reconcilers only.
   */
  trigger?: SecondaryTrigger | undefined;
}

/** The event of a secondary informer that asked for a resync of its primary. */
interface SecondaryTrigger {
  /** The registration key of the secondary kind. */
  kind: string;
  action: ResourceAction;
  object: KubeObject;
}

/** A secondary informer added with `owns` or `watches`. */
interface SecondarySource {
  readonly informer: Informer;
  /** The registration key of the primary kind. */
  readonly primary: string;
  readonly mapper: PrimaryMapper;
  readonly registration: Registration;
  readonly method: 'owns' | 'watches';
}

/** What a retry needs, as data: which handler, which object, which attempt; never a closure. */
interface RetryBase {
  kind: string;
  /** The informer action of the event that failed. */
  action: ResourceAction;
  object: KubeObject;
  /** The retry-policy attempt that scheduled this entry (a requeue keeps the attempt). */
  attempt: number;
  /** The error that caused the retry (undefined for a `requeueAfter` without error). */
  error: unknown;
  metrics: BoundEventMetrics;
  /** The queue priority of the call that failed: the retry keeps it. */
  priority?: number | undefined;
  /** When it was queued, once due (see `QueueMetrics`). */
  queuedAt?: number | undefined;
}

interface WatcherRetry extends RetryBase {
  type: 'watcher';
  handler: ResourceWatcher;
  old: KubeObject | undefined;
}

interface ReconcilerRetry extends RetryBase {
  type: 'reconciler';
  handler: Reconciler;
  /** The request to send again; its `state` is the latest result's state. */
  request: ReconcileRequest;
}

type RetryEntry = WatcherRetry | ReconcilerRetry;
type WorkItem = EventItem | RetryEntry;
/** What a watcher call works on: a new event, or the retry of one it failed. */
type WatcherWork = EventItem | WatcherRetry;
/** What a reconciler call works on: a new event, or a retry (or requeue) of one. */
type ReconcilerWork = EventItem | ReconcilerRetry;

/** How a handler call failed: what it threw or rejected with, and the result a `ReconcileError` carried. */
class Failure {
  constructor(
    readonly error: unknown,
    readonly result?: ReconcileResult | undefined,
  ) {}
}

/** An object whose handler calls run now, in a sharded controller (see `InformerController.settle`). */
interface InFlightObject {
  readonly object: KubeObject;
  calls: number;
  readonly abort: AbortController;
}

const NO_WATCHERS: readonly ResourceWatcher[] = [];
const NO_RECONCILERS: readonly Reconciler[] = [];

const eventSpanName: Record<ResourceAction, string> = {
  CREATE: SpanNames.controllerEventAdd,
  UPDATE: SpanNames.controllerEventUpdate,
  DELETE: SpanNames.controllerEventDelete,
};

/**
 * Fans informer events out to watchers and reconcilers (grafana-app-sdk `InformerController`).
 *
 * Flow: each informer gets one handler that only enqueues (it never waits for user code); events
 * go into a per-object queue; a worker processes an object's events one at a time, in order:
 * every watcher of the kind in add order, then every reconciler in add order. A failing handler is
 * reported to `errorHandler` and retried alone, per `retryPolicy`; retries wait in one scheduler
 * and re-enter the object's queue, so they stay ordered with the object's new events. Different
 * objects run concurrently, up to `maxConcurrentWorkers`. Informers of other kinds added with `owns`
 * or `watches` queue resyncs of the primary objects their events map to, in those primaries' queues.
 *
 * Guarantees: at-least-once delivery of every event accepted while running (handlers must be
 * idempotent); never two handler calls at once for one object; queued, not started updates of one
 * object coalesce (oldest `old`, newest `new`). Caveats: queued work is dropped at shutdown (the
 * next start lists every object again); retries are in memory only.
 */
export class InformerController {
  /** See {@link InformerControllerConfig.errorHandler}; may be replaced at any time. */
  errorHandler: ErrorHandler;
  /** See {@link InformerControllerConfig.retryPolicy}; may be replaced at any time. */
  retryPolicy: RetryPolicy;
  /** See {@link InformerControllerConfig.retryDequeuePolicy}; may be replaced at any time. */
  retryDequeuePolicy: RetryDequeuePolicy;

  /** See {@link InformerControllerConfig.name}. */
  readonly name: string | undefined;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly handlerTimeoutMs: number;
  private readonly lifecycle: ControllerLifecycle;
  /** With a shard ring: whether a handler call about an object may start (see {@link shardWith}). */
  private admits: ((object: KubeObject) => boolean) | undefined;
  /** With a shard ring: the objects whose handler calls run now, and what aborts them at a hand-over. */
  private readonly inFlight = new Map<string, InFlightObject>();
  private inFlightEnded: (() => void)[] = [];
  private readonly metrics: ControllerMetrics;
  private readonly queueMetrics: QueueMetrics;
  private readonly cacheMetrics: InformerCacheMetrics;
  /** Offered to every informer added; its collectors are published once one informer took them. */
  private readonly informerMetrics: InformerMetrics;
  private informerMetricsUsed = false;
  private readonly predicateFilters = new Map<string, PredicateFilter>();
  private readonly metricsNamespace: string | undefined;
  private readonly queue: WorkQueue<WorkItem>;
  private readonly scheduler: RetryScheduler<RetryEntry>;
  private readonly informers = new ListMap<string, Informer>();
  private readonly secondaries: SecondarySource[] = [];
  private readonly callLog: HandlerCallLog | undefined;
  /** Every informer started by this controller: one informer added several times (as a primary and a secondary) runs once. */
  private readonly started = new Set<Informer>();
  // Copy-on-write lists: an event iterates the list it started with, whatever is added or removed meanwhile.
  private readonly watchers = new Map<string, readonly ResourceWatcher[]>();
  private readonly reconcilers = new Map<string, readonly Reconciler[]>();

  constructor(config: InformerControllerConfig = {}) {
    this.errorHandler = config.errorHandler ?? DefaultErrorHandler;
    this.retryPolicy = config.retryPolicy ?? DefaultRetryPolicy;
    this.retryDequeuePolicy = config.retryDequeuePolicy ?? OpinionatedRetryDequeuePolicy;
    const clock = config.clock ?? realClock;
    this.clock = clock;
    this.logger = config.logger ?? consoleLogger;
    this.handlerTimeoutMs = config.handlerTimeoutMs ?? 0;
    this.name = config.name;
    if (!(this.handlerTimeoutMs >= 0) || !Number.isFinite(this.handlerTimeoutMs)) {
      throw new InvalidArgumentError(`handlerTimeoutMs must be a finite number >= 0, got ${this.handlerTimeoutMs}`);
    }
    const shutdownTimeoutMs = config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    if (!(shutdownTimeoutMs >= 0)) throw new InvalidArgumentError(`shutdownTimeoutMs must be >= 0, got ${shutdownTimeoutMs}`);
    this.lifecycle = new ControllerLifecycle({
      clock,
      shutdownTimeoutMs,
      name: 'InformerController',
      logger: this.logger,
      logAttributes: { component: 'InformerController' },
      cacheSyncTimeoutMs: config.cacheSyncTimeoutMs,
    });
    this.metrics = new ControllerMetrics({ namespace: config.metricsNamespace });
    this.informerMetrics = new InformerMetrics({ namespace: config.metricsNamespace });
    this.metricsNamespace = config.metricsNamespace;
    this.queueMetrics = new QueueMetrics({ clock, name: config.name, namespace: config.metricsNamespace });
    this.cacheMetrics = new InformerCacheMetrics({ clock, namespace: config.metricsNamespace });
    this.queue = new WorkQueue<WorkItem>({
      maxConcurrentWorkers: config.maxConcurrentWorkers,
      process: this.process,
      metrics: this.queueMetrics,
      coalesce: coalesceUpdates,
      onError: (err) => this.report(err, { source: 'controller' }),
      clock,
    });
    this.scheduler = new RetryScheduler<RetryEntry>({
      clock,
      resolutionMs: RETRY_TIMER_RESOLUTION_MS,
      onDue: (key, entry) => this.queue.add(key, entry, entry.priority),
    });
    this.metrics.setSources(
      () => this.queue.depth,
      () => this.scheduler.size,
    );
    this.callLog = config.callLog === false ? undefined : new HandlerCallLog(config.callLog);
  }

  /**
   * What the status page shows of this controller: its informers (synced, objects, last event,
   * reconnects), its queue (depth, the longest-waiting item) and its recent handler calls per object.
   * Walks the queue: call it on demand, not per event.
   */
  status(): ControllerStatus {
    const now = this.clock.now();
    const informers: InformerStatus[] = [];
    this.informers.rangeAll((kind, _i, informer) => informers.push(this.informerStatus(kind, 'primary', informer)));
    for (const source of this.secondaries) informers.push(this.informerStatus(source.registration.kind, source.method, source.informer));
    const oldest = this.queue.oldestQueued((item) => item.queuedAt);
    const log = this.callLog;
    return {
      name: this.name ?? '',
      now,
      running: this.lifecycle.synced,
      informers,
      queue: {
        depth: this.queue.depth,
        inFlight: this.queue.inFlight,
        pendingRetries: this.scheduler.size,
        longestWaiting: oldest === undefined ? undefined : { kind: oldest.item.kind, key: objectKey(oldest.item.object), waitingMs: now - oldest.at },
      },
      totals: { calls: log?.totalCalls ?? 0, errors: log?.failedCalls ?? 0, lastError: log?.lastError },
      objects: log?.objects() ?? [],
    };
  }

  private informerStatus(kind: string, role: InformerStatus['role'], informer: Informer): InformerStatus {
    const stats = this.informerMetricsUsed ? this.informerMetrics.statsOf(informer.schema().kind) : undefined;
    return {
      kind,
      role,
      synced: informer.hasSynced(),
      objects: informer.store.size,
      lastEventAt: stats === undefined || stats.lastEventMs === 0 ? undefined : stats.lastEventMs,
      watchConnects: stats?.watchConnects,
      restarts: stats?.restarts,
    };
  }

  /**
   * Adds an informer whose events go to the watchers and reconcilers of `resourceKind`. Several
   * informers may serve one kind (e.g. one per namespace). An informer added while the controller
   * runs is started at once.
   *
   * The informer's errors (list and watch failures, which it retries by itself, and failing handlers)
   * go to this controller's `errorHandler` with `source: 'informer'`, the kind and the `phase`, and
   * are counted in `controller_informer_errors_total`. This works for an informer with a public
   * `errorHandler` (as `KubernetesBasedInformer`): an errorHandler set on it before this call is kept
   * and called first; its default one (which only logs) is replaced, so errors are not logged twice.
   *
   * An informer that takes metrics after construction and has none (`KubernetesBasedInformer` created
   * without `metrics`) counts into this controller's `InformerMetrics`, published by `prometheusCollectors()`.
   * @param key the registration key: a string, or a `Kind` (see `resourceKindKey`). Default: the informer's own kind.
   * @throws InvalidArgumentError "informer cannot be nil", "resourceKind cannot be empty";
   *   `ErrInformerAlreadyAdded` when this informer was already added for this kind.
   */
  addInformer(informer: Informer, key?: ResourceKindKey, options: AddInformerOptions = {}): void {
    if (informer == null) throw new InvalidArgumentError('informer cannot be nil');
    const resourceKind = resourceKindKey(key ?? informer.schema());
    if (!resourceKind) throw new InvalidArgumentError('resourceKind cannot be empty');
    let duplicate = false;
    this.informers.range(resourceKind, (_i, existing) => {
      if (existing === informer) duplicate = true;
    });
    if (duplicate) throw ErrInformerAlreadyAdded;
    const predicates = options.predicates;
    informer.addEventHandler(this.filtered(resourceKind, predicates, this.enqueueHandler(resourceKind, informer), informer));
    // Added before (for another kind, or as a secondary): its errors and metrics are wired already.
    if (!this.isAdded(informer)) {
      chainInformerErrorHandler(informer, this.informerErrorHandler(resourceKind));
      if (offerInformerMetrics(informer, this.informerMetrics)) this.informerMetricsUsed = true;
      this.cacheMetrics.track(informer.schema().kind, informer);
    }
    this.informers.addItem(resourceKind, informer);
    if (this.lifecycle.state === 'running' || this.lifecycle.state === 'warming') this.startInformer(informer, resourceKind);
  }

  /**
   * Reconciles the primary that controls each object of `informer` (controller-runtime's `Owns()`,
   * kube-rs' `Controller::owns`): every add, update and delete of an object whose controller owner
   * reference (`controller: true`) points at the primary kind asks for a reconcile of that primary.
   * Owner references without `controller: true` are ignored. For an update, the owners of the old and
   * of the new object are both reconciled.
   *
   * The primary is read from the cache of the primary kind's informers (a primary not in the cache is
   * skipped) and queued in the primary's own per-object queue, behind its own events, as a resync: its
   * reconcilers (not its watchers) get `ReconcileAction.Resynced` with the cached primary. It coalesces
   * as any queued update: into a queued, not started create or update of the primary it adds nothing
   * (that reconcile runs after the secondary's change is in its cache); a primary update merges into it.
   * The secondary informer is run by the controller and waited for by the sync gate; its events are
   * counted and timed under its own kind (`kind="Deployment"`), its spans carry `trigger.*` attributes.
   * @example controller.owns(deployments, { primary: WebsiteKind })
   * @throws InvalidArgumentError when `informer` or `options.primary` is missing;
   *   `ErrInformerAlreadyAdded` when this informer was already added for this primary.
   */
  owns<S extends KubeObject>(informer: Informer<S>, options: OwnsOptions<S>): void {
    this.addSecondary(informer, options as OwnsOptions, controllerOwnerOf, 'owns');
  }

  /**
   * Reconciles the primaries that `options.map` returns for each object of `informer`
   * (controller-runtime's `Watches(source, EnqueueRequestsFromMapFunc(map))`, kube-rs'
   * `Controller::watches`): everything else as {@link owns}. For an update, `map` gets the old and the
   * new object.
   * @example controller.watches(secrets, { primary: WebsiteKind, map: (s) => websitesUsing(s) })
   * @throws InvalidArgumentError when `informer`, `options.primary` or `options.map` is missing;
   *   `ErrInformerAlreadyAdded` when this informer was already added for this primary.
   */
  watches<S extends KubeObject>(informer: Informer<S>, options: WatchesOptions<S>): void {
    const map = options?.map as SecondaryMapFunc | undefined;
    if (typeof map !== 'function') throw new InvalidArgumentError('watches needs options.map: the primaries an object stands for');
    this.addSecondary(informer, options as OwnsOptions, (object) => map(object), 'watches');
  }

  private addSecondary(informer: Informer, options: OwnsOptions, mapper: PrimaryMapper, method: 'owns' | 'watches'): void {
    if (informer == null) throw new InvalidArgumentError('informer cannot be nil');
    if (options?.primary == null) throw new InvalidArgumentError(`${method} needs options.primary: the registration key of the primary kind`);
    const primary = resourceKindKey(options.primary);
    if (!primary) throw new InvalidArgumentError('primary cannot be empty');
    if (this.secondaries.some((s) => s.informer === informer && s.primary === primary)) throw ErrInformerAlreadyAdded;
    const key = resourceKindKey(informer.schema());
    const source: SecondarySource = { informer, primary, mapper, method, registration: new Registration(key, informer, this.metrics) };
    informer.addEventHandler(this.filtered(key, options.predicates, this.secondaryHandler(source), informer));
    if (!this.isAdded(informer)) {
      chainInformerErrorHandler(informer, this.informerErrorHandler(key));
      if (offerInformerMetrics(informer, this.informerMetrics)) this.informerMetricsUsed = true;
      this.cacheMetrics.track(informer.schema().kind, informer);
    }
    this.secondaries.push(source);
    if (this.lifecycle.state === 'running' || this.lifecycle.state === 'warming') this.startInformer(informer, key);
  }

  /** True when `informer` was added already, as a primary or a secondary. */
  private isAdded(informer: Informer): boolean {
    if (this.secondaries.some((s) => s.informer === informer)) return true;
    let found = false;
    this.informers.rangeAll((_kind, _i, existing) => {
      if (existing === informer) found = true;
    });
    return found;
  }

  /**
   * Adds a watcher for `resourceKind`; watchers are called in the order they were added, before reconcilers.
   * @throws InvalidArgumentError "watcher cannot be nil", "resourceKind cannot be empty".
   */
  addWatcher(watcher: ResourceWatcher, key: ResourceKindKey): void {
    if (watcher == null) throw new InvalidArgumentError('watcher cannot be nil');
    const resourceKind = resourceKindKey(key);
    if (!resourceKind) throw new InvalidArgumentError('resourceKind cannot be empty');
    this.watchers.set(resourceKind, [...(this.watchers.get(resourceKind) ?? NO_WATCHERS), watcher]);
  }

  /**
   * Adds a reconciler for `resourceKind`; reconcilers are called in the order they were added, after watchers.
   * @throws InvalidArgumentError "reconciler cannot be nil", "resourceKind cannot be empty".
   */
  addReconciler(reconciler: Reconciler, key: ResourceKindKey): void {
    if (reconciler == null) throw new InvalidArgumentError('reconciler cannot be nil');
    const resourceKind = resourceKindKey(key);
    if (!resourceKind) throw new InvalidArgumentError('resourceKind cannot be empty');
    this.reconcilers.set(resourceKind, [...(this.reconcilers.get(resourceKind) ?? NO_RECONCILERS), reconciler]);
  }

  /** Removes the first registration of `watcher` for `resourceKind`, keeping the order of the others. Never throws. */
  removeWatcher(watcher: ResourceWatcher, key: ResourceKindKey): void {
    removeFirst(this.watchers, resourceKindKey(key), watcher);
  }

  /** Removes the first registration of `reconciler` for `resourceKind`, keeping the order of the others. Never throws. */
  removeReconciler(reconciler: Reconciler, key: ResourceKindKey): void {
    removeFirst(this.reconcilers, resourceKindKey(key), reconciler);
  }

  /** Removes every watcher of `resourceKind`. */
  removeAllWatchersForResource(key: ResourceKindKey): void {
    this.watchers.delete(resourceKindKey(key));
  }

  /** Removes every reconciler of `resourceKind`. */
  removeAllReconcilersForResource(key: ResourceKindKey): void {
    this.reconcilers.delete(resourceKindKey(key));
  }

  /**
   * The metric collectors of this controller, for the user to register: the controller's families, plus the
   * `informer_*` families once an informer counts into the controller's `InformerMetrics` (see `addInformer`).
   */
  prometheusCollectors(): PrometheusCollector[] {
    const collectors = [...this.metrics.collectors(), ...this.predicateCollectors(), ...this.queueMetrics.collectors(), ...this.cacheMetrics.collectors()];
    return this.informerMetricsUsed ? [...collectors, ...this.informerMetrics.collectors()] : collectors;
  }

  /** Resolves when no event or due retry is queued or running (retries waiting for their time do not count). */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /**
   * Starts the informers, the queue workers and the retry scheduler; resolves once `signal` has
   * aborted and running handlers and informers have finished (or `shutdownTimeoutMs` passed).
   * Rejects with an informer's error when an informer fails (after stopping everything).
   * A controller runs once.
   */
  async run(signal: AbortSignal): Promise<void> {
    // A typo in a registration key silently yields zero calls: say so once, at start.
    const informerKeys: string[] = [];
    this.informers.rangeAll((kind) => informerKeys.push(kind));
    const reconcilerKeys = [...this.reconcilers.keys()];
    const messages = [
      ...unmatchedRegistrations(informerKeys, [...this.watchers.keys()], reconcilerKeys),
      ...unmatchedSecondaries(this.secondaries.map((s) => ({ method: s.method, secondary: s.registration.kind, primary: s.primary })), informerKeys, reconcilerKeys),
    ];
    for (const message of messages) this.logger.warn(message, { component: 'InformerController' });
    await this.lifecycle.run(signal, {
      queue: this.queue,
      scheduler: this.scheduler,
      startInformers: () => this.startInformers(),
      informers: () => this.allInformers(),
    });
  }

  /**
   * Warm replica: starts the informers before `run()` (e.g. while not the leader) so that their caches
   * fill; no handler runs until `run()`, whose sync gate then opens without a relist. Resolves once
   * `run()` has taken the informers over, or once `signal` aborted and they stopped; rejects with an
   * informer's configuration error. See `ControllerLifecycle.warmUp`.
   */
  warmUp(signal: AbortSignal): Promise<void> {
    return this.lifecycle.warmUp(signal, { startInformers: () => this.startInformers() });
  }

  /**
   * Shards the controller (called by the operator with a `ShardRing`): from now on a handler call
   * about an object starts only while `admits(object)` is true when it is due; work about objects
   * refused is dropped (it belongs to another replica). `undefined` turns the check off. Default: off.
   */
  shardWith(admits: ((object: KubeObject) => boolean) | undefined): void {
    this.admits = admits;
  }

  /**
   * Resolves once no handler call about an object `match` accepts is running. Calls still running
   * after `timeoutMs` have their signal aborted with a {@link HandedOverError}, and are still waited
   * for. Only a sharded controller (see {@link shardWith}) tracks its calls; otherwise it resolves at once.
   */
  async settle(match: (object: KubeObject) => boolean, options: { timeoutMs: number }): Promise<void> {
    const running = (): InFlightObject[] => [...this.inFlight.values()].filter((entry) => match(entry.object));
    let timedOut = false;
    const timer = this.clock.setTimer(options.timeoutMs, () => {
      timedOut = true;
      for (const entry of running()) entry.abort.abort(new HandedOverError());
      for (const waiter of this.inFlightEnded.splice(0)) waiter();
    });
    try {
      while (running().length > 0) {
        if (timedOut) for (const entry of running()) if (!entry.abort.signal.aborted) entry.abort.abort(new HandedOverError());
        await new Promise<void>((resolve) => this.inFlightEnded.push(resolve));
      }
    } finally {
      timer.cancel();
    }
  }

  /** The informers added to this controller that follow a shard ring's slots (`ShardedInformer`s). */
  shardedInformers(): ShardedInformer[] {
    return this.allInformers().filter((informer): informer is ShardedInformer => informer instanceof ShardedInformer);
  }

  /** True while running once every informer (added before the gate opened) has synced and handlers run (readiness). */
  hasSynced(): boolean {
    return this.lifecycle.synced;
  }

  /** True while warming up or running once every informer has synced (a warm follower's readiness); says nothing about workers. */
  cachesSynced(): boolean {
    return this.lifecycle.cachesSynced;
  }

  private startInformers(): void {
    this.informers.rangeAll((kind, _i, informer) => this.startInformer(informer, kind));
    for (const source of this.secondaries) this.startInformer(source.informer, source.registration.kind);
  }

  /** Every informer of the controller, primaries and secondaries, each once: the sync gate waits for all of them. */
  private allInformers(): Informer[] {
    const all = new Set<Informer>();
    this.informers.rangeAll((_kind, _i, informer) => all.add(informer));
    for (const source of this.secondaries) all.add(source.informer);
    return [...all];
  }

  // --- informer side: synchronous and cheap ---

  /** `handler` behind `predicates`, when there are some. */
  private filtered(kind: string, predicates: readonly Predicate[] | undefined, handler: ResourceWatcher, informer: Informer): ResourceWatcher {
    if (predicates === undefined || predicates.length === 0) return handler;
    // Predicates filter events; a release is not one (the object moved away whatever it holds).
    const filtered = this.predicateFilter(kind).handler(predicates, handler, informer);
    return handler.release === undefined ? filtered : { add: filtered.add.bind(filtered), update: filtered.update.bind(filtered), delete: filtered.delete.bind(filtered), release: handler.release.bind(handler) };
  }

  /** One filter (and metric child) per kind; the counter is shared so it is registered once. */
  private predicateFilter(kind: string): PredicateFilter {
    let filter = this.predicateFilters.get(kind);
    if (filter === undefined) {
      filter = new PredicateFilter({
        controller: kind,
        namespace: this.metricsNamespace,
        counter: this.predicateFilters.values().next().value?.counter,
        onError: (err, event) => this.report(err, { resourceKind: kind, objectKey: objectKey(event.object), source: 'controller' }),
      });
      this.predicateFilters.set(kind, filter);
    }
    return filter;
  }

  private predicateCollectors(): PrometheusCollector[] {
    const first = this.predicateFilters.values().next().value;
    return first === undefined ? [] : first.collectors();
  }

  /** The handler a registration adds to its informer: it only queues (see {@link enqueue}). */
  private enqueueHandler(kind: string, informer: Informer): ResourceWatcher {
    const registration = new Registration(kind, informer, this.metrics);
    return {
      add: (_ctx, object) => {
        this.enqueue(registration, 'CREATE', undefined, object);
        return HANDLED;
      },
      update: (_ctx, old, object) => {
        this.enqueue(registration, 'UPDATE', old, object);
        return HANDLED;
      },
      delete: (_ctx, object) => {
        this.enqueue(registration, 'DELETE', undefined, object);
        return HANDLED;
      },
      release: (_ctx, object) => this.releaseObject(kind, object),
    };
  }

  /** Tells the kind's watchers and reconcilers that have `release` that `object` moved to another replica. */
  private async releaseObject(kind: string, object: KubeObject): Promise<void> {
    const handlers: { release?(ctx: HandlerContext, object: KubeObject): Promise<void> }[] = [...(this.watchers.get(kind) ?? NO_WATCHERS), ...(this.reconcilers.get(kind) ?? NO_RECONCILERS)];
    for (const handler of handlers) {
      if (typeof handler.release !== 'function') continue;
      try {
        await handler.release(this.handlerContext(object, false), object);
      } catch (error) {
        this.report(error, { resourceKind: kind, objectKey: objectKey(object), source: 'controller' });
      }
    }
  }

  /** Queues an event; adds from the informer's initial list and resyncs wait behind fresh changes (`LOW_PRIORITY`). */
  private enqueue(registration: Registration, action: ResourceAction, old: KubeObject | undefined, object: KubeObject): void {
    const kind = registration.kind;
    const metrics = registration.metricsOf(object, action);
    metrics.events.inc();
    // Bad input is reported, never thrown into the informer.
    if (object == null || typeof object.metadata !== 'object' || object.metadata === null) {
      this.report(ErrNilObject, { resourceKind: kind, action, source: 'controller' });
      return;
    }
    const initialList = action === 'CREATE' && !registration.informer.hasSynced();
    const lowPriority = initialList || (action === 'UPDATE' && old !== undefined && isResync(old, object));
    const item: EventItem = { type: 'event', kind, action, old, object, metrics, trace: tracingEnabled() ? context.active() : undefined, initialList };
    if (this.queue.add(queueKey(kind, object), item, lowPriority ? LOW_PRIORITY : undefined) === 'coalesced') metrics.coalesced.inc();
  }

  /** The handler a secondary source adds to its informer: it maps each event to primaries and queues their resyncs. */
  private secondaryHandler(source: SecondarySource): ResourceWatcher {
    return {
      add: (_ctx, object) => {
        this.enqueueSecondary(source, 'CREATE', undefined, object);
        return HANDLED;
      },
      update: (_ctx, old, object) => {
        this.enqueueSecondary(source, 'UPDATE', old, object);
        return HANDLED;
      },
      delete: (_ctx, object) => {
        this.enqueueSecondary(source, 'DELETE', undefined, object);
        return HANDLED;
      },
    };
  }

  /**
   * Queues a resync of each primary a secondary event maps to, read from the primary kind's cache (a
   * primary not there is skipped), in the primary's own queue. Its priority is the secondary event's:
   * adds of the secondary's initial list and its resyncs wait behind fresh changes.
   */
  private enqueueSecondary(source: SecondarySource, action: ResourceAction, old: KubeObject | undefined, object: KubeObject): void {
    const secondaryKind = source.registration.kind;
    const metrics = source.registration.metricsOf(object, action);
    metrics.events.inc();
    if (object == null || typeof object.metadata !== 'object' || object.metadata === null) {
      this.report(ErrNilObject, { resourceKind: secondaryKind, action, source: 'controller' });
      return;
    }
    const [firstPrimary] = this.informers.itemAt(source.primary, 0);
    if (firstPrimary === undefined) return;
    const primarySchema = firstPrimary.schema();
    let primaries: Map<string, Identifier>;
    try {
      primaries = primariesOf(source.mapper, primarySchema, object, old);
    } catch (err) {
      this.report(err, { resourceKind: secondaryKind, objectKey: objectKey(object), action, source: 'controller' });
      return;
    }
    if (primaries.size === 0) return;
    const lowPriority = (action === 'CREATE' && !source.informer.hasSynced()) || (action === 'UPDATE' && old !== undefined && isResync(old, object));
    const trigger: SecondaryTrigger = { kind: secondaryKind, action, object };
    const trace = tracingEnabled() ? context.active() : undefined;
    for (const id of primaries.values()) {
      const primary = cachedObject(this.informers, source.primary, id);
      if (primary === undefined) continue;
      const item: EventItem = { type: 'event', kind: source.primary, action: 'UPDATE', old: primary, object: primary, metrics, trace, initialList: false, trigger };
      if (this.queue.add(queueKey(source.primary, primary), item, lowPriority ? LOW_PRIORITY : undefined) === 'coalesced') metrics.coalesced.inc();
    }
  }

  /** Runs `informer` (once, however many times it was added). */
  private startInformer(informer: Informer, kind: string): void {
    if (this.started.has(informer)) return;
    this.started.add(informer);
    this.lifecycle.runInformer(informer, (err) => this.report(err, { resourceKind: kind, source: 'informer' }));
  }

  /** Reports and counts an error of an informer of `kind` (see {@link addInformer}). */
  private informerErrorHandler(kind: string): (context: InformerErrorContext, error: unknown) => void {
    return (context, error) => {
      if (this.lifecycle.isShutdownAbort(error)) return;
      this.metrics.informerErrorsTotal.labels(kind, context.phase).inc();
      const object = context.object;
      const key = object?.metadata?.name !== undefined ? objectKey(object) : '';
      this.report(error, { resourceKind: kind, objectKey: key, source: 'informer', phase: context.phase });
    };
  }

  // --- worker side ---
  // Plain async code: one async function per event or retry. A handler that returns no promise is not
  // awaited; no span is created while tracing is off; a retry entry is built only when a retry is scheduled.
  // The async function costs a synchronous handler about 0.4 us per event, +3% CPU per event end to end
  // (median of 5 interleaved ingest runs against the former hand-built continuations): under the 5% bar
  // for a hand-optimised sync path (docs/benchmarks.md, "InformerController event path").

  private readonly process = (key: string, item: WorkItem): Promise<void> | undefined => {
    if (this.admits === undefined) return this.processItem(key, item);
    // Sharded: an object of a slot this replica does not run (any more) gets no call; its queued
    // work and retries end here. The call's signal aborts when a hand-over waits too long for it.
    if (!this.admits(item.object)) return undefined;
    let entry = this.inFlight.get(key);
    if (entry === undefined) this.inFlight.set(key, (entry = { object: item.object, calls: 0, abort: new AbortController() }));
    entry.calls++;
    const ended = (): void => {
      const current = this.inFlight.get(key);
      if (current !== undefined && --current.calls === 0) this.inFlight.delete(key);
      for (const waiter of this.inFlightEnded.splice(0)) waiter();
    };
    let pending: Promise<void> | undefined;
    try {
      pending = this.processItem(key, item);
    } finally {
      if (pending === undefined) ended();
    }
    return pending?.finally(ended);
  };

  private processItem(key: string, item: WorkItem): Promise<void> | undefined {
    switch (item.type) {
      case 'event':
        return this.processEvent(key, item);
      case 'watcher':
        // A handler removed since the failure gets no more calls.
        return (this.watchers.get(item.kind) ?? NO_WATCHERS).includes(item.handler) ? this.retryWatcher(item) : undefined;
      case 'reconciler':
        return (this.reconcilers.get(item.kind) ?? NO_RECONCILERS).includes(item.handler) ? this.retryReconciler(item) : undefined;
    }
  }

  /**
   * Calls every watcher, then every reconciler of the event's kind, one at a time, in add order, in one
   * span per event (upstream's controller-event-*: watchers run in it, reconcile spans are its
   * children). A handler's end time is the next one's start time (one clock read per handler).
   */
  private async processEvent(key: string, event: EventItem): Promise<void> {
    // A secondary's resync is for reconcilers: no event of the primary happened that watchers would be told of.
    const watchers = event.trigger === undefined ? (this.watchers.get(event.kind) ?? NO_WATCHERS) : NO_WATCHERS;
    const reconcilers = this.reconcilers.get(event.kind) ?? NO_RECONCILERS;
    if (watchers.length === 0 && reconcilers.length === 0) return;
    const metrics = event.metrics;
    metrics.ongoingEvents.inc();
    const startedAt = performance.now();
    const span = event.trace !== undefined ? startObjectSpan(eventSpanName[event.action], event.object, event.trace) : undefined;
    if (span !== undefined && event.trigger !== undefined) span.setAttributes(triggerSpanAttributes(event.trigger));
    let now = startedAt;
    try {
      for (const watcher of watchers) {
        this.dequeueRetries(key, watcher, event);
        metrics.ongoingProcesses.inc();
        let failure: Failure | undefined;
        try {
          const pending = this.startWatcher(watcher, event, span);
          if (pending !== undefined) await pending;
        } catch (error) {
          failure = new Failure(error);
          if (span !== undefined) this.recordFailure(span, error);
        }
        now = this.watcherEnded(watcher, event, now, failure);
      }
      for (const reconciler of reconcilers) {
        this.dequeueRetries(key, reconciler, event);
        metrics.ongoingProcesses.inc();
        // Started in the event span's context: the controller-event-reconcile span is its child.
        const callSpan = span === undefined ? undefined : runInSpan(span, () => startObjectSpan(SpanNames.controllerEventReconcile, event.object));
        const request = requestOf(event);
        let outcome: ReconcileResult | Failure | undefined;
        try {
          const pending = this.startReconciler(reconciler, request, event.object, callSpan);
          outcome = isPromiseLike(pending) ? await pending : pending;
        } catch (error) {
          outcome = reconcileFailure(error);
        }
        if (callSpan !== undefined) endSpan(callSpan, this.spanError(outcome, 'reconcile failed'));
        now = this.reconcilerEnded(reconciler, event, request, now, outcome);
      }
    } finally {
      metrics.ongoingEvents.dec();
      metrics.eventDuration.observe((now - startedAt) / 1000);
      if (span !== undefined) endSpan(span);
    }
  }

  /** Calls a watcher again for an event it failed, in a controller-retry span. */
  private async retryWatcher(retry: WatcherRetry): Promise<void> {
    const span = this.startSpan(SpanNames.controllerRetry, retry.object);
    retry.metrics.ongoingProcesses.inc();
    const startedAt = performance.now();
    let failure: Failure | undefined;
    try {
      const pending = this.startWatcher(retry.handler, retry, span);
      if (pending !== undefined) await pending;
    } catch (error) {
      failure = new Failure(error);
    }
    if (span !== undefined) endSpan(span, this.spanError(failure, 'handler failed'));
    this.watcherEnded(retry.handler, retry, startedAt, failure);
  }

  /** Calls a reconciler again with its retry's request, in a controller-retry span. */
  private async retryReconciler(retry: ReconcilerRetry): Promise<void> {
    const span = this.startSpan(SpanNames.controllerRetry, retry.object);
    retry.metrics.ongoingProcesses.inc();
    const startedAt = performance.now();
    let outcome: ReconcileResult | Failure | undefined;
    try {
      const pending = this.startReconciler(retry.handler, retry.request, retry.object, span);
      outcome = isPromiseLike(pending) ? await pending : pending;
    } catch (error) {
      outcome = reconcileFailure(error);
    }
    if (span !== undefined) endSpan(span, this.spanError(outcome, 'reconcile failed'));
    this.reconcilerEnded(retry.handler, retry, retry.request, startedAt, outcome);
  }

  /** A span about `object`, or undefined while tracing is off (no provider: spans would be no-ops). */
  private startSpan(name: string, object: KubeObject): Span | undefined {
    return tracingEnabled() ? startObjectSpan(name, object) : undefined;
  }

  /** Calls the watcher method of the work's action (in `span` when tracing); undefined when it returned no promise. */
  private startWatcher(watcher: ResourceWatcher, work: WatcherWork, span: Span | undefined): Promise<void> | undefined {
    const result = span === undefined ? this.invokeWatcher(watcher, work) : runInSpan(span, () => this.invokeWatcher(watcher, work));
    return isPromiseLike(result) ? result : undefined;
  }

  private invokeWatcher(watcher: ResourceWatcher, work: WatcherWork): Promise<void> | void {
    const ctx = this.handlerContext(work.object, work.type === 'event' && work.initialList);
    if (this.handlerTimeoutMs > 0) return callWithTimeout(ctx, this.handlerTimeoutMs, this.clock, (timed) => callWatcherMethod(watcher, timed, work));
    return callWatcherMethod(watcher, ctx, work);
  }

  /** Calls `reconciler` with `request` (in `span` when tracing). */
  private startReconciler(reconciler: Reconciler, request: ReconcileRequest, object: KubeObject, span: Span | undefined): Promise<ReconcileResult> | ReconcileResult {
    return span === undefined ? this.invokeReconciler(reconciler, request, object) : runInSpan(span, () => this.invokeReconciler(reconciler, request, object));
  }

  private invokeReconciler(reconciler: Reconciler, request: ReconcileRequest, object: KubeObject): Promise<ReconcileResult> | ReconcileResult {
    const ctx = this.handlerContext(object, false);
    if (this.handlerTimeoutMs > 0) return callWithTimeout(ctx, this.handlerTimeoutMs, this.clock, (timed) => reconciler.reconcile(timed, request));
    return reconciler.reconcile(ctx, request);
  }

  /** The context of one handler call about `object`: the controller's signal (see `handlerTimeoutMs` for a deadline of its own), and with a ring whether the object is still this replica's. */
  private handlerContext(object: KubeObject, initialList: boolean): ObjectHandlerContext {
    const admits = this.admits;
    const handOver = admits === undefined ? undefined : this.inFlightOf(object)?.abort.signal;
    const signal = handOver === undefined ? this.lifecycle.ctx.signal : AbortSignal.any([this.lifecycle.ctx.signal, handOver]);
    return new ObjectHandlerContext(signal, this.logger, object, initialList || undefined, admits === undefined ? undefined : () => admits(object));
  }

  private inFlightOf(object: KubeObject): InFlightObject | undefined {
    for (const entry of this.inFlight.values()) if (entry.object.metadata.uid === object.metadata.uid && entry.object.metadata.name === object.metadata.name) return entry;
    return undefined;
  }

  /** The error a call's span records, from its `outcome`: none on success or when only the shutdown's abort ended it. */
  private spanError(outcome: unknown, fallback: string): unknown {
    if (!(outcome instanceof Failure) || this.lifecycle.isShutdownAbort(outcome.error)) return undefined;
    return outcome.error ?? new Error(fallback);
  }

  /** A watcher of the event failed: the event span records it (unless it is only the shutdown's abort). */
  private recordFailure(span: Span, error: unknown): void {
    if (!this.lifecycle.isShutdownAbort(error)) recordSpanError(span, error ?? new Error('handler failed'));
  }

  /**
   * A watcher call ended: its duration, and on `failure` (unless the shutdown aborted it) its count,
   * its report and its retry per the retry policy. Returns the end time.
   */
  private watcherEnded(watcher: ResourceWatcher, work: WatcherWork, startedAt: number, failure: Failure | undefined): number {
    const now = performance.now();
    const metrics = work.metrics;
    metrics.ongoingProcesses.dec();
    metrics.watcherDuration.observe((now - startedAt) / 1000);
    if (failure === undefined) {
      const log = this.callLog;
      if (log !== undefined) log.record(work.kind, objectKey(work.object), { at: this.clock.now(), handler: 'watcher', action: work.action, attempt: work.type === 'watcher' ? work.attempt : 0, result: 'ok', durationMs: now - startedAt });
      return now;
    }
    // Gave up because the shutdown aborted its signal (however wrapped): not an error.
    if (this.lifecycle.isShutdownAbort(failure.error)) return now;
    const error = failure.error;
    metrics.watcherErrors.inc();
    const attempt = work.type === 'watcher' ? work.attempt + 1 : 0;
    const [again, delayMs] = this.decideRetry(error, attempt);
    this.report(error, { resourceKind: work.kind, objectKey: objectKey(work.object), action: work.action, source: 'watcher', attempt, retryAfterMs: again ? delayMs : undefined });
    this.callLog?.record(
      work.kind,
      objectKey(work.object),
      { at: this.clock.now(), handler: 'watcher', action: work.action, attempt, result: 'error', durationMs: now - startedAt, retryInMs: again ? delayMs : undefined },
      error,
    );
    if (again) {
      const { kind, action, object, old } = work;
      this.scheduleRetry({ type: 'watcher', handler: watcher, kind, action, object, old, attempt, error, metrics }, delayMs, 'error');
    }
    return now;
  }

  /**
   * A reconciler call of `request` ended with `outcome` (its result, or its failure): its duration, and
   * unless the shutdown aborted it, `requeueAfter` (which wins over an error and keeps the attempt) or
   * the retry policy on failure. The result's state replaces the request's state for every later
   * retry. Returns the end time.
   */
  private reconcilerEnded(reconciler: Reconciler, work: ReconcilerWork, request: ReconcileRequest, startedAt: number, outcome: ReconcileResult | Failure | undefined): number {
    const now = performance.now();
    const metrics = work.metrics;
    metrics.ongoingProcesses.dec();
    metrics.reconcilerDuration.observe((now - startedAt) / 1000);
    const failure = outcome instanceof Failure ? outcome : undefined;
    if (failure !== undefined && this.lifecycle.isShutdownAbort(failure.error)) return now;
    if (failure !== undefined) metrics.reconcilerErrors.inc();
    const result = failure !== undefined ? failure.result : (outcome as ReconcileResult | undefined);
    const requeueAfter = result?.requeueAfter;
    const requeueMs = requeueAfter == null ? Number.NaN : toMillis(requeueAfter);
    const log = this.callLog;
    const durationMs = now - startedAt;
    if (Number.isNaN(requeueMs) && failure === undefined) {
      if (log !== undefined) {
        const call = { at: this.clock.now(), handler: 'reconciler', action: reconcileActionName(request), attempt: work.type === 'reconciler' ? work.attempt : 0, result: 'ok', durationMs } as const;
        log.record(work.kind, objectKey(work.object), call);
      }
      return now;
    }

    const error = failure?.error;
    const next: ReconcileRequest = result?.state !== undefined ? { ...request, state: result.state } : request;
    const previousAttempt = work.type === 'reconciler' ? work.attempt : 0;
    const failedAttempt = work.type === 'reconciler' ? work.attempt + 1 : 0;
    const where = { resourceKind: work.kind, objectKey: objectKey(work.object), action: work.action, source: 'reconciler' } as const;
    const { kind, action, object } = work;
    if (!Number.isNaN(requeueMs)) {
      if (failure !== undefined) this.report(error, { ...where, attempt: failedAttempt, retryAfterMs: requeueMs });
      const attempt = failure !== undefined ? failedAttempt : previousAttempt;
      log?.record(kind, where.objectKey, { at: this.clock.now(), handler: 'reconciler', action: reconcileActionName(request), attempt, result: failure !== undefined ? 'error' : 'requeue', durationMs, retryInMs: requeueMs }, error);
      this.scheduleRetry({ type: 'reconciler', handler: reconciler, kind, action, object, request: next, attempt: previousAttempt, error, metrics }, requeueMs, 'requeue');
      return now;
    }
    const [again, delayMs] = this.decideRetry(error, failedAttempt);
    this.report(error, { ...where, attempt: failedAttempt, retryAfterMs: again ? delayMs : undefined });
    log?.record(kind, where.objectKey, { at: this.clock.now(), handler: 'reconciler', action: reconcileActionName(request), attempt: failedAttempt, result: 'error', durationMs, retryInMs: again ? delayMs : undefined }, error);
    if (again) this.scheduleRetry({ type: 'reconciler', handler: reconciler, kind, action, object, request: next, attempt: failedAttempt, error, metrics }, delayMs, 'error');
    return now;
  }

  private decideRetry(error: unknown, attempt: number): [boolean, number] {
    if (isTerminalError(error)) return [false, 0];
    try {
      const [retry, delayMs] = this.retryPolicy(error, attempt);
      return retry ? [true, delayMs > 0 ? delayMs : 0] : [false, 0];
    } catch (policyError) {
      this.report(policyError, { source: 'controller' });
      return [false, 0];
    }
  }

  private scheduleRetry(entry: RetryEntry, delayMs: number, reason: 'error' | 'requeue'): void {
    if (this.lifecycle.stopping) return;
    entry.metrics.retry(entry.type, reason);
    const key = queueKey(entry.kind, entry.object);
    entry.priority = this.queue.processingPriority(key);
    this.scheduler.schedule(key, entry, delayMs);
  }

  /**
   * Before `handler` gets a new event of an object: applies the dequeue policy to its pending retries
   * for that object (waiting or queued), and makes each retry it keeps carry the new event's object,
   * so that a retry, which runs after this event, never hands the handler an older state than the one
   * it is about to see (a mirroring handler would otherwise end on the stale state).
   */
  private dequeueRetries(key: string, handler: ResourceWatcher | Reconciler, event: EventItem): void {
    if (!this.scheduler.hasPending(key) && this.queue.queuedItems(key).length === 0) return;
    const { action, object, metrics } = event;
    const policy = this.retryDequeuePolicy;
    const drop = (item: WorkItem): boolean => {
      if (item.type === 'event' || item.handler !== handler) return false;
      try {
        return policy(action, object, item.action, item.object, item.error);
      } catch (err) {
        this.report(err, { source: 'controller' });
        return false;
      }
    };
    const dropped = this.scheduler.cancel(key, drop).length + this.queue.removeQueued(key, drop).length;
    if (dropped > 0) metrics.droppedRetries.inc(dropped);
    if (action === 'DELETE') return;
    for (const item of [...this.scheduler.entries(key), ...this.queue.queuedItems(key)]) {
      if (item.type !== 'event' && item.handler === handler) refreshRetry(item, object);
    }
  }

  private report(error: unknown, where: Partial<ErrorHandlerContext> & Pick<ErrorHandlerContext, 'source'>): void {
    const ctx: ErrorHandlerContext = {
      signal: this.lifecycle.ctx.signal,
      logger: this.logger,
      resourceKind: where.resourceKind ?? '',
      objectKey: where.objectKey ?? '',
      action: where.action ?? '',
      source: where.source,
      phase: where.phase,
      attempt: where.attempt ?? 0,
      retryAfterMs: where.retryAfterMs,
    };
    try {
      this.errorHandler(ctx, error);
    } catch (handlerError) {
      this.logger.error('InformerController errorHandler threw', { component: 'InformerController', error: handlerError });
    }
  }

}

/** Calls the method of `watcher` for the work's action. */
function callWatcherMethod(watcher: ResourceWatcher, ctx: HandlerContext, work: WatcherWork): Promise<void> {
  const { action, old, object } = work;
  return action === 'CREATE' ? watcher.add(ctx, object) : action === 'UPDATE' ? watcher.update(ctx, old ?? object, object) : watcher.delete(ctx, object);
}

/** The request a reconciler gets for an event: a resync (the same object again) is `Resynced`. */
function requestOf(event: EventItem): ReconcileRequest {
  const { action, old, object } = event;
  const resynced = action === 'UPDATE' && old !== undefined && isResync(old, object);
  return { action: resynced ? ReconcileAction.Resynced : reconcileActionFromResourceAction(action), object };
}

/** `Created`, `Updated`, `Deleted` or `Resynced`: the name the status page shows of a reconcile's action. */
function reconcileActionName(request: ReconcileRequest): string {
  return ReconcileAction[request.action] ?? String(request.action);
}

/** A reconciler's failure: a `ReconcileError` carries a result besides its cause. */
function reconcileFailure(error: unknown): Failure {
  return isReconcileError(error) ? new Failure(error.cause, error.result) : new Failure(error);
}

/** A handler typed to return a promise may still return a plain value (plain JavaScript callers). */
function isPromiseLike<R>(value: Promise<R> | R): value is Promise<R> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** One informer added for a kind, as its event handler needs it. */
class Registration {
  private labelKind = '';
  private byAction: KindEventMetrics | undefined;

  constructor(
    readonly kind: string,
    readonly informer: Informer,
    private readonly metrics: ControllerMetrics,
  ) {}

  /**
   * The metric children of an event. Their `kind` label is the object's kind, as upstream
   * (`obj.GetStaticMetadata().Kind`), not the registration string; the objects of one informer share
   * it, so the children are looked up again only when it changes.
   */
  metricsOf(object: KubeObject | undefined, action: ResourceAction): BoundEventMetrics {
    const kind = typeof object?.kind === 'string' && object.kind !== '' ? object.kind : this.kind;
    if (this.byAction === undefined || kind !== this.labelKind) {
      this.labelKind = kind;
      this.byAction = this.metrics.forKind(kind);
    }
    return this.byAction[action];
  }
}

/** The queue key of an object of a kind: one queue per object, shared by every informer of the kind. */
function queueKey(kind: string, object: KubeObject): string {
  return `${kind}\u0000${objectKey(object)}`;
}

/**
 * Makes a kept retry carry `newer`, the object of a newer event of the same object. A retry of a
 * delete keeps its object (the final state), and so does one of another object that had the same
 * name (a different uid). An update retry keeps its `old`: old -> newer is the net change.
 */
function refreshRetry(retry: RetryEntry, newer: KubeObject): void {
  if (retry.action === 'DELETE' || retry.object === newer) return;
  const uid = retry.object.metadata.uid;
  if (uid !== undefined && newer.metadata.uid !== undefined && uid !== newer.metadata.uid) return;
  retry.object = newer;
  if (retry.type === 'reconciler') retry.request = { ...retry.request, object: newer };
}

/**
 * Merges a queued, not started UPDATE with an incoming UPDATE of the same object: oldest `old`, newest
 * `new`. A secondary's resync adds nothing to a queued create or update of its primary (that reconcile
 * runs after the secondary's change reached its cache); a primary's update merged into a secondary's
 * resync makes it that update, for watchers too, with the `old` watchers were last handed.
 */
function coalesceUpdates(queued: WorkItem, incoming: WorkItem): WorkItem | undefined {
  if (queued.type !== 'event' || incoming.type !== 'event') return undefined;
  if (incoming.trigger !== undefined && queued.action !== 'DELETE') return queued;
  if (queued.action !== 'UPDATE' || incoming.action !== 'UPDATE') return undefined;
  if (queued.trigger !== undefined) {
    queued.trigger = undefined;
    queued.old = incoming.old;
    queued.metrics = incoming.metrics;
    queued.trace = incoming.trace;
  }
  queued.object = incoming.object;
  return queued;
}

/** The object under `id` in the cache of the first informer of `kind` that has it. */
function cachedObject(informers: ListMap<string, Informer>, kind: string, id: Identifier): KubeObject | undefined {
  const key = identifierKey(id);
  for (let i = 0, n = informers.keySize(kind); i < n; i++) {
    const object = informers.itemAt(kind, i)[0]?.store.get(key);
    if (object !== undefined) return object;
  }
  return undefined;
}

/** What a resync span says of the secondary event that asked for it. */
function triggerSpanAttributes(trigger: SecondaryTrigger): Record<string, string> {
  return {
    'trigger.kind': trigger.kind,
    'trigger.event': trigger.action,
    'trigger.namespace': trigger.object.metadata.namespace ?? '',
    'trigger.name': trigger.object.metadata.name,
  };
}

function removeFirst<H>(registry: Map<string, readonly H[]>, kind: string, handler: H): void {
  const list = registry.get(kind);
  if (list === undefined) return;
  const i = list.indexOf(handler);
  if (i < 0) return;
  registry.set(kind, [...list.slice(0, i), ...list.slice(i + 1)]);
}
