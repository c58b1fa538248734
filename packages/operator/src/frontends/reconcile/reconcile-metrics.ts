/**
 * Metrics of a level-based controller, under controller-runtime's names so that existing dashboards
 * work: `controller_runtime_reconcile_total{controller,result}`, `..._reconcile_errors_total`,
 * `..._terminal_reconcile_errors_total`, `..._reconcile_time_seconds`, `..._active_workers`,
 * `..._max_concurrent_reconciles`, and the work queue's `workqueue_depth`, `workqueue_adds_total`,
 * `workqueue_retries_total{name}`. Nothing is registered globally (see `prometheusCollectors()`).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS } from '../../observability/metrics.js';
import type { PrometheusCollector } from '../../observability/metrics.js';

/** How a reconcile ended, the `result` label of `controller_runtime_reconcile_total`. */
export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** Options of {@link ReconcileMetrics}. */
export interface ReconcileMetricsOptions {
  /** The `controller` (and work queue `name`) label. */
  controller: string;
  /** Prefix of every metric name. Default: none. */
  namespace?: string | undefined;
  /** Read when `workqueue_depth` is collected. */
  depth: () => number;
  /** The value of `controller_runtime_max_concurrent_reconciles`. */
  maxConcurrentReconciles: number;
}

/** The collectors of one controller, with label children bound once. */
export class ReconcileMetrics {
  private readonly all: PrometheusCollector[];
  private readonly outcomes: Record<ReconcileOutcome, Counter.Internal>;
  /** Reconciles that threw (terminal or not). */
  readonly errors: Counter.Internal;
  /** Reconciles that threw a TerminalError. */
  readonly terminalErrors: Counter.Internal;
  /** Seconds per reconcile. */
  readonly reconcileTime: Histogram.Internal<'controller'>;
  /** Reconciles running now. */
  readonly activeWorkers: Gauge.Internal<'controller'>;
  /** Requests added to the queue (not counting those merged into a queued one). */
  readonly adds: Counter.Internal;
  /** Rate-limited requeues (errors and `requeue: true`). */
  readonly retries: Counter.Internal;

  constructor(options: ReconcileMetricsOptions) {
    const name = (n: string): string => (options.namespace ? `${options.namespace}_${n}` : n);
    const controller = options.controller;
    const total = new Counter({
      name: name('controller_runtime_reconcile_total'),
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers: [],
    });
    const errors = new Counter({ name: name('controller_runtime_reconcile_errors_total'), help: 'Total number of reconciliation errors per controller', labelNames: ['controller'], registers: [] });
    const terminal = new Counter({
      name: name('controller_runtime_terminal_reconcile_errors_total'),
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers: [],
    });
    const time = new Histogram({
      name: name('controller_runtime_reconcile_time_seconds'),
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [...LATENCY_BUCKETS],
      registers: [],
    });
    const active = new Gauge({ name: name('controller_runtime_active_workers'), help: 'Number of currently used workers per controller', labelNames: ['controller'], registers: [] });
    const max = new Gauge({ name: name('controller_runtime_max_concurrent_reconciles'), help: 'Maximum number of concurrent reconciles per controller', labelNames: ['controller'], registers: [] });
    max.labels(controller).set(options.maxConcurrentReconciles);
    const depthSource = options.depth;
    const depth = new Gauge({
      name: name('workqueue_depth'),
      help: 'Current depth of workqueue',
      labelNames: ['name'],
      registers: [],
      collect() {
        this.labels(controller).set(depthSource());
      },
    });
    const adds = new Counter({ name: name('workqueue_adds_total'), help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers: [] });
    const retries = new Counter({ name: name('workqueue_retries_total'), help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers: [] });

    this.all = [total, errors, terminal, time, active, max, depth, adds, retries] as PrometheusCollector[];
    this.outcomes = {
      success: total.labels(controller, 'success'),
      error: total.labels(controller, 'error'),
      requeue: total.labels(controller, 'requeue'),
      requeue_after: total.labels(controller, 'requeue_after'),
    };
    this.errors = errors.labels(controller);
    this.terminalErrors = terminal.labels(controller);
    this.reconcileTime = time.labels(controller);
    this.activeWorkers = active.labels(controller);
    this.adds = adds.labels(controller);
    this.retries = retries.labels(controller);
  }

  /** Counts one reconcile by how it ended. */
  outcome(outcome: ReconcileOutcome): void {
    this.outcomes[outcome].inc();
  }

  /** Every collector, for registration. */
  collectors(): PrometheusCollector[] {
    return this.all;
  }
}
