// @kubeloop/operator public API. Named exports only; types exported with `export type`.

// --- time ---
export type { Clock, Timer } from './clock.js';
export { RealClock, VirtualClock, realClock, flushMicrotasks } from './clock.js';

// --- actions, handler contracts ---
export type { ResourceAction } from './handlers/actions.js';
export {
  ReconcileAction,
  ResourceActionCreate,
  ResourceActionUpdate,
  ResourceActionDelete,
  reconcileActionFromResourceAction,
  resourceActionFromReconcileAction,
} from './handlers/actions.js';
export type { HandlerContext, ResourceWatcher } from './handlers/resource-watcher.js';
export type { Reconciler, ReconcileRequest, ReconcileResult, ReconcileState } from './handlers/reconciler.js';
export type { Informer, ReadonlyStore } from './informer/informer.js';

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
export type { Logger, LogAttributes } from './observability/logger.js';
export { consoleLogger, noopLogger, formatLogLine, withAttributes } from './observability/logger.js';
export { ListMap, newListMap } from './controller/list-map.js';
export type { RetryPolicy, ExponentialBackoffOptions } from './queue/retry-policy.js';
export { exponentialBackoffRetryPolicy, DefaultRetryPolicy, toMillis } from './queue/retry-policy.js';
export type { RetryDequeuePolicy } from './queue/retry-dequeue-policy.js';
export { OpinionatedRetryDequeuePolicy } from './queue/retry-dequeue-policy.js';
export type { WorkQueueOptions, WorkQueueAddResult, WorkQueueMetrics } from './queue/work-queue.js';
export { WorkQueue, DEFAULT_MAX_CONCURRENT_WORKERS } from './queue/work-queue.js';
export { DEFAULT_PRIORITY, LOW_PRIORITY } from './queue/ready-queue.js';
export type { IndexFunc, Indexers } from './informer/cache-indexer.js';
export { CacheIndexer, indexByOwnerUid, indexByNamespace, indexByLabel, indexByField } from './informer/cache-indexer.js';
export type { Predicate, PredicateEvent, PredicateFuncs, PredicateFilterOptions } from './controller/predicates.js';
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
} from './controller/predicates.js';
export type { RetrySchedulerOptions } from './queue/retry-scheduler.js';
export { RetryScheduler } from './queue/retry-scheduler.js';
export type { InformerControllerConfig, ErrorHandler, ErrorHandlerContext, AddInformerOptions } from './controller/informer-controller.js';
export type { OwnsOptions, WatchesOptions, SecondaryMapFunc } from './controller/secondary-source.js';
export type { ResourceKindKey } from './controller/registration-key.js';
export { resourceKindKey } from './controller/registration-key.js';
export type { MetricsAwareInformer } from './observability/informer-metrics-wiring.js';
export { ObjectHandlerContext } from './controller/handler-context.js';
export { InformerController, DefaultErrorHandler, DEFAULT_SHUTDOWN_TIMEOUT_MS, defaultInformerControllerConfig } from './controller/informer-controller.js';
export type { Controller } from './controller/operator.js';
export { Operator } from './controller/operator.js';
export type {
  PrometheusCollector,
  MetricsOptions,
  HandlerType,
  RetryReason,
  BoundEventMetrics,
  KindEventMetrics,
  BoundInformerMetrics,
  InformerRestartReason,
  CounterChild,
  GaugeChild,
  HistogramChild,
} from './observability/metrics.js';
export { ControllerMetrics, InformerMetrics, LATENCY_BUCKETS } from './observability/metrics.js';
export { setTracer, getTracer, tracingEnabled, TRACER_NAME, SpanNames, objectSpanAttributes, startObjectSpan, endSpan, recordSpanError, runInSpan } from './observability/tracing.js';

// --- informer, watchers, reconcilers, finalizers (operator-informer work) ---
export type { ListWatchClient, PatchClient } from './informer/list-watch-client.js';
export type { Backoff, BackoffJitter, JitteredExponentialBackoffOptions } from './informer/backoff.js';
export { JitteredExponentialBackoff } from './informer/backoff.js';
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
} from './informer/informer-state.js';
export type { InitialListStrategy, StreamingListState } from './informer/informer-state.js';
export { initialState, refusesStreamingList } from './informer/informer-state.js';
export type { InitialEventsSink } from './informer/streaming-list.js';
export { INITIAL_EVENTS_END_ANNOTATION, StreamingListIncompleteError, readInitialEvents } from './informer/streaming-list.js';
export type { SharedInformerScope, SharedInformerFactoryOptions } from './informer/shared-informer-factory.js';
export { SharedInformerFactory, SharedInformer } from './informer/shared-informer-factory.js';
export type { QueueMetricsOptions, ProcessFn, TimedItem } from './observability/queue-metrics.js';
export { QueueMetrics } from './observability/queue-metrics.js';
export type { InformerCacheMetricsOptions } from './observability/informer-cache-metrics.js';
export { InformerCacheMetrics } from './observability/informer-cache-metrics.js';
export type { LabelledSource } from './observability/controller-labelled-metrics.js';
export { ControllerLabelledMetrics } from './observability/controller-labelled-metrics.js';
export { transition, initialInformerState, retryAfterMs, shortWatchMs, instantClosePauseMs, healthyWatchMs, InvalidTransitionError } from './informer/informer-state.js';
export type { StoreDelta } from './informer/informer-store.js';
export { InformerStore, ObjectIndex } from './informer/informer-store.js';
export type {
  KubernetesBasedInformerOptions,
  InformerErrorHandler,
  InformerErrorContext,
  InformerErrorPhase,
  InformerEvents,
} from './informer/kubernetes-based-informer.js';
export { KubernetesBasedInformer, WatchInactivityError, stripManagedFields, chainInformerErrorHandler } from './informer/kubernetes-based-informer.js';
export { EmptyLabelFilters, labelSelectorFromFilters } from './informer/label-filters.js';
export type { InformerShard } from './informer/informer-shard.js';
export { INITIAL_EVENTS_LIST_BLUEPRINT_ANNOTATION, blueprintShardInfo } from './informer/informer-shard.js';
export type { SimpleWatcherFuncs } from './handlers/simple-watcher.js';
export { SimpleWatcher } from './handlers/simple-watcher.js';
export type { ReconcileFunc } from './handlers/simple-reconciler.js';
export { SimpleReconciler } from './handlers/simple-reconciler.js';
export type { TypedReconcileRequest, TypedReconcilerOptions } from './handlers/typed-reconciler.js';
export { TypedReconciler } from './handlers/typed-reconciler.js';
export type { FinalizerSupplier, FinalizerWriteOptions } from './handlers/finalizer.js';
export { DefaultFinalizerSupplier, validateFinalizerName, hasFinalizer, addFinalizer, removeFinalizer } from './handlers/finalizer.js';
export type { OpinionatedWatcherOptions, ObjectFunc, UpdateFunc } from './handlers/opinionated-watcher.js';
export { OpinionatedWatcher, newOpinionatedWatcher } from './handlers/opinionated-watcher.js';
export type { OpinionatedReconcilerOptions } from './handlers/opinionated-reconciler.js';
export {
  OpinionatedReconciler,
  newOpinionatedReconciler,
  OPINIONATED_CREATE_PATCH_PENDING,
  OPINIONATED_DELETE_PATCH_PENDING,
  OPINIONATED_FINALIZER_ADDED,
} from './handlers/opinionated-reconciler.js';

// --- helpers every operator writes: create-or-update (controllerutil) ---
export type { OperationResult, MutateFn, CreateOrUpdateClient, CreateOrPatchClient, CreateOrUpdateOptions, CreateOrUpdateResult } from './handlers/create-or-update.js';
export { createOrUpdate, createOrPatch, mergePatchBetween } from './handlers/create-or-update.js';

// --- runtime: leader election, health, metrics server, shutdown (runtime work) ---
export type { LeaderElectorOptions, LeaderElectionOutcome, LeaderLease, LeaderLeaseSpec, LeaseClient } from './runtime/leader-elector.js';
export { LeaderElector } from './runtime/leader-elector.js';
export type { HealthCheck, HealthCheckResult, OperatorServerOptions } from './runtime/operator-server.js';
export { OperatorServer } from './runtime/operator-server.js';
export type { HandlerCall, HandlerCallResult, HandlerCallLogOptions, ObjectCalls, LastError } from './status/handler-call-log.js';
export { HandlerCallLog } from './status/handler-call-log.js';
export type { OperatorStatus, ControllerStatus, InformerStatus, QueueStatus, CallTotals } from './status/controller-status.js';
export type { StatusPageOptions } from './status/status-page.js';
export { renderStatusPage } from './status/status-page.js';
export { escapeHtml } from './status/escape-html.js';
export type { ShutdownSignalOptions, ShutdownHandle, RunnableOperator, RunOperatorOptions, RunOperatorLeaderElection, RunOperatorResult } from './runtime/graceful-shutdown.js';
export { shutdownSignal, runOperator } from './runtime/graceful-shutdown.js';

// --- events (front-ends work; the seed-style front-ends are the subpaths ./reconcile, ./controller, ./extra) ---
export type { EventRecorder, EventType, EventClient, ClientEventRecorderOptions } from './handlers/event-recorder.js';
export { ClientEventRecorder, noopEventRecorder } from './handlers/event-recorder.js';

// Sharding across replicas (KEP-5866 ranges, hand-over through Leases).
export type { HandOverReason, ShardParticipant, ShardRingLeaseClient, ShardRingOptions } from './sharding/shard-ring.js';
export { ShardRing, shardRingLabel, shardSlotsAnnotation, slotOf } from './sharding/shard-ring.js';
export { assignSlots, slotRanges } from './sharding/slot-assignment.js';
export type { ShardRingRef } from './sharding/ring-table.js';
export { readShardRingTable, slotsByOwner } from './sharding/ring-table.js';
export type { ShardedInformerOptions } from './sharding/sharded-informer.js';
export { ShardedInformer } from './sharding/sharded-informer.js';
export type { RunOperatorSharding } from './runtime/graceful-shutdown.js';
export { HandedOverError } from './errors.js';
