import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { VirtualClock } from '../clock.js';
import { InformerController } from '../controller/informer-controller.js';
import { noopLogger } from './logger.js';
import { QueueMetrics } from './queue-metrics.js';
import { FakeInformer, deferred, waitFor, widget } from '../testing/fake-informer.js';

const KIND = 'widgets.test.example.com';

async function scrape(collectors: ReturnType<QueueMetrics['collectors']>): Promise<string> {
  const registry = new Registry();
  for (const c of collectors) registry.registerMetric(c);
  return registry.metrics();
}

describe('QueueMetrics', () => {
  test('the wait is observed when an item starts; running items count as unfinished work and the longest runner', async () => {
    const clock = new VirtualClock();
    const metrics = new QueueMetrics({ clock, name: 'widgets' });
    const release = deferred();
    const process = metrics.wrap<string, { n: number; queuedAt?: number }>((_key, item) => (item.n === 1 ? release.promise : undefined));
    const first: { n: number; queuedAt?: number } = { n: 1 };
    const second: { n: number; queuedAt?: number } = { n: 2 };
    metrics.queued(first);
    metrics.queued(second);
    await clock.advance(2000);
    const running = process('a', first);
    await clock.advance(3000);
    assert.equal(process('b', second), undefined);
    await clock.advance(1000);
    const during = await scrape(metrics.collectors());
    assert.match(during, /^workqueue_queue_duration_seconds_count\{name="widgets"\} 2$/m);
    assert.match(during, /^workqueue_queue_duration_seconds_sum\{name="widgets"\} 7$/m, 'waited 2 s and 5 s');
    assert.match(during, /^workqueue_queue_duration_seconds_bucket\{le="2.5",name="widgets"\} 1$/m);
    assert.match(during, /^workqueue_unfinished_work_seconds\{name="widgets"\} 4$/m, 'only the first is still running, for 4 s');
    assert.match(during, /^workqueue_longest_running_processor_seconds\{name="widgets"\} 4$/m);
    release.resolve();
    await running;
    const after = await scrape(metrics.collectors());
    assert.match(after, /^workqueue_unfinished_work_seconds\{name="widgets"\} 0$/m);
    assert.match(after, /^workqueue_longest_running_processor_seconds\{name="widgets"\} 0$/m);
  });

  test('a process that throws is not left running', async () => {
    const clock = new VirtualClock();
    const metrics = new QueueMetrics({ clock });
    const process = metrics.wrap<string, { queuedAt?: number }>(() => {
      throw new Error('boom');
    });
    assert.throws(() => process('k', {}), /boom/);
    await clock.advance(5000);
    assert.match(await scrape(metrics.collectors()), /^workqueue_longest_running_processor_seconds\{name=""\} 0$/m);
  });
});

describe('InformerController queue observability', () => {
  test('an object waiting behind a busy worker shows its wait; a stuck reconciler shows as unfinished and longest-running work', async () => {
    const clock = new VirtualClock();
    const controller = new InformerController({ clock, logger: noopLogger, maxConcurrentWorkers: 1, name: 'widgets' });
    const informer = new FakeInformer();
    controller.addInformer(informer, KIND);
    const release = deferred();
    let calls = 0;
    controller.addReconciler(
      {
        reconcile: async () => {
          calls++;
          if (calls === 1) await release.promise;
          return {};
        },
      },
      KIND,
    );
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    try {
      await waitFor(() => informer.hasSynced());
      informer.add(widget('stuck'));
      informer.add(widget('waiting'));
      await waitFor(() => calls === 1);
      await clock.advance(30_000);
      const registry = new Registry();
      for (const c of controller.prometheusCollectors()) registry.registerMetric(c);
      const during = await registry.metrics();
      assert.match(during, /^workqueue_unfinished_work_seconds\{name="widgets"\} 30$/m);
      assert.match(during, /^workqueue_longest_running_processor_seconds\{name="widgets"\} 30$/m);
      release.resolve();
      await controller.whenIdle();
      assert.equal(calls, 2);
      const after = await registry.metrics();
      assert.match(after, /^workqueue_queue_duration_seconds_count\{name="widgets"\} 2$/m);
      assert.match(after, /^workqueue_queue_duration_seconds_sum\{name="widgets"\} 30$/m, 'the second object waited 30 s for the only worker');
      assert.match(after, /^workqueue_unfinished_work_seconds\{name="widgets"\} 0$/m);
    } finally {
      stop.abort();
      await running;
    }
  });
});
