/**
 * How long work waits and runs in a controller's queue, under client-go's work-queue metric names
 * (label `name`, the controller's name):
 * - `workqueue_queue_duration_seconds` (histogram): from an event or a due retry entering the queue
 *   to its handlers starting. A queued update merged into one already waiting keeps the first one's
 *   time, as client-go's dirty set does; the wait includes the time spent behind the same object's
 *   running handler (client-go starts that clock when the object is queued again after `Done`).
 * - `workqueue_unfinished_work_seconds` (gauge): the seconds of work in progress and not finished,
 *   summed over the running items; growing steadily means stuck handlers.
 * - `workqueue_longest_running_processor_seconds` (gauge): how long the longest running item has run.
 * Times come from the controller's `Clock` (virtual in tests); the gauges are computed at scrape time.
 */
import { Gauge, Histogram } from 'prom-client';
import type { Clock } from './clock.js';
import { LATENCY_BUCKETS } from './metrics.js';
import type { PrometheusCollector } from './metrics.js';

/** Options of {@link QueueMetrics}. */
export interface QueueMetricsOptions {
  /** Source of time. */
  clock: Clock;
  /** The `name` label. Default: '' (the `Operator` adds its `controller` label). */
  name?: string | undefined;
  /** Prefix of the metric names. Default: none. */
  namespace?: string | undefined;
}

/** A work queue's `process` callback. */
export type ProcessFn<K, V> = (key: K, item: V) => Promise<void> | undefined;

/** Queue wait and processing times of one controller. */
export class QueueMetrics {
  readonly queueDuration: Histogram<'name'>;
  readonly unfinishedWork: Gauge<'name'>;
  readonly longestRunning: Gauge<'name'>;
  private readonly clock: Clock;
  private readonly queuedAt = new WeakMap<object, number>();
  /** Start times (clock ms) of the items running now. */
  private readonly running = new Set<{ startedAt: number }>();
  private readonly observeWait: (seconds: number) => void;

  constructor(options: QueueMetricsOptions) {
    this.clock = options.clock;
    const name = options.name ?? '';
    const ns = options.namespace;
    const metricName = (n: string): string => (ns ? `${ns}_${n}` : n);
    this.queueDuration = new Histogram({
      name: metricName('workqueue_queue_duration_seconds'),
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: [...LATENCY_BUCKETS],
      registers: [],
    });
    const wait = this.queueDuration.labels(name);
    this.observeWait = (seconds) => wait.observe(seconds);
    const running = this.running;
    const clock = this.clock;
    this.unfinishedWork = new Gauge({
      name: metricName('workqueue_unfinished_work_seconds'),
      help: 'How many seconds of work has been done that is in progress and has not been observed by work_duration',
      labelNames: ['name'],
      registers: [],
      collect() {
        const now = clock.now();
        let total = 0;
        for (const r of running) total += now - r.startedAt;
        this.labels(name).set(total / 1000);
      },
    });
    this.longestRunning = new Gauge({
      name: metricName('workqueue_longest_running_processor_seconds'),
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name'],
      registers: [],
      collect() {
        const now = clock.now();
        let longest = 0;
        for (const r of running) longest = Math.max(longest, now - r.startedAt);
        this.labels(name).set(longest / 1000);
      },
    });
  }

  /** An item goes into the queue now (an item merged away is simply never processed). */
  queued(item: object): void {
    this.queuedAt.set(item, this.clock.now());
  }

  /** `process`, timed: the wait of each item when it starts, and each item as running until it settles. */
  wrap<K, V extends object>(process: ProcessFn<K, V>): ProcessFn<K, V> {
    return (key, item) => {
      const now = this.clock.now();
      const at = this.queuedAt.get(item);
      if (at !== undefined) {
        this.queuedAt.delete(item);
        this.observeWait((now - at) / 1000);
      }
      const entry = { startedAt: now };
      this.running.add(entry);
      let pending: Promise<void> | undefined;
      try {
        pending = process(key, item);
      } finally {
        if (pending === undefined) this.running.delete(entry);
      }
      return pending?.finally(() => this.running.delete(entry));
    };
  }

  /** Every collector, for registration. */
  collectors(): PrometheusCollector[] {
    return [this.queueDuration, this.unfinishedWork, this.longestRunning] as PrometheusCollector[];
  }
}
