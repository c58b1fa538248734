import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { VirtualClock } from '../clock.js';
import { InformerCacheMetrics } from './informer-cache-metrics.js';
import { InformerController } from '../controller/informer-controller.js';
import { noopLogger } from './logger.js';
import { FakeInformer } from '../testing/fake-informer.js';

function registryOf(metrics: { collectors(): ReturnType<InformerCacheMetrics['collectors']> } | { prometheusCollectors(): ReturnType<InformerCacheMetrics['collectors']> }): Registry {
  const registry = new Registry();
  for (const c of 'collectors' in metrics ? metrics.collectors() : metrics.prometheusCollectors()) registry.registerMetric(c);
  return registry;
}

describe('InformerCacheMetrics', () => {
  test('publishes the last resourceVersion and how long ago it changed, as seen by scrapes', async () => {
    const clock = new VirtualClock(1_000_000);
    const metrics = new InformerCacheMetrics({ clock });
    let rv = '100';
    metrics.track('Widget', { lastSyncResourceVersion: () => rv });
    const registry = registryOf(metrics);
    await clock.advance(5000);
    let text = await registry.metrics();
    assert.match(text, /^informer_last_resource_version\{kind="Widget"\} 100$/m);
    assert.match(text, /^informer_resource_version_age_seconds\{kind="Widget"\} 5$/m);
    rv = '250';
    await clock.advance(1000);
    text = await registry.metrics();
    assert.match(text, /^informer_last_resource_version\{kind="Widget"\} 250$/m);
    assert.match(text, /^informer_resource_version_age_seconds\{kind="Widget"\} 0$/m, 'the change was seen now');
    await clock.advance(61_000);
    assert.match(await registry.metrics(), /^informer_resource_version_age_seconds\{kind="Widget"\} 61$/m);
  });

  test('several informers of a kind: the highest resourceVersion and the oldest age; a non-numeric resourceVersion is not published', async () => {
    const clock = new VirtualClock();
    const metrics = new InformerCacheMetrics({ clock });
    let fresh = '7';
    metrics.track('Widget', { lastSyncResourceVersion: () => '9' });
    metrics.track('Widget', { lastSyncResourceVersion: () => fresh });
    metrics.track('Gadget', { lastSyncResourceVersion: () => 'opaque-token' });
    const registry = registryOf(metrics);
    await clock.advance(10_000);
    fresh = '8';
    const text = await registry.metrics();
    assert.match(text, /^informer_last_resource_version\{kind="Widget"\} 9$/m);
    assert.match(text, /^informer_resource_version_age_seconds\{kind="Widget"\} 10$/m, 'the stale one decides');
    assert.doesNotMatch(text, /informer_last_resource_version\{kind="Gadget"\}/);
    assert.match(text, /^informer_resource_version_age_seconds\{kind="Gadget"\} 10$/m);
  });

  test('an InformerController publishes them for the informers it was given', async () => {
    const controller = new InformerController({ clock: new VirtualClock(), logger: noopLogger });
    controller.addInformer(new FakeInformer(), 'widgets');
    const text = await registryOf(controller).metrics();
    assert.match(text, /^informer_resource_version_age_seconds\{kind="Widget"\} 0$/m);
    assert.match(text, /# TYPE workqueue_queue_duration_seconds histogram/);
  });
});
