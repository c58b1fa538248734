import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry, register as globalRegistry } from 'prom-client';
import { VirtualClock } from '../clock.js';
import { InformerController } from '../controller/informer-controller.js';
import { noopLogger } from './logger.js';
import { ControllerMetrics, InformerMetrics, LATENCY_BUCKETS } from './metrics.js';
import { FakeInformer, widget } from '../testing/fake-informer.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

type PrometheusCollectorLike = Counter | Gauge | Histogram;

describe('ControllerMetrics', () => {
  test('uses the upstream names, the namespace prefix and the upstream buckets, and registers nothing globally', async () => {
    const m = new ControllerMetrics({ namespace: 'unit_ns' });
    const names = m.collectors().map((c) => (c as unknown as { name: string }).name);
    assert.ok(names.includes('unit_ns_informer_events_total'));
    assert.ok(names.includes('unit_ns_watcher_process_duration_seconds'));
    assert.equal(globalRegistry.getSingleMetric('unit_ns_informer_events_total'), undefined);
    assert.deepEqual(LATENCY_BUCKETS, [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100]);
    m.forEvent('Widget', 'CREATE').reconcilerDuration.observe(0.003);
    const registry = new Registry();
    for (const c of m.collectors()) registry.registerMetric(c);
    assert.match(await registry.metrics(), /unit_ns_reconciler_process_duration_seconds_bucket\{le="0.005"/);
  });

  test('bound children are cached per kind and event type and move the labelled series', async () => {
    const m = new ControllerMetrics();
    const a = m.forEvent('Widget', 'UPDATE');
    assert.equal(m.forEvent('Widget', 'UPDATE'), a);
    a.events.inc();
    a.events.inc();
    a.retry('reconciler', 'requeue');
    m.forEvent('Gadget', 'DELETE').events.inc();
    const events = (await m.eventsTotal.get()).values;
    assert.deepEqual(
      events.map((v) => [v.labels.event_type, v.labels.kind, v.value]).sort(),
      [
        ['DELETE', 'Gadget', 1],
        ['UPDATE', 'Widget', 2],
      ],
    );
    const retries = (await m.retriesTotal.get()).values;
    assert.deepEqual(retries[0]?.labels, { event_type: 'UPDATE', kind: 'Widget', handler: 'reconciler', reason: 'requeue' });
  });

  test("the kind label is the object's kind, as upstream, not the string the informer was registered under", async () => {
    const controller = new InformerController({ clock: new VirtualClock(), logger: noopLogger });
    const informer = new FakeInformer();
    controller.addInformer(informer, 'widgets');
    controller.addReconciler({ reconcile: async () => ({}) }, 'widgets');
    const stop = runUntilStopped(controller);
    informer.add(widget('a'));
    await controller.whenIdle();
    await stop();
    const registry = new Registry();
    for (const c of controller.prometheusCollectors()) registry.registerMetric(c);
    const text = await registry.metrics();
    assert.match(text, /informer_events_total\{event_type="CREATE",kind="Widget"\} 1/);
    assert.match(text, /reconciler_process_duration_seconds_count\{event_type="CREATE",kind="Widget"\} 1/);
    assert.doesNotMatch(text, /kind="widgets"/);
  });

  test('the plain-number children expose exactly what prom-client children fed the same calls expose', async () => {
    const m = new ControllerMetrics();
    const labelNames = ['event_type', 'kind'];
    const reference = {
      events: new Counter({ name: 'informer_events_total', help: 'Number of events received from informers', labelNames, registers: [] }),
      ongoing: new Gauge({ name: 'ongoing_reconcile_events', help: 'Number of events currently being processed', labelNames, registers: [] }),
      duration: new Histogram({
        name: 'watcher_process_duration_seconds',
        help: 'Time (in seconds) spent performing individual watcher calls',
        labelNames,
        buckets: [...LATENCY_BUCKETS],
        registers: [],
      }),
    };
    const observations = [0.0001, 0.005, 0.0051, 0.3, 7, 100, 250, 0.0049];
    for (const [kind, type] of [['Widget', 'UPDATE'], ['Gadget', 'CREATE']] as const) {
      const b = m.forEvent(kind, type);
      for (const v of observations) {
        b.events.inc();
        b.ongoingEvents.inc();
        b.watcherDuration.observe(v);
        reference.events.labels(type, kind).inc();
        reference.ongoing.labels(type, kind).inc();
        reference.duration.labels(type, kind).observe(v);
      }
      b.ongoingEvents.dec();
      reference.ongoing.labels(type, kind).dec();
    }
    const text = async (metrics: PrometheusCollectorLike[]): Promise<string> => {
      const registry = new Registry();
      for (const c of metrics) registry.registerMetric(c);
      return registry.metrics();
    };
    const ours = [m.eventsTotal, m.ongoingEvents, m.watcherDuration];
    const theirs = [reference.events, reference.ongoing, reference.duration];
    assert.equal(await text(ours), await text(theirs));
    // A second scrape adds only what happened since the first one.
    m.forEvent('Widget', 'UPDATE').watcherDuration.observe(0.02);
    reference.duration.labels('UPDATE', 'Widget').observe(0.02);
    m.forEvent('Widget', 'UPDATE').events.inc(3);
    reference.events.labels('UPDATE', 'Widget').inc(3);
    assert.equal(await text(ours), await text(theirs));
    assert.match(await text(ours), /watcher_process_duration_seconds_count\{event_type="UPDATE",kind="Widget"\} 9/);
  });

  test('the queue depth and pending retry gauges read their sources when collected', async () => {
    const m = new ControllerMetrics();
    let depth = 3;
    m.setSources(
      () => depth,
      () => 7,
    );
    assert.equal((await m.queueDepth.get()).values[0]?.value, 3);
    depth = 5;
    assert.equal((await m.queueDepth.get()).values[0]?.value, 5);
    assert.equal((await m.pendingRetries.get()).values[0]?.value, 7);
  });
});

describe('InformerMetrics', () => {
  test('counts connects, relists, decode errors and the last sync time per kind', async () => {
    const m = new InformerMetrics({ namespace: 'inf' });
    const w = m.forKind('Widget');
    assert.equal(m.forKind('Widget'), w);
    w.watchConnected();
    w.watchConnected();
    w.relisted();
    w.decodeError();
    w.synced(1_700_000_000_000);
    assert.equal((await m.watchConnectsTotal.get()).values[0]?.value, 2);
    assert.equal((await m.relistsTotal.get()).values[0]?.value, 1);
    assert.equal((await m.decodeErrorsTotal.get()).values[0]?.value, 1);
    assert.equal((await m.lastSyncTimestamp.get()).values[0]?.value, 1_700_000_000);
    const names = m.collectors().map((c) => (c as unknown as { name: string }).name);
    assert.deepEqual(names, [
      'inf_informer_watch_connects_total',
      'inf_informer_relists_total',
      'inf_informer_last_sync_timestamp_seconds',
      'inf_informer_decode_errors_total',
      'inf_informer_restarts_total',
      'inf_informer_backoff_seconds',
      'inf_informer_last_event_timestamp_seconds',
      'inf_informer_shard_client_filtering',
      'inf_informer_shard_filtered_events_total',
    ]);
  });

  test('counts restarts by reason, shows the current backoff, and publishes the last event time at scrape', async () => {
    const m = new InformerMetrics();
    const w = m.forKind('Widget');
    w.restarted('clean_end');
    w.restarted('clean_end');
    w.restarted('expired');
    w.backingOff(1500);
    const restarts = (await m.restartsTotal.get()).values.map((v) => [v.labels.reason, v.value]);
    assert.deepEqual(restarts, [
      ['clean_end', 2],
      ['expired', 1],
    ]);
    assert.equal((await m.backoffSeconds.get()).values[0]?.value, 1.5);
    assert.deepEqual((await m.lastEventTimestamp.get()).values, [], 'no event yet: no sample');
    w.eventReceived(1_700_000_000_000);
    w.eventReceived(1_700_000_002_500);
    assert.equal((await m.lastEventTimestamp.get()).values[0]?.value, 1_700_000_002.5);
  });
});
