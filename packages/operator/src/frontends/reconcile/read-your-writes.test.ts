import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineKind } from '@kubeloop/resource';
import type { Identifier, KubeObject } from '@kubeloop/resource';
import { Registry } from 'prom-client';
import { VirtualClock } from '../../clock.js';
import { isInvalidArgumentError } from '../../errors.js';
import { noopLogger } from '../../observability/logger.js';
import { FakeInformer, widget } from '../../testing/fake-informer.js';
import type { WriteClient } from './read-your-writes.js';
import { newController } from './reconcile-controller.js';
import type { ReconcileControllerOptions } from './reconcile-controller.js';
import { reconcileFunc } from './reconciler.js';
import { runUntilStopped } from '../../testing/run-until-stopped.js';
import { recordingLogger } from '../../testing/recording-logger.js';

const Widget = defineKind({ group: 'test.kubeloop.dev', version: 'v1', kind: 'Widget' });
const Gadget = defineKind({ group: 'test.kubeloop.dev', version: 'v1', kind: 'Gadget' });

/** A fake informer whose `lastSyncResourceVersion()` (events and bookmarks seen) the test sets. */
class VersionedInformer extends FakeInformer {
  seen = '1';
  constructor(private readonly kindOf = Widget) {
    super();
  }
  override lastSyncResourceVersion(): string {
    return this.seen;
  }
  override schema(): typeof Widget {
    return this.kindOf;
  }
}

/** A client that answers every write with the object at the next resourceVersion the test chose. */
function fakeClient(kind: typeof Widget, nextRv: () => string): WriteClient & { writes: KubeObject[] } {
  const writes: KubeObject[] = [];
  const answer = (object: KubeObject): Promise<KubeObject> => {
    const written = { ...object, metadata: { ...object.metadata, resourceVersion: nextRv() } };
    writes.push(written);
    return Promise.resolve(written);
  };
  return {
    writes,
    kind,
    get: (id: Identifier) => Promise.resolve(widget(id.name)),
    create: (o) => answer(o),
    update: (o) => answer(o),
    updateStatus: (o) => answer(o),
    patch: (id) => answer(widget(id.name)),
    delete: (id) => answer(widget(id.name)),
  };
}

/**
 * A controller whose reconciler writes the status of `default/a` through the tracking client the
 * first time, at resourceVersion `writeRv`, and records the cache version each later reconcile saw.
 */
function setup(options: { writeRv?: string; extra?: Partial<ReconcileControllerOptions> } = {}) {
  const clock = new VirtualClock();
  const informer = new VersionedInformer();
  const logger = recordingLogger();
  const reconcilesAt: string[] = [];
  const controller = newController({
    kind: Widget,
    informer,
    clock,
    logger,
    reconciler: reconcileFunc(async (_ctx, request) => {
      reconcilesAt.push(informer.seen);
      if (reconcilesAt.length === 1) await tracked.updateStatus(widget(request.name));
      return {};
    }),
    ...options.extra,
  });
  const tracked = controller.trackWrites(fakeClient(Widget, () => options.writeRv ?? '7'));
  const stop = runUntilStopped(controller);
  return {
    clock,
    informer,
    logger,
    controller,
    reconcilesAt,
    stop,
  };
}

async function counter(controller: { prometheusCollectors(): unknown[] }, name: string): Promise<number> {
  const registry = new Registry();
  for (const c of controller.prometheusCollectors()) registry.registerMetric(c as never);
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).reduce((sum, v) => sum + Number(v.value), 0);
}

describe('read your own writes (ReconcileController.trackWrites)', () => {
  test('a reconcile after our own write waits until the cache has seen that write, and is not a failure', async () => {
    const h = setup();
    await h.clock.advance(0);
    h.informer.add(widget('a', { rv: '5' }));
    h.informer.seen = '5';
    await h.clock.advance(0);
    assert.deepEqual(h.reconcilesAt, ['5'], 'first reconcile, which writes rv 7');

    // Another change arrives before the echo of our write: the cache is at 6 < 7.
    h.informer.seen = '6';
    h.informer.update(widget('a', { rv: '5' }), widget('a', { rv: '6' }));
    await h.clock.advance(1_000);
    assert.deepEqual(h.reconcilesAt, ['5'], 'reconciled on a cache older than its own write');
    assert.ok((await counter(h.controller, 'controller_read_your_writes_deferrals_total')) >= 10);
    assert.equal(await counter(h.controller, 'controller_runtime_reconcile_errors_total'), 0);

    h.informer.seen = '7'; // a bookmark or the echo moved the cache past our write
    await h.clock.advance(100);
    assert.deepEqual(h.reconcilesAt, ['5', '7']);
    assert.equal(await counter(h.controller, 'controller_read_your_writes_timeouts_total'), 0);
    await h.stop();
  });

  test('a cache that never catches up delays the reconcile by the limit (10 s), then it proceeds with a warning and a metric', async () => {
    const h = setup();
    await h.clock.advance(0);
    h.informer.add(widget('a', { rv: '5' }));
    h.informer.seen = '5';
    await h.clock.advance(0);
    h.controller.enqueue({ namespace: 'default', name: 'a' });
    await h.clock.advance(9_900);
    assert.equal(h.reconcilesAt.length, 1);
    await h.clock.advance(200);
    assert.equal(h.reconcilesAt.length, 2);
    assert.equal(await counter(h.controller, 'controller_read_your_writes_timeouts_total'), 1);
    assert.equal(h.logger.at('warn').length, 1);
    assert.match(h.logger.at('warn')[0]!.message, /older than the controller's own write/);
    assert.deepEqual(h.logger.at('warn')[0]!.attributes?.written, { 'test.kubeloop.dev/v1/Widget': '7' });
    await h.stop();
  });

  test('resourceVersions that KEP-5504 does not allow to compare defer nothing', async () => {
    const h = setup({ writeRv: 'opaque-7' });
    await h.clock.advance(0);
    h.informer.add(widget('a', { rv: '5' }));
    h.informer.seen = '5';
    await h.clock.advance(0);
    h.controller.enqueue({ namespace: 'default', name: 'a' });
    await h.clock.advance(0);
    assert.equal(h.reconcilesAt.length, 2);
    assert.equal(await counter(h.controller, 'controller_read_your_writes_deferrals_total'), 0);
    await h.stop();
  });

  test('a write of a child with a controller owner reference defers its owner until the child informer has seen it', async () => {
    const clock = new VirtualClock();
    const parents = new VersionedInformer();
    const children = new VersionedInformer(Gadget);
    const seen: string[] = [];
    let writes = 0;
    const controller = newController({
      kind: Widget,
      informer: parents,
      clock,
      logger: noopLogger,
      watches: [{ informer: children, map: () => [] }],
      reconciler: reconcileFunc(async (_ctx, request) => {
        seen.push(children.seen);
        if (writes++ === 0) {
          const child = widget(`${request.name}-child`);
          child.metadata.ownerReferences = [{ apiVersion: Widget.apiVersion, kind: 'Widget', name: request.name, uid: 'u1', controller: true }];
          await gadgets.create(child);
        }
        return {};
      }),
    });
    const gadgets = controller.trackWrites(fakeClient(Gadget, () => '12'));
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    parents.add(widget('p'));
    await clock.advance(0);
    controller.enqueue({ namespace: 'default', name: 'p' });
    await clock.advance(500);
    assert.deepEqual(seen, ['1']);
    children.seen = '12';
    await clock.advance(100);
    assert.deepEqual(seen, ['1', '12']);
    await stop();
  });

  test('writes of a kind no informer of the controller reads, and dry runs, are not recorded', async () => {
    const clock = new VirtualClock();
    const informer = new VersionedInformer();
    const controller = newController({ kind: Widget, informer, clock, logger: noopLogger, reconciler: reconcileFunc(async () => ({})) });
    const gadgets = controller.trackWrites(fakeClient(Gadget, () => '99'));
    const widgets = controller.trackWrites(fakeClient(Widget, () => '99'));
    const child = widget('c');
    child.metadata.ownerReferences = [{ apiVersion: Widget.apiVersion, kind: 'Widget', name: 'p', uid: 'u1', controller: true }];
    await gadgets.create(child);
    await widgets.update(widget('p'), { dryRun: true });
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    informer.add(widget('p'));
    await clock.advance(0);
    assert.equal(await counter(controller, 'controller_read_your_writes_deferrals_total'), 0);
    await widgets.update(widget('p'));
    controller.enqueue({ namespace: 'default', name: 'p' });
    await clock.advance(0);
    assert.equal(await counter(controller, 'controller_read_your_writes_deferrals_total'), 1, 'a real write is recorded');
    await stop();
  });

  test('bad options are refused with an InvalidArgumentError', () => {
    for (const readYourWrites of [{ timeoutMs: -1 }, { retryDelayMs: 0 }, { retryDelayMs: Number.POSITIVE_INFINITY }]) {
      assert.throws(() => newController({ kind: Widget, informer: new VersionedInformer(), reconciler: reconcileFunc(async () => ({})), readYourWrites }), isInvalidArgumentError);
    }
  });
});
