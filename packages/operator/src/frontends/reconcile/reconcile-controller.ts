/**
 * The level-based controller of controller-runtime, run on the core's per-object queue and retry
 * scheduler: informer events become keys, keys are reconciled.
 *
 * Flow: every add, update and delete of the informer (and of each `watches` source) only enqueues a
 * {@link Request}; a worker calls the reconciler with it; the result goes through one decision (see
 * `settle`): error -> rate-limited requeue (not for a `TerminalError`), `requeueAfter` -> forget the
 * backoff and requeue after that delay, `requeue` -> rate-limited requeue, otherwise forget.
 * Delayed requeues wait in the core's `RetryScheduler` (one heap, one timer, on the injected clock)
 * and re-enter the queue when due.
 *
 * Guarantees: a key is never reconciled twice at once; requests for one key that arrive while it
 * waits, or while it is being reconciled, merge into one follow-up reconcile (the queue holds a key
 * at most once: memory follows the number of keys, not of events); a key has at most one delayed
 * requeue waiting (the earliest wins, as client-go's `AddAfter`); different keys run concurrently,
 * up to `maxConcurrentReconciles`.
 * Caveats: queued and delayed requests are dropped at shutdown (the next start lists every object
 * again); the action and contents of events are deliberately not passed on.
 */
import { identifierKey, objectKey } from '@kubeloop/resource';
import type { KubeObject, Schema } from '@kubeloop/resource';
import type { Span } from '@opentelemetry/api';
import { realClock } from '../../clock.js';
import type { Clock } from '../../clock.js';
import { ControllerLifecycle } from '../../controller/controller-lifecycle.js';
import { ErrNilObject, InvalidArgumentError, isTerminalError } from '../../errors.js';
import type { Informer } from '../../informer/informer.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, DefaultErrorHandler } from '../../controller/informer-controller.js';
import type { ErrorHandler, ErrorHandlerContext } from '../../controller/informer-controller.js';
import { KubernetesBasedInformer, chainInformerErrorHandler } from '../../informer/kubernetes-based-informer.js';
import type { InformerErrorContext, KubernetesBasedInformerOptions } from '../../informer/kubernetes-based-informer.js';
import type { ListWatchClient } from '../../informer/list-watch-client.js';
import { consoleLogger, withAttributes } from '../../observability/logger.js';
import type { Logger } from '../../observability/logger.js';
import type { PrometheusCollector } from '../../observability/metrics.js';
import type { ResourceWatcher } from '../../handlers/resource-watcher.js';
import { PredicateFilter } from '../../controller/predicates.js';
import type { Predicate } from '../../controller/predicates.js';
import { DEFAULT_PRIORITY, LOW_PRIORITY } from '../../queue/ready-queue.js';
import { isResync } from '../../informer/resync.js';
import { RetryScheduler } from '../../queue/retry-scheduler.js';
import { SpanNames, endSpan, getTracer, runInSpan } from '../../observability/tracing.js';
import { DEFAULT_MAX_CONCURRENT_WORKERS, WorkQueue } from '../../queue/work-queue.js';
import { defaultControllerRateLimiter } from './rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';
import { ReadYourWrites } from './read-your-writes.js';
import type { ReadYourWritesOptions, WriteClient } from './read-your-writes.js';
import { ReconcileMetrics } from './reconcile-metrics.js';
import { HandlerCallLog } from '../../status/handler-call-log.js';
import type { HandlerCall, HandlerCallLogOptions } from '../../status/handler-call-log.js';
import type { ControllerStatus } from '../../status/controller-status.js';
import type { ReconcileOutcome } from './reconcile-metrics.js';
import type { Reconciler } from './reconciler.js';
import type { Request } from './request.js';
import { requeueAfterMs } from './result.js';
import type { Result } from './result.js';
import type { WatchSource } from './watch-source.js';

/** Options of {@link newController}. */
export interface ReconcileControllerOptions<T extends KubeObject = KubeObject> {
  /** The kind reconciled (controller-runtime's `For`). */
  kind: Schema;
  /** Lists and watches the kind (`Client<T>` of @kubeloop/resource). Required unless `informer` is given. */
  client?: ListWatchClient<T> | undefined;
  /** The namespace to watch; '' for every namespace. Default: ''. Ignored when `informer` is given. */
  namespace?: string | undefined;
  /** Options of the informer created for `kind` (selectors, resync, transform...). Default: the informer's defaults, on `clock`. */
  informerOptions?: KubernetesBasedInformerOptions<T> | undefined;
  /** An informer to use instead of creating one from `client` (e.g. shared with other controllers). Default: none. */
  informer?: Informer<T> | undefined;
  /** What to do for each request. */
  reconciler: Reconciler;
  /** Secondary sources of requests (controller-runtime's `Watches` / `Owns`). Default: none. */
  watches?: readonly WatchSource[] | undefined;
  /** Name in logs, errors and metric labels. Default: the kind in lower case. */
  name?: string | undefined;
  /** How many keys are reconciled at the same time. Default: 10 (controller-runtime's default is 1). */
  maxConcurrentReconciles?: number | undefined;
  /** Delays of rate-limited requeues. Default: {@link defaultControllerRateLimiter} on `clock` (5 ms .. 1000 s per key, 10 qps overall). */
  rateLimiter?: RateLimiter | undefined;
  /** Source of time for requeues, the shutdown deadline and the created informer. Default: `realClock`. */
  clock?: Clock | undefined;
  /**
   * Receives every reconcile error (also terminal ones) and informer failures: list and watch errors
   * and failing handlers of informers with a public `errorHandler` (chained after one set on the
   * informer, replacing its default logging), and a rejected informer `run()`. Default: the core's
   * `DefaultErrorHandler` (logs).
   */
  errorHandler?: ErrorHandler | undefined;
  /** Logger of the default error handler and of shutdown messages. Default: `consoleLogger`. */
  logger?: Logger | undefined;
  /** How long `run()` waits, after the signal aborts, for running reconciles and informers. Default: 30000 ms. */
  shutdownTimeoutMs?: number | undefined;
  /** Prefix of the metric names. Default: none. */
  metricsNamespace?: string | undefined;
  /**
   * How long `run()` waits for the informer and every `watches` informer to sync before any
   * reconcile (controller-runtime's `CacheSyncTimeout`); past it `run()` rejects with a
   * `CacheSyncTimeoutError`. `Infinity`: wait forever. Default: 120000 (2 minutes, as controller-runtime).
   */
  cacheSyncTimeoutMs?: number | undefined;
  /**
   * Read your own writes: how long a reconcile is deferred while a cache is older than a write made
   * through `trackWrites(client)` (see `read-your-writes.ts`). Default: `{ timeoutMs: 10000, retryDelayMs: 100 }`.
   */
  readYourWrites?: ReadYourWritesOptions | undefined;
  /** The recent reconciles kept per object for `status()` (the `/status` page), or `false` for none. Default: `{}` (see `HandlerCallLog`). */
  callLog?: HandlerCallLogOptions | false | undefined;
  /**
   * Events of the reconciled kind's informer that enqueue a request only when every predicate accepts
   * them (controller-runtime's `WithEventFilter` / `For(..., WithPredicates)`); filtered events are
   * counted in `controller_predicate_filtered_events_total{controller,event}`. Default: none.
   */
  predicates?: readonly Predicate[] | undefined;
}

/** Options of {@link ReconcileController.enqueue}. */
export interface EnqueueOptions {
  /** Higher starts first; a request merged into a queued one keeps the higher priority. Default: 0. */
  priority?: number | undefined;
}

/** A delayed requeue waiting in the scheduler: plain data, no closure. */
interface DelayedRequest {
  request: Request;
  /** The priority it re-enters the queue with (retries keep their priority). */
  priority: number;
  /** Clock time at which it falls due. */
  dueAt: number;
}

const RESOLVED: Promise<void> = Promise.resolve();

/** A key taken from the queue, with its request and priority. */
interface QueuedRequest {
  key: string;
  request: Request;
  priority: number;
}

/** How a reconcile ended: its result, or what it threw. */
type ReconcileEnd = ({ failed: false; result: Result | undefined } | { failed: true; error: unknown }) & { durationMs: number };

/** Where an error was seen, for the error handler. */
interface ErrorSite {
  /** The object's key; '' when none. */
  key?: string;
  source: ErrorHandlerContext['source'];
  /** Failed attempts of the key so far; 0 when not a reconcile. */
  attempt?: number;
  retryAfterMs?: number | undefined;
  phase?: ErrorHandlerContext['phase'];
}

/**
 * A level-based controller (controller-runtime `controller.Controller`). Create it with
 * {@link newController}; run it alone or add it to an `Operator`.
 */
export class ReconcileController<T extends KubeObject = KubeObject> {
  /** The controller's name (metric label, error context). */
  readonly name: string;
  /** The informer of the reconciled kind: its store is a cache of every object, readable from the reconciler. */
  readonly informer: Informer<T>;

  private readonly kind: Schema;
  private readonly reconciler: Reconciler;
  private readonly rateLimiter: RateLimiter;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly errorHandler: ErrorHandler;
  private readonly lifecycle: ControllerLifecycle;
  private readonly informers: Informer[];
  private readonly queue: WorkQueue<Request>;
  private readonly scheduler: RetryScheduler<DelayedRequest>;
  private readonly metrics: ReconcileMetrics;
  private readonly readYourWrites: ReadYourWrites;
  private readonly predicateFilter: PredicateFilter;
  private readonly callLog: HandlerCallLog | undefined;

  /** Prefer {@link newController}. @throws InvalidArgumentError for a missing kind, reconciler, client/informer or a bad option. */
  constructor(options: ReconcileControllerOptions<T>) {
    if (options == null) throw new InvalidArgumentError('options cannot be nil');
    const { kind, reconciler } = options;
    if (kind == null) throw new InvalidArgumentError('kind cannot be nil');
    if (reconciler == null || typeof reconciler.reconcile !== 'function') throw new InvalidArgumentError('reconciler cannot be nil');
    this.kind = kind;
    this.reconciler = reconciler;
    this.name = options.name ?? kind.kind.toLowerCase();
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? consoleLogger;
    this.errorHandler = options.errorHandler ?? DefaultErrorHandler;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter({ clock: this.clock });
    const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    if (!(shutdownTimeoutMs >= 0)) throw new InvalidArgumentError(`shutdownTimeoutMs must be >= 0, got ${shutdownTimeoutMs}`);
    this.lifecycle = new ControllerLifecycle({
      clock: this.clock,
      shutdownTimeoutMs,
      name: `controller ${this.name}`,
      logger: this.logger,
      logAttributes: { controller: this.name },
      cacheSyncTimeoutMs: options.cacheSyncTimeoutMs,
    });

    if (options.informer != null) {
      this.informer = options.informer;
    } else {
      if (options.client == null) throw new InvalidArgumentError('client cannot be nil (or give an informer)');
      this.informer = new KubernetesBasedInformer<T>(kind, options.client, options.namespace ?? '', { clock: this.clock, ...options.informerOptions });
    }

    // Every key is queued at most once: a request added while its key waits merges into it.
    this.queue = new WorkQueue<Request>({
      maxConcurrentWorkers: options.maxConcurrentReconciles ?? DEFAULT_MAX_CONCURRENT_WORKERS,
      process: this.process,
      coalesce: (queued) => queued,
      onError: (err) => this.report(err, { source: 'controller' }),
      clock: this.clock,
    });
    this.scheduler = new RetryScheduler<DelayedRequest>({
      clock: this.clock,
      onDue: (key, delayed) => this.add(key, delayed.request, delayed.priority),
    });
    this.metrics = new ReconcileMetrics({
      controller: this.name,
      namespace: options.metricsNamespace,
      depth: () => this.queue.depth,
      maxConcurrentReconciles: this.queue.maxConcurrentWorkers,
    });

    this.predicateFilter = new PredicateFilter({
      controller: this.name,
      namespace: options.metricsNamespace,
      onError: (err, event) => this.report(err, { key: event.object?.metadata ? objectKey(event.object) : '', source: 'controller' }),
    });
    this.informer.addEventHandler(this.filtered(options.predicates, this.objectHandler(), this.informer));
    this.informers = [this.informer];
    for (const source of options.watches ?? []) {
      if (source?.informer == null || typeof source.map !== 'function') throw new InvalidArgumentError('a watch source needs an informer and a map function');
      source.informer.addEventHandler(this.filtered(source.predicates, this.mappedHandler(source), source.informer));
      this.informers.push(source.informer);
    }
    for (const informer of this.informers) chainInformerErrorHandler(informer, this.informerErrorHandler);
    this.callLog = options.callLog === false ? undefined : new HandlerCallLog(options.callLog);
    this.readYourWrites = new ReadYourWrites({
      ...options.readYourWrites,
      primary: kind,
      informers: () => this.informers,
      clock: this.clock,
      logger: this.logger,
      controller: this.name,
      metricsNamespace: options.metricsNamespace,
    });
  }

  /**
   * A client whose writes the controller tracks (read your own writes): a later reconcile of the
   * written object, or of its controlling owner of the reconciled kind, waits until the informers
   * have seen that write (bounded by `readYourWrites.timeoutMs`). Use it for every write of the reconciler.
   */
  trackWrites<C extends KubeObject>(client: WriteClient<C>): WriteClient<C> {
    return this.readYourWrites.client(client);
  }

  /** True while running once every informer of the controller has synced and workers take keys (readiness). */
  hasSynced(): boolean {
    return this.lifecycle.synced;
  }

  /** True while warming up or running once every informer has synced (a warm follower's readiness); says nothing about workers. */
  cachesSynced(): boolean {
    return this.lifecycle.cachesSynced;
  }

  /** Resolves when every informer has synced (controller-runtime `WaitForCacheSync`); rejects if `signal` aborts first. */
  async waitForCacheSync(signal?: AbortSignal): Promise<void> {
    await Promise.all(this.informers.map((i) => i.waitForSync(signal)));
  }

  /**
   * Enqueues a request from outside the informers (controller-runtime's channel source / `GenericEvent`):
   * merged with a queued request of the same key (which keeps the higher priority), processed once the controller runs.
   * @throws InvalidArgumentError for a priority that is not a finite number.
   */
  enqueue(request: Request, options: EnqueueOptions = {}): void {
    if (options.priority !== undefined && !Number.isFinite(options.priority)) throw new InvalidArgumentError(`priority must be a finite number, got ${options.priority}`);
    this.add(identifierKey(request), { namespace: request.namespace, name: request.name }, options.priority ?? DEFAULT_PRIORITY);
  }

  /** Resolves when no request is queued or being reconciled (delayed requeues do not count). */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /** Number of delayed requeues waiting for their time. */
  get pendingRequeues(): number {
    return this.scheduler.size;
  }

  /** The controller's metric collectors (controller-runtime's names), for the user to register. */
  prometheusCollectors(): PrometheusCollector[] {
    return [...this.metrics.collectors(), ...this.readYourWrites.collectors(), ...this.predicateFilter.collectors()];
  }

  /**
   * Starts the informers, the workers and the requeue scheduler; resolves once `signal` has aborted
   * and running reconciles and informers have finished (or `shutdownTimeoutMs` passed). Rejects with
   * an informer's error when an informer fails (after stopping everything). A controller runs once.
   */
  async run(signal: AbortSignal): Promise<void> {
    await this.lifecycle.run(signal, {
      queue: this.queue,
      scheduler: this.scheduler,
      startInformers: () => this.startInformers(),
      informers: () => this.informers,
    });
  }

  /**
   * Warm replica (controller-runtime's `EnableWarmup`): starts the informers before `run()` (e.g. while
   * not the leader) so that their caches fill; no reconcile runs until `run()`, whose sync gate then
   * opens without a relist. Resolves once `run()` has taken the informers over, or once `signal`
   * aborted and they stopped; rejects with an informer's configuration error.
   */
  warmUp(signal: AbortSignal): Promise<void> {
    return this.lifecycle.warmUp(signal, { startInformers: () => this.startInformers() });
  }

  private startInformers(): void {
    for (const informer of this.informers) this.lifecycle.runInformer(informer, (err) => this.report(err, { source: 'informer' }));
  }

  // --- sources: synchronous and cheap, they only enqueue ---

  /** `handler` behind the predicates of its source, if it has some. */
  private filtered(predicates: readonly Predicate[] | undefined, handler: ResourceWatcher, informer: Informer): ResourceWatcher {
    return predicates === undefined || predicates.length === 0 ? handler : this.predicateFilter.handler(predicates, handler, informer);
  }

  private objectHandler(): ResourceWatcher {
    const informer = this.informer;
    const enqueue = (object: KubeObject, priority: number): Promise<void> => {
      // Bad input is reported, never thrown into the informer.
      if (object == null || typeof object.metadata !== 'object' || object.metadata === null) this.report(ErrNilObject, { source: 'controller' });
      else this.add(objectKey(object), { namespace: object.metadata.namespace ?? '', name: object.metadata.name }, priority);
      return RESOLVED;
    };
    return {
      add: (_ctx, object) => enqueue(object, informer.hasSynced() ? DEFAULT_PRIORITY : LOW_PRIORITY),
      update: (_ctx, old, object) => enqueue(object, isResync(old, object) ? LOW_PRIORITY : DEFAULT_PRIORITY),
      delete: (_ctx, object) => enqueue(object, DEFAULT_PRIORITY),
    };
  }

  private mappedHandler(source: WatchSource): ResourceWatcher {
    const enqueue = (object: KubeObject, priority: number): void => {
      let requests: readonly Request[];
      try {
        requests = source.map(object);
      } catch (err) {
        this.report(err, { key: object?.metadata ? objectKey(object) : '', source: 'controller' });
        return;
      }
      for (const r of requests) this.enqueue(r, { priority });
    };
    return {
      add: (_ctx, object) => {
        enqueue(object, source.informer.hasSynced() ? DEFAULT_PRIORITY : LOW_PRIORITY);
        return RESOLVED;
      },
      update: (_ctx, old, object) => {
        const priority = isResync(old, object) ? LOW_PRIORITY : DEFAULT_PRIORITY;
        if (old !== object) enqueue(old, priority);
        enqueue(object, priority);
        return RESOLVED;
      },
      delete: (_ctx, object) => {
        enqueue(object, DEFAULT_PRIORITY);
        return RESOLVED;
      },
    };
  }

  private add(key: string, request: Request, priority: number): void {
    if (this.queue.add(key, request, priority) === 'queued') this.metrics.adds.inc();
  }

  /** client-go's `AddAfter`: one delayed requeue per key, the earliest wins. */
  private addAfter(key: string, request: Request, delayMs: number, priority: number): void {
    if (this.lifecycle.stopping) return;
    if (!(delayMs > 0)) {
      this.add(key, request, priority);
      return;
    }
    const dueAt = this.clock.now() + delayMs;
    const waiting = this.scheduler.entries(key);
    if (waiting.length > 0) {
      if (waiting.some((d) => d.dueAt <= dueAt)) return;
      this.scheduler.cancel(key, () => true);
    }
    this.scheduler.schedule(key, { request, dueAt, priority }, delayMs);
  }

  /** Errors of the informers (see `errorHandler`): reported with `source: 'informer'` and the phase. */
  private readonly informerErrorHandler = (context: InformerErrorContext, error: unknown): void => {
    if (this.lifecycle.isShutdownAbort(error)) return;
    const object = context.object;
    this.report(error, { key: object?.metadata?.name !== undefined ? objectKey(object) : '', source: 'informer', phase: context.phase });
  };

  // --- workers ---

  private readonly process = async (key: string, request: Request, priority: number): Promise<void> => {
    // The cache is older than our own write: come back soon (not a failure, no backoff).
    const deferMs = this.readYourWrites.deferral(key);
    if (deferMs > 0) {
      this.addAfter(key, request, deferMs, priority);
      return;
    }
    const span = this.startSpan(request);
    this.metrics.activeWorkers.inc();
    const started = performance.now();
    let end: ReconcileEnd;
    try {
      const { signal, logger } = this.lifecycle.ctx;
      const ctx = { signal, logger: withAttributes(logger, { kind: this.kind.kind, object: identifierKey(request) }) };
      const result = await runInSpan(span, () => this.reconciler.reconcile(ctx, request));
      end = { failed: false, result, durationMs: performance.now() - started };
    } catch (err) {
      end = { failed: true, error: err, durationMs: performance.now() - started };
    }
    this.metrics.activeWorkers.dec();
    this.metrics.reconcileTime.observe(end.durationMs / 1000);
    endSpan(span, end.failed && !this.lifecycle.isShutdownAbort(end.error) ? (end.error ?? new Error('reconcile failed')) : undefined);
    this.settle({ key, request, priority }, end);
  };

  /** The one place that decides what follows a reconcile (controller-runtime's `reconcileHandler`). */
  private settle({ key, request, priority }: QueuedRequest, end: ReconcileEnd): void {
    let outcome: ReconcileOutcome;
    if (end.failed) {
      const error = end.error;
      // Gave up because the shutdown aborted its signal: expected, neither counted, reported nor requeued.
      if (this.lifecycle.isShutdownAbort(error)) return;
      outcome = 'error';
      this.metrics.errors.inc();
      const attempt = this.rateLimiter.numRequeues(key);
      if (isTerminalError(error)) {
        // Not requeued, and (as upstream) the backoff is not forgotten either: the key's next failure backs off further.
        this.metrics.terminalErrors.inc();
        this.report(error, { key, source: 'reconciler', attempt });
        this.recordCall(key, { attempt, result: 'error', durationMs: end.durationMs }, error);
      } else {
        const delayMs = this.rateLimiter.when(key);
        this.metrics.retries.inc();
        this.report(error, { key, source: 'reconciler', attempt, retryAfterMs: delayMs });
        this.recordCall(key, { attempt, result: 'error', durationMs: end.durationMs, retryInMs: delayMs }, error);
        // A retry keeps the priority of the request that failed.
        this.addAfter(key, request, delayMs, priority);
      }
    } else {
      const result = end.result;
      const afterMs = requeueAfterMs(result);
      const requeuePriority = typeof result?.priority === 'number' && Number.isFinite(result.priority) ? result.priority : priority;
      const attempt = this.rateLimiter.numRequeues(key);
      if (afterMs > 0) {
        outcome = 'requeue_after';
        this.rateLimiter.forget(key);
        this.addAfter(key, request, afterMs, requeuePriority);
        this.recordCall(key, { attempt, result: 'requeue', durationMs: end.durationMs, retryInMs: afterMs });
      } else if (result?.requeue === true) {
        outcome = 'requeue';
        this.metrics.retries.inc();
        const delayMs = this.rateLimiter.when(key);
        this.addAfter(key, request, delayMs, requeuePriority);
        this.recordCall(key, { attempt, result: 'requeue', durationMs: end.durationMs, retryInMs: delayMs });
      } else {
        outcome = 'success';
        this.rateLimiter.forget(key);
        this.recordCall(key, { attempt, result: 'ok', durationMs: end.durationMs });
      }
    }
    this.metrics.outcome(outcome);
  }

  /** One reconcile of `key` for the status page's call log (a level-based reconcile has no action: `Reconcile`). */
  private recordCall(key: string, call: Pick<HandlerCall, 'attempt' | 'result' | 'durationMs' | 'retryInMs'>, error?: unknown): void {
    this.callLog?.record(this.kind.kind, key, { ...call, at: this.clock.now(), handler: 'reconciler', action: 'Reconcile' }, error);
  }

  /** What the status page shows: its informers, its queue and each object's recent reconciles. */
  status(): ControllerStatus {
    const log = this.callLog;
    return {
      name: this.name,
      now: this.clock.now(),
      running: this.lifecycle.synced,
      informers: this.informers.map((informer, i) => ({ kind: informer.schema().kind, role: i === 0 ? 'primary' : 'watches', synced: informer.hasSynced(), objects: informer.store.size })),
      queue: { depth: this.queue.depth, inFlight: this.queue.inFlight, pendingRetries: this.scheduler.size },
      totals: { calls: log?.totalCalls ?? 0, errors: log?.failedCalls ?? 0, lastError: log?.lastError },
      objects: log?.objects() ?? [],
    };
  }

  private startSpan(request: Request): Span {
    const span = getTracer().startSpan(SpanNames.controllerEventReconcile);
    if (span.isRecording()) {
      span.setAttributes({
        controller: this.name,
        'kind.name': this.kind.kind,
        'kind.group': this.kind.group,
        'kind.version': this.kind.version,
        namespace: request.namespace,
        name: request.name,
      });
    }
    return span;
  }

  private report(error: unknown, { key = '', source, attempt = 0, retryAfterMs, phase }: ErrorSite): void {
    const ctx: ErrorHandlerContext = {
      signal: this.lifecycle.ctx.signal,
      logger: this.logger,
      resourceKind: this.kind.kind,
      objectKey: key,
      action: '',
      source,
      phase,
      attempt,
      retryAfterMs,
    };
    try {
      this.errorHandler(ctx, error);
    } catch (handlerError) {
      this.logger.error('controller errorHandler threw', { controller: this.name, error: handlerError });
    }
  }

}

/**
 * A level-based controller for `options.kind` (controller-runtime `controller.New`, or
 * `builder.ControllerManagedBy(mgr).For(kind).Owns(...).Complete(reconciler)`). Nothing starts
 * before `run()`.
 * @throws InvalidArgumentError for a missing kind, reconciler, client/informer or a bad option.
 */
export function newController<T extends KubeObject = KubeObject>(options: ReconcileControllerOptions<T>): ReconcileController<T> {
  return new ReconcileController<T>(options);
}
