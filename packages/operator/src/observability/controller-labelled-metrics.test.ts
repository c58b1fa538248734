import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '@kubeloop/apiserver/testing';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ControllerLabelledMetrics } from './controller-labelled-metrics.js';
import type { LabelledSource } from './controller-labelled-metrics.js';
import { isInvalidArgumentError } from '../errors.js';
import { InformerController } from '../controller/informer-controller.js';
import { noopLogger } from './logger.js';
import { Operator } from '../controller/operator.js';
import { OperatorServer } from '../runtime/operator-server.js';
import { FakeInformer, waitFor, widget } from '../testing/fake-informer.js';

const KIND = 'widgets.test.example.com';

describe('ControllerLabelledMetrics', () => {
  test('holds one collector per name and labels each controller’s samples with its name', async () => {
    const a = new Counter({ name: 'events_total', help: 'events', labelNames: ['kind'], registers: [] });
    const b = new Counter({ name: 'events_total', help: 'events', labelNames: ['kind'], registers: [] });
    a.inc({ kind: 'A' }, 2);
    b.inc({ kind: 'B' }, 3);
    const set = new ControllerLabelledMetrics(() => [
      { controller: 'first', metric: a },
      { controller: 'second', metric: b },
    ]);
    const collectors = set.collectors();
    assert.equal(collectors.length, 1);
    const registry = new Registry();
    for (const c of collectors) registry.registerMetric(c);
    const text = await registry.metrics();
    assert.match(text, /# TYPE events_total counter/);
    assert.match(text, /^events_total\{controller="first",kind="A"\} 2$/m);
    assert.match(text, /^events_total\{controller="second",kind="B"\} 3$/m);
  });

  test('returns the same collector objects on every call, and reads the sources at scrape time', async () => {
    const sources: LabelledSource[] = [];
    const set = new ControllerLabelledMetrics(() => sources);
    const first = new Gauge({ name: 'depth', help: 'depth', registers: [] });
    first.set(4);
    sources.push({ controller: 'one', metric: first });
    const [collector] = set.collectors();
    const late = new Gauge({ name: 'depth', help: 'depth', registers: [] });
    late.set(7);
    sources.push({ controller: 'two', metric: late });
    assert.deepEqual(set.collectors(), [collector]);
    const values = (await collector!.get()).values.map((v) => [v.labels['controller'], v.value]);
    assert.deepEqual(values, [
      ['one', 4],
      ['two', 7],
    ]);
  });

  test('keeps a controller label the metric already has, and histograms keep their bucket series', async () => {
    const h = new Histogram({ name: 'time_seconds', help: 'time', labelNames: ['controller'], buckets: [1], registers: [] });
    h.observe({ controller: 'own' }, 0.5);
    const registry = new Registry();
    for (const c of new ControllerLabelledMetrics(() => [{ controller: 'outer', metric: h }]).collectors()) registry.registerMetric(c);
    const text = await registry.metrics();
    assert.match(text, /# TYPE time_seconds histogram/);
    assert.match(text, /^time_seconds_bucket\{controller="own",le="1"\} 1$/m);
    assert.match(text, /^time_seconds_count\{controller="own"\} 1$/m);
  });

  test('two controllers with one name of different types are a clear error', () => {
    const set = new ControllerLabelledMetrics(() => [
      { controller: 'a', metric: new Counter({ name: 'x', help: 'x', registers: [] }) },
      { controller: 'b', metric: new Gauge({ name: 'x', help: 'x', registers: [] }) },
    ]);
    assert.throws(() => set.collectors(), (err: unknown) => isInvalidArgumentError(err) && /metric x is a counter.*gauge in controller "b"/.test(String(err)));
  });
});

describe('metrics of an operator with two InformerControllers', () => {
  test('/metrics of OperatorServer shows both controllers, labelled by controller', { timeout: 20_000 }, async () => {
    const operator = new Operator();
    const informers: FakeInformer[] = [];
    for (const name of ['widgets', 'gadgets']) {
      const controller = new InformerController({ logger: noopLogger, name });
      const informer = new FakeInformer();
      controller.addInformer(informer, KIND);
      controller.addReconciler({ reconcile: async () => ({}) }, KIND);
      operator.addController(controller);
      informers.push(informer);
    }
    const server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false, collectors: operator.prometheusCollectors() });
    const stop = new AbortController();
    const running = operator.run(stop.signal);
    try {
      await server.start();
      await waitFor(() => informers.every((i) => i.hasSynced()));
      informers[0]!.add(widget('a'));
      informers[1]!.add(widget('b'));
      informers[1]!.add(widget('c'));
      const scrape = async (): Promise<string> => (await fetch(`${server.url}/metrics`)).text();
      const both = /informer_events_total\{controller="widgets",event_type="CREATE",kind="[^"]+"\} 1\n[^]*informer_events_total\{controller="gadgets",event_type="CREATE",kind="[^"]+"\} 2/;
      // Polls the real HTTP endpoint until both controllers' events show (or the kit's deadline, 10 s).
      const text = await eventually(async () => {
        const body = await scrape();
        assert.match(body, both);
        return body;
      });
      assert.match(text, /^controller_queue_depth\{controller="widgets"\} 0$/m);
      assert.match(text, /^controller_queue_depth\{controller="gadgets"\} 0$/m);
      assert.equal(text.match(/^# TYPE informer_events_total counter$/gm)?.length, 1);
    } finally {
      stop.abort();
      await running;
      await server.stop();
    }
  });

  test('an unnamed controller is labelled by its position, and two controllers cannot share a name', async () => {
    const operator = new Operator();
    operator.addController(new InformerController({ logger: noopLogger, name: 'same' }));
    assert.throws(() => operator.addController(new InformerController({ logger: noopLogger, name: 'same' })), (err: unknown) => isInvalidArgumentError(err) && /controller with name same already exists/.test(String(err)));
    operator.addController(new InformerController({ logger: noopLogger }));
    const depth = operator.prometheusCollectors().find((c) => (c as unknown as { name: string }).name === 'controller_queue_depth');
    assert.ok(depth);
    assert.deepEqual((await depth.get()).values.map((v) => v.labels['controller']), ['same', 'controller-2']);
  });

  test('OperatorServer refuses a second, different collector under a registered name instead of hiding it', () => {
    const server = new OperatorServer({ collectDefaultMetrics: false });
    const first = new Counter({ name: 'dup_total', help: 'd', registers: [] });
    server.registerCollectors([first]);
    server.registerCollectors([first]);
    assert.throws(() => server.registerCollectors([new Counter({ name: 'dup_total', help: 'd', registers: [] })]), (err: unknown) => isInvalidArgumentError(err) && /dup_total is already registered/.test(String(err)));
  });
});
