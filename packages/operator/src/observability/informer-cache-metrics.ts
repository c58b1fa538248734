/**
 * How fresh a controller's caches are, read from its informers at scrape time (no per-event cost):
 * - `informer_last_resource_version{kind}` (gauge): the cache's last resourceVersion (from a list, a
 *   watch event or a bookmark), when it is a number (kube-apiserver's are; they are opaque by
 *   contract, so a non-numeric one is not published);
 * - `informer_resource_version_age_seconds{kind}` (gauge): seconds since that resourceVersion last
 *   changed, as seen by the scrapes (so with the scrape interval's granularity). A live watch moves
 *   it with every event and bookmark (kube-apiserver sends one about every minute), so an age well
 *   above the bookmark period means a stuck or silent watch.
 * Several informers of one kind (one per namespace) publish the highest resourceVersion and the
 * oldest age. Times come from the controller's `Clock`.
 */
import { Gauge } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Informer } from '../informer/informer.js';
import type { PrometheusCollector } from './metrics.js';

/** Options of {@link InformerCacheMetrics}. */
export interface InformerCacheMetricsOptions {
  /** Source of time for the age. */
  clock: Clock;
  /** Prefix of the metric names. Default: none. */
  namespace?: string | undefined;
}

interface Tracked {
  readonly kind: string;
  readonly informer: Pick<Informer, 'lastSyncResourceVersion'>;
  lastSeen: string;
  changedAt: number;
}

/** The freshness gauges of the informers of one controller. */
export class InformerCacheMetrics {
  readonly lastResourceVersion: Gauge<'kind'>;
  readonly resourceVersionAge: Gauge<'kind'>;
  private readonly tracked: Tracked[] = [];
  private readonly clock: Clock;

  constructor(options: InformerCacheMetricsOptions) {
    const ns = options.namespace;
    const clock = options.clock;
    const metricName = (n: string): string => (ns ? `${ns}_${n}` : n);
    const tracked = this.tracked;
    /** Reads every informer once per scrape; both gauges collect from it. */
    const read = (): Map<string, { rv: number | undefined; ageMs: number }> => {
      const now = clock.now();
      const byKind = new Map<string, { rv: number | undefined; ageMs: number }>();
      for (const t of tracked) {
        const rv = t.informer.lastSyncResourceVersion();
        if (rv !== t.lastSeen) {
          t.lastSeen = rv;
          t.changedAt = now;
        }
        const numeric = /^\d+$/.test(rv) ? Number(rv) : undefined;
        const previous = byKind.get(t.kind);
        byKind.set(t.kind, {
          rv: previous?.rv === undefined ? numeric : numeric === undefined ? previous.rv : Math.max(previous.rv, numeric),
          ageMs: Math.max(previous?.ageMs ?? 0, now - t.changedAt),
        });
      }
      return byKind;
    };
    this.lastResourceVersion = new Gauge({
      name: metricName('informer_last_resource_version'),
      help: 'The last resourceVersion of the informer cache (list, watch event or bookmark), when numeric',
      labelNames: ['kind'],
      registers: [],
      collect() {
        for (const [kind, state] of read()) if (state.rv !== undefined) this.labels(kind).set(state.rv);
      },
    });
    this.resourceVersionAge = new Gauge({
      name: metricName('informer_resource_version_age_seconds'),
      help: 'Seconds since the resourceVersion of the informer cache last changed (as seen by scrapes)',
      labelNames: ['kind'],
      registers: [],
      collect() {
        for (const [kind, state] of read()) this.labels(kind).set(state.ageMs / 1000);
      },
    });
    this.clock = clock;
  }

  /** Publishes the freshness of `informer` under `kind` from now on. */
  track(kind: string, informer: Pick<Informer, 'lastSyncResourceVersion'>): void {
    this.tracked.push({ kind, informer, lastSeen: informer.lastSyncResourceVersion(), changedAt: this.clock.now() });
  }

  /** Every collector, for registration. */
  collectors(): PrometheusCollector[] {
    return [this.lastResourceVersion, this.resourceVersionAge] as PrometheusCollector[];
  }
}
