import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry, register as globalRegistry } from 'prom-client';
import { ControllerMetrics, InformerMetrics, LATENCY_BUCKETS } from './metrics.js';

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
    ]);
  });
});
