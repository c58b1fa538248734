// @kubeloop/operator public API. Named exports only; types exported with `export type`.

// --- time ---
export type { Clock, Timer } from './clock.js';
export { RealClock, VirtualClock, realClock, flushMicrotasks } from './clock.js';

// --- actions, handler contracts ---
export type { ResourceAction } from './actions.js';
export {
  ReconcileAction,
  ResourceActionCreate,
  ResourceActionUpdate,
  ResourceActionDelete,
  reconcileActionFromResourceAction,
  resourceActionFromReconcileAction,
} from './actions.js';
export type { HandlerContext, ResourceWatcher } from './resource-watcher.js';
export type { Reconciler, ReconcileRequest, ReconcileResult, ReconcileState } from './reconciler.js';
export type { Informer, ReadonlyStore } from './informer.js';

// --- errors ---
export {
  ErrNilObject,
  ErrInformerAlreadyAdded,
  InvalidArgumentError,
  CannotCastError,
  FinalizerOperationError,
  TerminalError,
  ReconcileError,
  HandlerTimeoutError,
  CacheSyncTimeoutError,
  isCacheSyncTimeoutError,
  isCannotCastError,
  isFinalizerOperationError,
  isTerminalError,
  isReconcileError,
  isInvalidArgumentError,
  isNilObjectError,
  isHandlerTimeoutError,
  isAbortError,
} from './errors.js';

// --- controller core: queue, scheduler, policies, InformerController, Operator, metrics, tracing (operator-core work) ---
export type { Logger, LogAttributes } from './logger.js';
export { consoleLogger, noopLogger, formatLogLine, withAttributes } from './logger.js';
export { ListMap, newListMap } from './list-map.js';
export type { RetryPolicy, ExponentialBackoffOptions } from './retry-policy.js';
export { exponentialBackoffRetryPolicy, DefaultRetryPolicy, toMillis } from './retry-policy.js';
export type { RetryDequeuePolicy } from './retry-dequeue-policy.js';
export { OpinionatedRetryDequeuePolicy } from './retry-dequeue-policy.js';
export type { WorkQueueOptions, WorkQueueAddResult } from './work-queue.js';
export { WorkQueue, DEFAULT_MAX_CONCURRENT_WORKERS } from './work-queue.js';
export { DEFAULT_PRIORITY, LOW_PRIORITY } from './ready-queue.js';
export type { IndexFunc, Indexers } from './cache-indexer.js';
export { CacheIndexer, indexByOwnerUid, indexByNamespace, indexByLabel, indexByField } from './cache-indexer.js';
export type { Predicate, PredicateEvent, PredicateFuncs, PredicateFilterOptions } from './predicates.js';
export {
  predicateFuncs,
  generationChanged,
  labelsChanged,
  annotationsChanged,
  finalizersChanged,
  resourceVersionChanged,
  and,
  or,
  not,
  PredicateFilter,
} from './predicates.js';
export type { RetrySchedulerOptions } from './retry-scheduler.js';
export { RetryScheduler } from './retry-scheduler.js';
export type { InformerControllerConfig, ErrorHandler, ErrorHandlerContext, AddInformerOptions } from './informer-controller.js';
export type { ResourceKindKey } from './registration-key.js';
export { resourceKindKey } from './registration-key.js';
export type { MetricsAwareInformer } from './informer-metrics-wiring.js';
export { ObjectHandlerContext } from './handler-context.js';
export { InformerController, DefaultErrorHandler, DEFAULT_SHUTDOWN_TIMEOUT_MS, defaultInformerControllerConfig } from './informer-controller.js';
export type { Controller } from './operator.js';
export { Operator } from './operator.js';
export type {
  PrometheusCollector,
  MetricsOptions,
  HandlerType,
  RetryReason,
  BoundEventMetrics,
  BoundInformerMetrics,
  InformerRestartReason,
  CounterChild,
  GaugeChild,
  HistogramChild,
} from './metrics.js';
export { ControllerMetrics, InformerMetrics, LATENCY_BUCKETS } from './metrics.js';
export { setTracer, getTracer, tracingEnabled, TRACER_NAME, SpanNames, objectSpanAttributes, startObjectSpan, endSpan, recordSpanError, runInSpan } from './tracing.js';

// --- informer, watchers, reconcilers, finalizers (operator-informer work) ---
export type { ListWatchClient, PatchClient } from './list-watch-client.js';
export type { Backoff, BackoffJitter, JitteredExponentialBackoffOptions } from './backoff.js';
export { JitteredExponentialBackoff } from './backoff.js';
export type {
  InformerState,
  InformerInput,
  ListingState,
  ListedState,
  WatchingState,
  BackingOffState,
  BackoffReason,
  StoppedState,
  RelistReason,
  WatchStats,
  TransitionDeps,
} from './informer-state.js';
export type { InitialListStrategy, StreamingListState } from './informer-state.js';
export { initialState, refusesStreamingList } from './informer-state.js';
export type { InitialEventsSink } from './streaming-list.js';
export { INITIAL_EVENTS_END_ANNOTATION, StreamingListIncompleteError, readInitialEvents } from './streaming-list.js';
export type { SharedInformerScope, SharedInformerFactoryOptions } from './shared-informer-factory.js';
export { SharedInformerFactory, SharedInformer } from './shared-informer-factory.js';
export type { QueueMetricsOptions, ProcessFn } from './queue-metrics.js';
export { QueueMetrics } from './queue-metrics.js';
export type { InformerCacheMetricsOptions } from './informer-cache-metrics.js';
export { InformerCacheMetrics } from './informer-cache-metrics.js';
export type { LabelledSource } from './controller-labelled-metrics.js';
export { ControllerLabelledMetrics } from './controller-labelled-metrics.js';
export { transition, initialInformerState, retryAfterMs, shortWatchMs, instantClosePauseMs, healthyWatchMs, InvalidTransitionError } from './informer-state.js';
export type { StoreDelta } from './informer-store.js';
export { InformerStore, ObjectIndex } from './informer-store.js';
export type {
  KubernetesBasedInformerOptions,
  InformerErrorHandler,
  InformerErrorContext,
  InformerErrorPhase,
  InformerEvents,
} from './kubernetes-based-informer.js';
export { KubernetesBasedInformer, WatchInactivityError, stripManagedFields, chainInformerErrorHandler } from './kubernetes-based-informer.js';
export { EmptyLabelFilters, labelSelectorFromFilters } from './label-filters.js';
export type { SimpleWatcherFuncs } from './simple-watcher.js';
export { SimpleWatcher } from './simple-watcher.js';
export type { ReconcileFunc } from './simple-reconciler.js';
export { SimpleReconciler } from './simple-reconciler.js';
export type { TypedReconcileRequest, TypedReconcilerOptions } from './typed-reconciler.js';
export { TypedReconciler } from './typed-reconciler.js';
export type { FinalizerSupplier, FinalizerWriteOptions } from './finalizer.js';
export { DefaultFinalizerSupplier, validateFinalizerName, hasFinalizer, addFinalizer, removeFinalizer } from './finalizer.js';
export type { OpinionatedWatcherOptions, ObjectFunc, UpdateFunc } from './opinionated-watcher.js';
export { OpinionatedWatcher, newOpinionatedWatcher } from './opinionated-watcher.js';
export { OpinionatedReconciler, newOpinionatedReconciler, OPINIONATED_CREATE_PATCH_PENDING, OPINIONATED_DELETE_PATCH_PENDING } from './opinionated-reconciler.js';

// --- helpers every operator writes: create-or-update (controllerutil) ---
export type { OperationResult, MutateFn, CreateOrUpdateClient, CreateOrPatchClient, CreateOrUpdateOptions, CreateOrUpdateResult } from './create-or-update.js';
export { createOrUpdate, createOrPatch, mergePatchBetween } from './create-or-update.js';

// --- runtime: leader election, health, metrics server, shutdown (runtime work) ---
export type { LeaderElectorOptions, LeaderElectionOutcome, LeaderLease, LeaderLeaseSpec, LeaseClient } from './leader-elector.js';
export { LeaderElector } from './leader-elector.js';
export type { HealthCheck, HealthCheckResult, OperatorServerOptions } from './operator-server.js';
export { OperatorServer } from './operator-server.js';
export type { ShutdownSignalOptions, ShutdownHandle, RunnableOperator, RunOperatorOptions, RunOperatorLeaderElection, RunOperatorResult } from './graceful-shutdown.js';
export { shutdownSignal, runOperator } from './graceful-shutdown.js';

// --- events (front-ends work; the seed-style front-ends are the subpaths ./reconcile, ./controller, ./extra) ---
export type { EventRecorder, EventType, EventClient, ClientEventRecorderOptions } from './event-recorder.js';
export { ClientEventRecorder, noopEventRecorder } from './event-recorder.js';
