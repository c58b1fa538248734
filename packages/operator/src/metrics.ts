/**
 * Prometheus collectors (prom-client). None is registered in prom-client's global registry: the
 * user registers what `prometheusCollectors()` returns in the registry of their choice. Two
 * controllers in one registry need different `namespace` prefixes, as in grafana-app-sdk.
 *
 * Hot-path cost: label children are bound once per kind and event type and cached, so an event
 * costs a few increments and histogram observations, no label-object allocation.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Metric } from 'prom-client';
import type { ResourceAction } from './actions.js';

/** A prom-client collector, as returned by `prometheusCollectors()` (register with `registry.registerMetric`). */
export type PrometheusCollector = Metric;

/** The buckets of every duration histogram (seconds), as grafana-app-sdk. */
export const LATENCY_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100];

/** Options shared by the metric sets. */
export interface MetricsOptions {
  /** Prefix of every metric name (`{namespace}_informer_events_total`). Default: none. */
  namespace?: string | undefined;
}

/** Which handler a metric is about. */
export type HandlerType = 'watcher' | 'reconciler';

/** Why a retry was scheduled: the handler failed, or a reconcile asked for `requeueAfter`. */
export type RetryReason = 'error' | 'requeue';

function metricName(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}_${name}` : name;
}

type EventLabels = 'event_type' | 'kind';

/** The children of the per-event metrics for one kind and event type, bound once. */
export interface BoundEventMetrics {
  readonly events: Counter.Internal;
  readonly eventDuration: Histogram.Internal<EventLabels>;
  readonly ongoingEvents: Gauge.Internal<EventLabels>;
  readonly ongoingProcesses: Gauge.Internal<EventLabels>;
  readonly watcherDuration: Histogram.Internal<EventLabels>;
  readonly reconcilerDuration: Histogram.Internal<EventLabels>;
  readonly watcherErrors: Counter.Internal;
  readonly reconcilerErrors: Counter.Internal;
  readonly droppedRetries: Counter.Internal;
  readonly coalesced: Counter.Internal;
  /** Retries scheduled, by handler type and reason. */
  retry(handler: HandlerType, reason: RetryReason): void;
}

/**
 * The metrics of an `InformerController`: grafana-app-sdk's names and labels (`event_type` is the
 * informer action: CREATE, UPDATE, DELETE) plus retries, handler errors, informer errors, dropped
 * (dequeued) retries, coalesced events, queue depth and pending retries.
 */
export class ControllerMetrics {
  /** `informer_events_total`: events received from informers. */
  readonly eventsTotal: Counter<EventLabels>;
  /** `informer_reconcile_duration_seconds`: processing one event by every watcher and reconciler. */
  readonly eventDuration: Histogram<EventLabels>;
  /** `reconciler_process_duration_seconds`: one reconciler call. */
  readonly reconcilerDuration: Histogram<EventLabels>;
  /** `watcher_process_duration_seconds`: one watcher call. */
  readonly watcherDuration: Histogram<EventLabels>;
  /** `ongoing_reconcile_processes`: watcher and reconciler calls running now. */
  readonly ongoingProcesses: Gauge<EventLabels>;
  /** `ongoing_reconcile_events`: events being processed now. */
  readonly ongoingEvents: Gauge<EventLabels>;
  /** `controller_retries_total{event_type,kind,handler,reason}`: retries scheduled. */
  readonly retriesTotal: Counter<EventLabels | 'handler' | 'reason'>;
  /** `controller_handler_errors_total{event_type,kind,handler}`: handler calls that threw or rejected. */
  readonly handlerErrorsTotal: Counter<EventLabels | 'handler'>;
  /** `controller_dropped_retries_total`: pending retries dropped by the retry dequeue policy. */
  readonly droppedRetriesTotal: Counter<EventLabels>;
  /** `controller_coalesced_events_total`: updates merged into a queued update of the same object. */
  readonly coalescedEventsTotal: Counter<EventLabels>;
  /** `controller_informer_errors_total{kind,phase}`: errors of the controller's informers (list, watch, handler); the informer retries them itself. */
  readonly informerErrorsTotal: Counter<'kind' | 'phase'>;
  /** `controller_queue_depth`: events and due retries queued, not started. */
  readonly queueDepth: Gauge;
  /** `controller_pending_retries`: retries waiting for their time. */
  readonly pendingRetries: Gauge;

  private readonly bound = new Map<string, BoundEventMetrics>();
  private depthSource: () => number = () => 0;
  private pendingSource: () => number = () => 0;

  constructor(options: MetricsOptions = {}) {
    const ns = options.namespace;
    const labelNames: EventLabels[] = ['event_type', 'kind'];
    const buckets = [...LATENCY_BUCKETS];
    this.eventsTotal = new Counter({
      name: metricName(ns, 'informer_events_total'),
      help: 'Number of events received from informers',
      labelNames,
      registers: [],
    });
    this.eventDuration = new Histogram({
      name: metricName(ns, 'informer_reconcile_duration_seconds'),
      help: 'Time (in seconds) spent performing all operations related to reconciling an event',
      labelNames,
      buckets,
      registers: [],
    });
    this.reconcilerDuration = new Histogram({
      name: metricName(ns, 'reconciler_process_duration_seconds'),
      help: 'Time (in seconds) spent performing individual reconciler requests',
      labelNames,
      buckets,
      registers: [],
    });
    this.watcherDuration = new Histogram({
      name: metricName(ns, 'watcher_process_duration_seconds'),
      help: 'Time (in seconds) spent performing individual watcher calls',
      labelNames,
      buckets,
      registers: [],
    });
    this.ongoingProcesses = new Gauge({
      name: metricName(ns, 'ongoing_reconcile_processes'),
      help: 'Number of watcher and reconciler calls currently running',
      labelNames,
      registers: [],
    });
    this.ongoingEvents = new Gauge({
      name: metricName(ns, 'ongoing_reconcile_events'),
      help: 'Number of events currently being processed',
      labelNames,
      registers: [],
    });
    this.retriesTotal = new Counter({
      name: metricName(ns, 'controller_retries_total'),
      help: 'Number of retries scheduled (reason: error or requeue)',
      labelNames: ['event_type', 'kind', 'handler', 'reason'],
      registers: [],
    });
    this.handlerErrorsTotal = new Counter({
      name: metricName(ns, 'controller_handler_errors_total'),
      help: 'Number of watcher and reconciler calls that failed',
      labelNames: ['event_type', 'kind', 'handler'],
      registers: [],
    });
    this.droppedRetriesTotal = new Counter({
      name: metricName(ns, 'controller_dropped_retries_total'),
      help: 'Number of pending retries dropped by the retry dequeue policy',
      labelNames,
      registers: [],
    });
    this.coalescedEventsTotal = new Counter({
      name: metricName(ns, 'controller_coalesced_events_total'),
      help: 'Number of updates merged into a queued update of the same object',
      labelNames,
      registers: [],
    });
    this.informerErrorsTotal = new Counter({
      name: metricName(ns, 'controller_informer_errors_total'),
      help: 'Number of errors of the informers of the controller (phase: list, watch or handler)',
      labelNames: ['kind', 'phase'],
      registers: [],
    });
    const depth = (): number => this.depthSource();
    const pending = (): number => this.pendingSource();
    this.queueDepth = new Gauge({
      name: metricName(ns, 'controller_queue_depth'),
      help: 'Number of events and due retries queued and not started',
      registers: [],
      collect() {
        this.set(depth());
      },
    });
    this.pendingRetries = new Gauge({
      name: metricName(ns, 'controller_pending_retries'),
      help: 'Number of retries waiting for their time',
      registers: [],
      collect() {
        this.set(pending());
      },
    });
  }

  /** Where the depth and pending-retry gauges read their values when collected. */
  setSources(queueDepth: () => number, pendingRetries: () => number): void {
    this.depthSource = queueDepth;
    this.pendingSource = pendingRetries;
  }

  /** The children for one kind and event type, bound on first use and cached. */
  forEvent(kind: string, eventType: ResourceAction): BoundEventMetrics {
    const cacheKey = `${eventType}\u0000${kind}`;
    let b = this.bound.get(cacheKey);
    if (b === undefined) {
      b = this.bind(kind, eventType);
      this.bound.set(cacheKey, b);
    }
    return b;
  }

  /** Every collector, for registration. */
  collectors(): PrometheusCollector[] {
    return [
      this.eventsTotal,
      this.eventDuration,
      this.reconcilerDuration,
      this.watcherDuration,
      this.ongoingProcesses,
      this.ongoingEvents,
      this.retriesTotal,
      this.handlerErrorsTotal,
      this.droppedRetriesTotal,
      this.coalescedEventsTotal,
      this.informerErrorsTotal,
      this.queueDepth,
      this.pendingRetries,
    ] as PrometheusCollector[];
  }

  private bind(kind: string, eventType: ResourceAction): BoundEventMetrics {
    const retries = new Map<string, Counter.Internal>();
    const retriesTotal = this.retriesTotal;
    return {
      events: this.eventsTotal.labels(eventType, kind),
      eventDuration: this.eventDuration.labels(eventType, kind),
      ongoingEvents: this.ongoingEvents.labels(eventType, kind),
      ongoingProcesses: this.ongoingProcesses.labels(eventType, kind),
      watcherDuration: this.watcherDuration.labels(eventType, kind),
      reconcilerDuration: this.reconcilerDuration.labels(eventType, kind),
      watcherErrors: this.handlerErrorsTotal.labels(eventType, kind, 'watcher'),
      reconcilerErrors: this.handlerErrorsTotal.labels(eventType, kind, 'reconciler'),
      droppedRetries: this.droppedRetriesTotal.labels(eventType, kind),
      coalesced: this.coalescedEventsTotal.labels(eventType, kind),
      retry(handler, reason) {
        const k = `${handler}/${reason}`;
        let c = retries.get(k);
        if (c === undefined) {
          c = retriesTotal.labels(eventType, kind, handler, reason);
          retries.set(k, c);
        }
        c.inc();
      },
    };
  }
}

/** The informer metrics of one kind, bound once (what an informer calls on its events). */
export interface BoundInformerMetrics {
  /** A watch connection was opened (first or re-connect). */
  watchConnected(): void;
  /** A full list was done (initial or after a 410). */
  relisted(): void;
  /** The store is in sync with the server as of `atMs` (epoch milliseconds). */
  synced(atMs: number): void;
  /** A watch line or list item could not be decoded. */
  decodeError(): void;
}

/**
 * Informer metrics, for informer implementations to receive as an option and count into:
 * `informer_watch_connects_total{kind}`, `informer_relists_total{kind}`,
 * `informer_last_sync_timestamp_seconds{kind}`, `informer_decode_errors_total{kind}`.
 */
export class InformerMetrics {
  readonly watchConnectsTotal: Counter<'kind'>;
  readonly relistsTotal: Counter<'kind'>;
  readonly lastSyncTimestamp: Gauge<'kind'>;
  readonly decodeErrorsTotal: Counter<'kind'>;
  private readonly bound = new Map<string, BoundInformerMetrics>();

  constructor(options: MetricsOptions = {}) {
    const ns = options.namespace;
    const labelNames: 'kind'[] = ['kind'];
    this.watchConnectsTotal = new Counter({
      name: metricName(ns, 'informer_watch_connects_total'),
      help: 'Number of watch connections opened (initial and reconnects)',
      labelNames,
      registers: [],
    });
    this.relistsTotal = new Counter({
      name: metricName(ns, 'informer_relists_total'),
      help: 'Number of full lists (initial and after the watch history expired)',
      labelNames,
      registers: [],
    });
    this.lastSyncTimestamp = new Gauge({
      name: metricName(ns, 'informer_last_sync_timestamp_seconds'),
      help: 'Unix time (seconds) at which the informer was last known to be in sync',
      labelNames,
      registers: [],
    });
    this.decodeErrorsTotal = new Counter({
      name: metricName(ns, 'informer_decode_errors_total'),
      help: 'Number of watch events or list items that could not be decoded',
      labelNames,
      registers: [],
    });
  }

  /** The children of one kind, bound on first use and cached. */
  forKind(kind: string): BoundInformerMetrics {
    let b = this.bound.get(kind);
    if (b === undefined) {
      const connects = this.watchConnectsTotal.labels(kind);
      const relists = this.relistsTotal.labels(kind);
      const lastSync = this.lastSyncTimestamp.labels(kind);
      const decodeErrors = this.decodeErrorsTotal.labels(kind);
      b = {
        watchConnected: () => connects.inc(),
        relisted: () => relists.inc(),
        synced: (atMs) => lastSync.set(atMs / 1000),
        decodeError: () => decodeErrors.inc(),
      };
      this.bound.set(kind, b);
    }
    return b;
  }

  /** Every collector, for registration. */
  collectors(): PrometheusCollector[] {
    return [this.watchConnectsTotal, this.relistsTotal, this.lastSyncTimestamp, this.decodeErrorsTotal] as PrometheusCollector[];
  }
}
