import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Schema } from '@kubeloop/resource';
import { VirtualClock, flushMicrotasks } from '../clock.js';
import { Controller } from '../frontends/controller/resource-controller.js';
import { newResource } from '../frontends/controller/resource.js';
import { isCacheSyncTimeoutError, isInvalidArgumentError } from '../errors.js';
import { runOperator } from '../runtime/graceful-shutdown.js';
import { InformerController } from './informer-controller.js';
import { noopLogger } from '../observability/logger.js';
import { Operator } from './operator.js';
import { OperatorServer } from '../runtime/operator-server.js';
import { newController } from '../frontends/reconcile/reconcile-controller.js';
import { reconcileFunc } from '../frontends/reconcile/reconciler.js';
import type { Request } from '../frontends/reconcile/request.js';
import { FakeInformer, SlowSyncInformer, waitFor, widget, widgetSchema } from '../testing/fake-informer.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

const gadgetSchema: Schema = { ...widgetSchema, kind: 'Gadget', plural: 'gadgets' };

/** Records what a watcher of the primary kind saw. */
function recordingWatcher(calls: string[]) {
  const rv = (o: KubeObject): string => o.metadata.resourceVersion ?? '';
  return {
    add: async (_ctx: unknown, o: KubeObject) => void calls.push(`add ${o.metadata.name}@${rv(o)}`),
    update: async (_ctx: unknown, old: KubeObject, o: KubeObject) => void calls.push(`update ${o.metadata.name}@${rv(old)}->${rv(o)}`),
    delete: async (_ctx: unknown, o: KubeObject) => void calls.push(`delete ${o.metadata.name}@${rv(o)}`),
  };
}

/** An InformerController reading a synced primary informer and a secondary one that syncs when the test says. */
function gatedController(options: { cacheSyncTimeoutMs?: number } = {}) {
  const clock = new VirtualClock();
  const primary = new FakeInformer();
  const secondary = new SlowSyncInformer(gadgetSchema);
  const calls: string[] = [];
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined, ...options });
  controller.addInformer(primary, 'Widget');
  controller.addInformer(secondary, 'Gadget');
  controller.addWatcher(recordingWatcher(calls), 'Widget');
  return { clock, primary, secondary, calls, controller };
}

describe('sync gate', () => {
  test('no handler runs until every informer of the controller has synced; events wait and coalesce meanwhile', async () => {
    const { clock, primary, secondary, calls, controller } = gatedController();
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    primary.add(widget('a', { rv: '1' }));
    primary.update(widget('a', { rv: '1' }), widget('a', { rv: '2' }));
    primary.update(widget('a', { rv: '2' }), widget('a', { rv: '3' }));
    await clock.advance(60_000);
    assert.deepEqual(calls, [], 'a handler ran against a half-filled cache');
    assert.equal(controller.hasSynced(), false);

    secondary.markSynced();
    await waitFor(() => calls.length === 2);
    assert.deepEqual(calls, ['add a@1', 'update a@1->3'], 'the queued updates merged into one');
    assert.equal(controller.hasSynced(), true);
    await stop();
    assert.equal(controller.hasSynced(), false, 'a stopped controller is not ready');
  });

  test('run() rejects with a CacheSyncTimeoutError naming the unsynced kind after 2 minutes by default, and no handler ran', async () => {
    const { clock, primary, calls, controller } = gatedController();
    let outcome: unknown = 'pending';
    const running = controller.run(new AbortController().signal).then(
      () => (outcome = 'resolved'),
      (err: unknown) => (outcome = err),
    );
    await clock.advance(0);
    primary.add(widget('a'));
    await clock.advance(119_999);
    assert.equal(outcome, 'pending');
    await clock.advance(1);
    await running;
    assert.ok(isCacheSyncTimeoutError(outcome), `got ${String(outcome)}`);
    assert.deepEqual(outcome.unsyncedKinds, ['Gadget']);
    assert.equal(outcome.timeoutMs, 120_000);
    assert.deepEqual(calls, []);
  });

  test('cacheSyncTimeoutMs sets the limit, Infinity waits forever, and 0 or a negative value is refused', async () => {
    const short = gatedController({ cacheSyncTimeoutMs: 500 });
    let rejected: unknown;
    const running = short.controller.run(new AbortController().signal).catch((err: unknown) => (rejected = err));
    await short.clock.advance(500);
    await running;
    assert.ok(isCacheSyncTimeoutError(rejected));

    const forever = gatedController({ cacheSyncTimeoutMs: Number.POSITIVE_INFINITY });
    const stop = new AbortController();
    let settled = false;
    const waiting = forever.controller.run(stop.signal).then(() => (settled = true));
    await forever.clock.advance(24 * 3600_000);
    assert.equal(settled, false);
    assert.equal(forever.clock.pendingTimers(), 0, 'no timer is armed for an infinite limit');
    stop.abort();
    await waiting;

    assert.throws(() => new InformerController({ cacheSyncTimeoutMs: 0 }), isInvalidArgumentError);
    assert.throws(() => new InformerController({ cacheSyncTimeoutMs: -1 }), isInvalidArgumentError);
  });

  test('an informer added while the gate is closed is waited for too', async () => {
    const { clock, primary, secondary, calls, controller } = gatedController();
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    const late = new SlowSyncInformer({ ...gadgetSchema, kind: 'Late' });
    controller.addInformer(late, 'Late');
    primary.add(widget('a'));
    secondary.markSynced();
    await clock.advance(1_000);
    assert.deepEqual(calls, []);
    assert.equal(late.runs, 1, 'started at once');
    late.markSynced();
    await waitFor(() => calls.length === 1);
    await stop();
  });

  test('a stop while waiting for the caches resolves run() without calling handlers', async () => {
    const { clock, primary, calls, controller } = gatedController();
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    primary.add(widget('a'));
    await stop();
    await flushMicrotasks();
    assert.deepEqual(calls, []);
  });

  test('the level-based controller reconciles nothing until its watched informers have synced', async () => {
    const clock = new VirtualClock();
    const primary = new FakeInformer();
    const owned = new SlowSyncInformer(gadgetSchema);
    const requests: Request[] = [];
    const controller = newController({
      kind: widgetSchema,
      informer: primary,
      clock,
      logger: noopLogger,
      watches: [{ informer: owned, map: (o) => [{ namespace: o.metadata.namespace ?? '', name: 'parent' }] }],
      reconciler: reconcileFunc(async (_ctx, request) => {
        requests.push(request);
        return {};
      }),
    });
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    primary.add(widget('parent'));
    owned.add(widget('child'));
    controller.enqueue({ namespace: 'default', name: 'parent' });
    await clock.advance(10_000);
    assert.deepEqual(requests, []);
    assert.equal(controller.hasSynced(), false);
    owned.markSynced();
    await waitFor(() => requests.length > 0);
    await controller.whenIdle();
    assert.deepEqual(requests, [{ namespace: 'default', name: 'parent' }], 'three requests for one key merged into one reconcile');
    assert.equal(controller.hasSynced(), true);
    await stop();
  });

  test('the consul-k8s front-end upserts nothing until its informer has synced', async () => {
    const clock = new VirtualClock();
    const informer = new SlowSyncInformer();
    const upserts: string[] = [];
    const controller = new Controller({
      resource: newResource(informer, (key) => void upserts.push(key), () => undefined),
      clock,
      log: noopLogger,
    });
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    informer.add(widget('a'));
    await clock.advance(1_000);
    assert.deepEqual(upserts, []);
    assert.equal(controller.hasSynced(), false);
    informer.markSynced();
    await waitFor(() => upserts.length === 1);
    assert.deepEqual(upserts, ['default/a']);
    assert.equal(controller.hasSynced(), true);
    await stop();
  });

  describe('readiness', () => {
    const servers: OperatorServer[] = [];
    after(async () => {
      for (const server of servers) if (server.isListening()) await server.stop();
    });

    test('/readyz of runOperator stays red over HTTP until every controller of the Operator has opened its gate', async () => {
      const { secondary, controller } = gatedController({ cacheSyncTimeoutMs: Number.POSITIVE_INFINITY });
      const operator = new Operator();
      operator.addController(controller);
      const server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false });
      servers.push(server);
      const stop = new AbortController();
      const result = runOperator({ operator, server, signal: stop.signal, logger: noopLogger });
      await waitFor(() => server.isListening());
      const url = server.url;
      const notReady = await fetch(`${url}/readyz?verbose`);
      assert.equal(notReady.status, 500);
      assert.match(await notReady.text(), /informers-synced/);
      secondary.markSynced();
      await waitFor(() => controller.hasSynced());
      assert.equal((await fetch(`${url}/readyz`)).status, 200);
      stop.abort();
      assert.equal((await result).exitCode, 0);
    });
  });
});
