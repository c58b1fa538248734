/**
 * Prometheus collectors (prom-client). None is registered in prom-client's global registry: the
 * user registers what `prometheusCollectors()` returns in the registry of their choice. Two
 * controllers in one registry need different `namespace` prefixes, as in grafana-app-sdk.
 *
 * Hot-path cost: prom-client hashes the label values on every call of a child, even a bound one
 * (0.35-0.8 us per call). The per-event metrics therefore count into plain numbers and fixed bucket
 * arrays, bound once per kind and event type, and hand their values to prom-client in each metric's
 * `collect()` callback, which prom-client runs at scrape time: names, types, labels and values are
 * prom-client's, the per-event cost is a few additions.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { LabelValues, Metric } from 'prom-client';
import type { ResourceAction } from '../handlers/actions.js';
import { BucketCounts } from './bucket-counts.js';

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

/** A counter child of one label set. */
export interface CounterChild {
  /** Adds `value` (default 1, must be >= 0). */
  inc(value?: number): void;
}

/** A gauge child of one label set. */
export interface GaugeChild {
  /** Adds `value` (default 1). */
  inc(value?: number): void;
  /** Subtracts `value` (default 1). */
  dec(value?: number): void;
}

/** A histogram child of one label set. */
export interface HistogramChild {
  /** Records one observation (seconds for the duration histograms). */
  observe(value: number): void;
}

/** The children of the per-event metrics for one kind and event type, bound once. */
export interface BoundEventMetrics {
  readonly events: CounterChild;
  readonly eventDuration: HistogramChild;
  readonly ongoingEvents: GaugeChild;
  readonly ongoingProcesses: GaugeChild;
  readonly watcherDuration: HistogramChild;
  readonly reconcilerDuration: HistogramChild;
  readonly watcherErrors: CounterChild;
  readonly reconcilerErrors: CounterChild;
  readonly droppedRetries: CounterChild;
  readonly coalesced: CounterChild;
  /** Retries scheduled, by handler type and reason. */
  retry(handler: HandlerType, reason: RetryReason): void;
}

/** The per-event children of each event type of one kind. */
export type KindEventMetrics = Readonly<Record<ResourceAction, BoundEventMetrics>>;

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

  private readonly bound = new Map<string, KindEventMetrics>();
  /** The local children of each per-event metric, published by the metric's `collect()`. */
  private readonly local = {
    eventsTotal: [] as LocalCounter[],
    eventDuration: [] as HistogramChild[],
    reconcilerDuration: [] as HistogramChild[],
    watcherDuration: [] as HistogramChild[],
    ongoingProcesses: [] as LocalGauge[],
    ongoingEvents: [] as LocalGauge[],
    retriesTotal: [] as LocalCounter[],
    handlerErrorsTotal: [] as LocalCounter[],
    droppedRetriesTotal: [] as LocalCounter[],
    coalescedEventsTotal: [] as LocalCounter[],
  };
  private depthSource: () => number = () => 0;
  private pendingSource: () => number = () => 0;

  constructor(options: MetricsOptions = {}) {
    const ns = options.namespace;
    const labelNames: EventLabels[] = ['event_type', 'kind'];
    const buckets = [...LATENCY_BUCKETS];
    const local = this.local;
    this.eventsTotal = new Counter({
      name: metricName(ns, 'informer_events_total'),
      help: 'Number of events received from informers',
      labelNames,
      registers: [],
      collect() {
        publishCounters(this, local.eventsTotal);
      },
    });
    this.eventDuration = new Histogram({
      name: metricName(ns, 'informer_reconcile_duration_seconds'),
      help: 'Time (in seconds) spent performing all operations related to reconciling an event',
      labelNames,
      buckets,
      registers: [],
      collect() {
        publishHistograms(this, local.eventDuration);
      },
    });
    this.reconcilerDuration = new Histogram({
      name: metricName(ns, 'reconciler_process_duration_seconds'),
      help: 'Time (in seconds) spent performing individual reconciler requests',
      labelNames,
      buckets,
      registers: [],
      collect() {
        publishHistograms(this, local.reconcilerDuration);
      },
    });
    this.watcherDuration = new Histogram({
      name: metricName(ns, 'watcher_process_duration_seconds'),
      help: 'Time (in seconds) spent performing individual watcher calls',
      labelNames,
      buckets,
      registers: [],
      collect() {
        publishHistograms(this, local.watcherDuration);
      },
    });
    this.ongoingProcesses = new Gauge({
      name: metricName(ns, 'ongoing_reconcile_processes'),
      help: 'Number of watcher and reconciler calls currently running',
      labelNames,
      registers: [],
      collect() {
        publishGauges(this, local.ongoingProcesses);
      },
    });
    this.ongoingEvents = new Gauge({
      name: metricName(ns, 'ongoing_reconcile_events'),
      help: 'Number of events currently being processed',
      labelNames,
      registers: [],
      collect() {
        publishGauges(this, local.ongoingEvents);
      },
    });
    this.retriesTotal = new Counter({
      name: metricName(ns, 'controller_retries_total'),
      help: 'Number of retries scheduled (reason: error or requeue)',
      labelNames: ['event_type', 'kind', 'handler', 'reason'],
      registers: [],
      collect() {
        publishCounters(this, local.retriesTotal);
      },
    });
    this.handlerErrorsTotal = new Counter({
      name: metricName(ns, 'controller_handler_errors_total'),
      help: 'Number of watcher and reconciler calls that failed',
      labelNames: ['event_type', 'kind', 'handler'],
      registers: [],
      collect() {
        publishCounters(this, local.handlerErrorsTotal);
      },
    });
    this.droppedRetriesTotal = new Counter({
      name: metricName(ns, 'controller_dropped_retries_total'),
      help: 'Number of pending retries dropped by the retry dequeue policy',
      labelNames,
      registers: [],
      collect() {
        publishCounters(this, local.droppedRetriesTotal);
      },
    });
    this.coalescedEventsTotal = new Counter({
      name: metricName(ns, 'controller_coalesced_events_total'),
      help: 'Number of updates merged into a queued update of the same object',
      labelNames,
      registers: [],
      collect() {
        publishCounters(this, local.coalescedEventsTotal);
      },
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
    return this.forKind(kind)[eventType];
  }

  /** The children of every event type for one kind, bound on first use and cached: a caller keeps them (no lookup per event). */
  forKind(kind: string): KindEventMetrics {
    let byType = this.bound.get(kind);
    if (byType === undefined) {
      byType = { CREATE: this.bind(kind, 'CREATE'), UPDATE: this.bind(kind, 'UPDATE'), DELETE: this.bind(kind, 'DELETE') };
      this.bound.set(kind, byType);
    }
    return byType;
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
    const local = this.local;
    const labels = { event_type: eventType, kind };
    const counter = (list: LocalCounter[], extra?: Record<string, string>): LocalCounter => {
      const c = new LocalCounter(extra === undefined ? labels : { ...labels, ...extra });
      list.push(c);
      return c;
    };
    const gauge = (list: LocalGauge[]): LocalGauge => {
      const g = new LocalGauge(labels);
      list.push(g);
      return g;
    };
    const histogram = (list: HistogramChild[], metric: Histogram<EventLabels>): HistogramChild => {
      if (!histogramMergeSupported()) return metric.labels(labels);
      const h = new LocalHistogram(labels, LATENCY_BUCKETS);
      list.push(h);
      return h;
    };
    // Bound lazily: a series appears once a retry of its kind was scheduled, as for a prom-client child.
    const retries: Record<HandlerType, Partial<Record<RetryReason, LocalCounter>>> = { watcher: {}, reconciler: {} };
    return {
      events: counter(local.eventsTotal),
      eventDuration: histogram(local.eventDuration, this.eventDuration),
      ongoingEvents: gauge(local.ongoingEvents),
      ongoingProcesses: gauge(local.ongoingProcesses),
      watcherDuration: histogram(local.watcherDuration, this.watcherDuration),
      reconcilerDuration: histogram(local.reconcilerDuration, this.reconcilerDuration),
      watcherErrors: counter(local.handlerErrorsTotal, { handler: 'watcher' }),
      reconcilerErrors: counter(local.handlerErrorsTotal, { handler: 'reconciler' }),
      droppedRetries: counter(local.droppedRetriesTotal),
      coalesced: counter(local.coalescedEventsTotal),
      retry(handler, reason) {
        (retries[handler][reason] ??= counter(local.retriesTotal, { handler, reason })).inc();
      },
    };
  }
}

/**
 * A counter child kept as a number. `collect()` adds what was counted since the last scrape to the
 * prom-client counter (a delta, so a registry reset behaves as for a prom-client child).
 */
class LocalCounter implements CounterChild {
  value = 0;
  private published = 0;
  /** A series exists once inc() was called, even with 0, as for a prom-client child. */
  touched = false;
  constructor(readonly labels: LabelValues<string>) {}

  inc(value = 1): void {
    this.value += value;
    this.touched = true;
  }

  publishTo(counter: Counter<string>): void {
    if (!this.touched) return;
    const delta = this.value - this.published;
    if (delta === 0 && this.published !== 0) return;
    this.published = this.value;
    counter.inc(this.labels, delta);
  }
}

/** A gauge child kept as a number; `collect()` sets the prom-client gauge to it. */
class LocalGauge implements GaugeChild {
  value = 0;
  touched = false;
  constructor(readonly labels: LabelValues<string>) {}

  inc(value = 1): void {
    this.value += value;
    this.touched = true;
  }

  dec(value = 1): void {
    this.value -= value;
    this.touched = true;
  }
}

/**
 * A histogram child recording into a fixed bucket array (bucket i counts values <= bounds[i] and
 * > bounds[i-1], as prom-client stores them); `collect()` adds the counts, sum and count recorded since
 * the last scrape to prom-client's series for the same labels.
 */
class LocalHistogram implements HistogramChild {
  private readonly recorded: BucketCounts;
  constructor(
    readonly labels: LabelValues<string>,
    bounds: readonly number[],
  ) {
    this.recorded = new BucketCounts(bounds);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    this.recorded.observe(value);
  }

  publishTo(histogram: Histogram<string>): void {
    const recorded = this.recorded;
    if (recorded.count === 0) return;
    const series = promClientSeries(histogram, this.labels);
    if (series === undefined) return; // not after histogramMergeSupported() said yes
    const bounds = recorded.bounds;
    for (let i = 0; i < bounds.length; i++) {
      series.bucketValues[bounds[i]!] = (series.bucketValues[bounds[i]!] ?? 0) + recorded.counts[i]!;
    }
    series.sum += recorded.sum;
    series.count += recorded.count;
    recorded.reset();
  }
}

function publishCounters(counter: Counter<string>, children: readonly LocalCounter[]): void {
  for (const c of children) c.publishTo(counter);
}

function publishGauges(gauge: Gauge<string>, children: readonly LocalGauge[]): void {
  for (const g of children) if (g.touched) gauge.set(g.labels, g.value);
}

function publishHistograms(histogram: Histogram<string>, children: readonly HistogramChild[]): void {
  for (const h of children) if (h instanceof LocalHistogram) h.publishTo(histogram);
}

/** One series of a prom-client histogram, as prom-client 13-15 keeps it. */
interface HistogramSeries {
  labels: LabelValues<string>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/**
 * prom-client's series of `labels` in `histogram` (created with the public `zero()` when missing), for
 * {@link LocalHistogram} to add its pre-counted observations to; undefined if this prom-client keeps its
 * series another way.
 *
 * The one place that reads a dependency's private field (`hashMap`): prom-client 15 has no public way to add
 * pre-counted observations (an `observe(labels, value, count)` or a merge of bucket counts, sum and count),
 * and observing every value through a bound child instead (it builds and hashes the label string on each
 * call: about 4,600 instructions, 0.38 us) cost 9-10% more CPU per event in the ingest bench, and added 8-9%
 * to its instructions per event (docs/benchmarks.md, "prom-client histograms").
 */
function promClientSeries(histogram: Histogram<string>, labels: LabelValues<string>): HistogramSeries | undefined {
  const find = (): Partial<HistogramSeries> | undefined => {
    const map = (histogram as unknown as { hashMap?: Record<string, Partial<HistogramSeries>> }).hashMap;
    if (map === null || typeof map !== 'object') return undefined;
    for (const series of Object.values(map)) {
      const have = series.labels ?? {};
      const keys = Object.keys(labels);
      if (Object.keys(have).length === keys.length && keys.every((k) => String(have[k]) === String(labels[k]))) return series;
    }
    return undefined;
  };
  let series = find();
  if (series === undefined) {
    histogram.zero(labels);
    series = find();
  }
  const usable = series !== undefined && typeof series.sum === 'number' && typeof series.count === 'number' && typeof series.bucketValues === 'object' && series.bucketValues !== null;
  return usable ? (series as HistogramSeries) : undefined;
}

let mergeSupported: boolean | undefined;

/** Whether {@link promClientSeries} works with the installed prom-client (tried once on a throwaway histogram). */
function histogramMergeSupported(): boolean {
  if (mergeSupported === undefined) {
    try {
      const probe = new Histogram({ name: 'kubeloop_probe', help: 'probe', labelNames: ['l'], buckets: [1], registers: [] });
      mergeSupported = promClientSeries(probe, { l: 'x' })?.bucketValues[1] === 0;
    } catch {
      mergeSupported = false;
    }
  }
  return mergeSupported;
}

/** Why an informer started its list or watch again (`informer_restarts_total{reason}`). */
export type InformerRestartReason =
  /** The watch ended cleanly (the server's `timeoutSeconds`, a graceful drop): re-watched from the last resourceVersion. */
  | 'clean_end'
  /** A list or watch failed (network, 5xx, 429, a malformed line...): backed off, then resumed. */
  | 'error'
  /** The resourceVersion was too old (410 Gone): a full relist. */
  | 'expired'
  /** The watch delivered nothing for the inactivity timeout: closed and resumed. */
  | 'inactivity';

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
  /** A watch ended, or a list failed, for `reason`. */
  restarted(reason: InformerRestartReason): void;
  /** The informer waits `delayMs` before its next request; 0 once it goes on. */
  backingOff(delayMs: number): void;
  /** A watch event or bookmark arrived at `atMs` (epoch milliseconds). Called per event: only stores a number. */
  eventReceived(atMs: number): void;
  /** KEP-5866: whether the informer's shard is filtered on the client (the server did not echo `shardInfo`). Optional for other implementations. */
  shardClientFiltering?(onClient: boolean): void;
  /** KEP-5866: `count` listed objects or watch events dropped on the client as outside the informer's shard. Optional for other implementations. */
  shardFilteredOnClient?(count: number): void;
}

/**
 * Informer metrics, for informer implementations to receive as an option and count into (label `kind`):
 * `informer_watch_connects_total`, `informer_relists_total`, `informer_last_sync_timestamp_seconds`,
 * `informer_decode_errors_total`, `informer_restarts_total{reason}` (see {@link InformerRestartReason}),
 * `informer_backoff_seconds` (the wait before the next request, 0 when none) and
 * `informer_last_event_timestamp_seconds` (the last watch event or bookmark; alert on `time() - it`),
 * and for sharded informers `informer_shard_client_filtering` (1 while the server ignores the shard
 * selector and the informer filters on the client) and `informer_shard_filtered_events_total`.
 */
export class InformerMetrics {
  readonly watchConnectsTotal: Counter<'kind'>;
  readonly relistsTotal: Counter<'kind'>;
  readonly lastSyncTimestamp: Gauge<'kind'>;
  readonly decodeErrorsTotal: Counter<'kind'>;
  readonly restartsTotal: Counter<'kind' | 'reason'>;
  readonly backoffSeconds: Gauge<'kind'>;
  readonly lastEventTimestamp: Gauge<'kind'>;
  readonly shardClientFiltering: Gauge<'kind'>;
  readonly shardFilteredEventsTotal: Counter<'kind'>;
  private readonly bound = new Map<string, BoundInformerMetrics>();
  /** Per kind, the epoch milliseconds of the last event (0: none yet), published at scrape time. */
  private readonly lastEventMs = new Map<string, { atMs: number }>();
  /** Per kind, plain counts for the status page (prom-client's values are only read asynchronously). */
  private readonly counts = new Map<string, { watchConnects: number; restarts: number }>();

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
    this.restartsTotal = new Counter({
      name: metricName(ns, 'informer_restarts_total'),
      help: 'Number of times the informer listed or watched again, by reason (clean_end, error, expired, inactivity)',
      labelNames: ['kind', 'reason'],
      registers: [],
    });
    this.backoffSeconds = new Gauge({
      name: metricName(ns, 'informer_backoff_seconds'),
      help: 'Seconds the informer waits before its next list or watch request (0 when it is not waiting)',
      labelNames,
      registers: [],
    });
    this.shardClientFiltering = new Gauge({
      name: metricName(ns, 'informer_shard_client_filtering'),
      help: 'KEP-5866: 1 while the server ignores the informer shard selector (no shardInfo) and objects are filtered on the client, 0 when the server filters',
      labelNames,
      registers: [],
    });
    this.shardFilteredEventsTotal = new Counter({
      name: metricName(ns, 'informer_shard_filtered_events_total'),
      help: 'KEP-5866: listed objects and watch events dropped on the client as outside the informer shard',
      labelNames,
      registers: [],
    });
    const lastEventMs = this.lastEventMs;
    this.lastEventTimestamp = new Gauge({
      name: metricName(ns, 'informer_last_event_timestamp_seconds'),
      help: 'Unix time (seconds) of the last watch event or bookmark received',
      labelNames,
      registers: [],
      collect() {
        for (const [kind, last] of lastEventMs) if (last.atMs > 0) this.labels(kind).set(last.atMs / 1000);
      },
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
      const backoff = this.backoffSeconds.labels(kind);
      const lastEvent = { atMs: 0 };
      this.lastEventMs.set(kind, lastEvent);
      const counts = { watchConnects: 0, restarts: 0 };
      this.counts.set(kind, counts);
      b = {
        watchConnected: () => {
          counts.watchConnects++;
          connects.inc();
        },
        relisted: () => relists.inc(),
        synced: (atMs) => lastSync.set(atMs / 1000),
        decodeError: () => decodeErrors.inc(),
        restarted: (reason) => {
          counts.restarts++;
          this.restartsTotal.labels(kind, reason).inc();
        },
        backingOff: (delayMs) => backoff.set(delayMs / 1000),
        eventReceived: (atMs) => {
          lastEvent.atMs = atMs;
        },
        shardClientFiltering: (onClient) => this.shardClientFiltering.labels(kind).set(onClient ? 1 : 0),
        shardFilteredOnClient: (count) => this.shardFilteredEventsTotal.labels(kind).inc(count),
      };
      this.bound.set(kind, b);
    }
    return b;
  }

  /** What the informers of `kind` counted so far (the status page); undefined when none counts into these metrics. */
  statsOf(kind: string): { watchConnects: number; restarts: number; lastEventMs: number } | undefined {
    const counts = this.counts.get(kind);
    return counts === undefined ? undefined : { ...counts, lastEventMs: this.lastEventMs.get(kind)?.atMs ?? 0 };
  }

  /** Every collector, for registration. */
  collectors(): PrometheusCollector[] {
    return [
      this.watchConnectsTotal,
      this.relistsTotal,
      this.lastSyncTimestamp,
      this.decodeErrorsTotal,
      this.restartsTotal,
      this.backoffSeconds,
      this.lastEventTimestamp,
      this.shardClientFiltering,
      this.shardFilteredEventsTotal,
    ] as PrometheusCollector[];
  }
}
