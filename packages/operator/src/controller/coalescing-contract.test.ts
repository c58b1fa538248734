/**
 * The coalescing contract, checked against every built-in watcher and reconciler: when queued
 * updates of one object merge, a handler gets `update(old, new)` with `old` = the object before the
 * first merged update (what the previous event of the object carried) and `new` = the newest, and
 * must read old -> new as the net result of one or more writes. No built-in handler may take a
 * merged update for a single change (e.g. for the echo of its own finalizer add).
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { ReconcileAction } from '../handlers/actions.js';
import { VirtualClock } from '../clock.js';
import { InformerController } from './informer-controller.js';
import { FakePatchClient, widget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import { noopLogger } from '../observability/logger.js';
import { newOpinionatedReconciler } from '../handlers/opinionated-reconciler.js';
import { newOpinionatedWatcher } from '../handlers/opinionated-watcher.js';
import type { Reconciler, ReconcileRequest } from '../handlers/reconciler.js';
import type { ResourceWatcher } from '../handlers/resource-watcher.js';
import { SimpleReconciler } from '../handlers/simple-reconciler.js';
import { SimpleWatcher } from '../handlers/simple-watcher.js';
import { FakeInformer, deferred } from '../testing/fake-informer.js';
import { TypedReconciler } from '../handlers/typed-reconciler.js';

const KIND = 'Widget';
const id = { namespace: 'default', name: 'w' };

interface Setup {
  controller: InformerController;
  informer: FakeInformer;
  errors: unknown[];
  /** Holds the object's first event until `release()`: later events of the object queue (and coalesce) meanwhile. */
  held: Promise<void>;
  release: () => void;
  settle: () => Promise<void>;
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/**
 * A controller with `handler` (a watcher or a reconciler) and a gate that blocks the first event of
 * the object: a gate reconciler after a watcher, a gate watcher before a reconciler.
 */
function setup(handler: { watcher: ResourceWatcher } | { reconciler: Reconciler }): Setup {
  const errors: unknown[] = [];
  const controller = new InformerController({ clock: new VirtualClock(), logger: noopLogger, errorHandler: (_ctx, err) => errors.push(err) });
  const informer = new FakeInformer();
  controller.addInformer(informer, KIND);
  const gate = deferred();
  const entered = deferred();
  let first = true;
  const hold = async (): Promise<void> => {
    if (!first) return;
    first = false;
    entered.resolve();
    await gate.promise;
  };
  if ('watcher' in handler) {
    controller.addWatcher(handler.watcher, KIND);
    controller.addReconciler({ reconcile: async () => (await hold(), {}) }, KIND);
  } else {
    controller.addWatcher({ add: hold, update: hold, delete: hold }, KIND);
    controller.addReconciler(handler.reconciler, KIND);
  }
  const abort = new AbortController();
  const running = controller.run(abort.signal);
  stops.push(async () => {
    abort.abort();
    await running;
  });
  return { controller, informer, errors, held: entered.promise, release: () => gate.resolve(), settle: () => controller.whenIdle() };
}

/** Sends `first`, waits until it is held, queues `updates` behind it, releases, and waits until all is done. */
async function coalesce(s: Setup, first: () => void, updates: [KubeObject, KubeObject][]): Promise<void> {
  first();
  await s.held;
  for (const [old, object] of updates) s.informer.update(old, object);
  s.release();
  await s.settle();
}

const rv = (o: KubeObject): string => o.metadata.resourceVersion ?? '';

describe('coalescing contract', () => {
  test('OpinionatedWatcher: a spec change (generation 1 -> 2) queued behind the echo of its finalizer add reaches updateFunc', async () => {
    const client = new FakePatchClient();
    const created = client.put(widget('w', '1', { generation: 1 }));
    const watcher = newOpinionatedWatcher(widgetKind, client);
    const calls: string[] = [];
    watcher.addFunc = async (_ctx, o) => void calls.push(`add gen ${o.metadata.generation}`);
    watcher.updateFunc = async (_ctx, o, n) => void calls.push(`update gen ${o.metadata.generation}->${n.metadata.generation}`);
    const s = setup({ watcher });
    s.informer.add(created);
    await s.held;
    // addFunc ran and the finalizer was added (the echo); then the user changes the spec.
    const echo = await client.get(id);
    assert.deepEqual(echo.metadata.finalizers, [watcher.finalizer]);
    client.edit(id, (o) => {
      o.spec = { size: 2 };
      o.metadata.generation = 2;
    });
    const changed = await client.get(id);
    s.informer.update(created, echo);
    s.informer.update(echo, changed);
    s.release();
    await s.settle();
    assert.deepEqual(calls, ['add gen 1', 'update gen 1->2']);
    assert.deepEqual(s.errors, []);
  });

  test('OpinionatedWatcher, object without generation: the echo alone is ignored; echo + data change reaches updateFunc', async () => {
    const client = new FakePatchClient();
    const noGeneration = (name: string): KubeObject => {
      const o = widget(name, '1');
      delete o.metadata.generation;
      return o;
    };
    for (const withChange of [false, true]) {
      const name = withChange ? 'changed' : 'echo-only';
      const created = client.put(noGeneration(name));
      const watcher = newOpinionatedWatcher(widgetKind, client);
      const calls: string[] = [];
      watcher.updateFunc = async (_ctx, o, n) => void calls.push(`update ${rv(o)}->${rv(n)}`);
      const s = setup({ watcher });
      s.informer.add(created);
      await s.held;
      const echo = await client.get({ namespace: 'default', name });
      const updates: [KubeObject, KubeObject][] = [[created, echo]];
      if (withChange) {
        client.edit({ namespace: 'default', name }, (o) => void (o.spec = { size: 3 }));
        updates.push([echo, await client.get({ namespace: 'default', name })]);
      }
      for (const [o, n] of updates) s.informer.update(o, n);
      s.release();
      await s.settle();
      assert.deepEqual(calls, withChange ? [`update ${rv(created)}->${rv(updates[1]![1])}`] : [], name);
    }
  });

  test('OpinionatedWatcher: status-only updates coalesced with each other stay ignored; one spec change among them reaches updateFunc', async () => {
    for (const specChange of [false, true]) {
      const client = new FakePatchClient();
      const watcher = newOpinionatedWatcher(widgetKind, client);
      const fin = [watcher.finalizer];
      const calls: string[] = [];
      watcher.updateFunc = async (_ctx, o, n) => void calls.push(`update gen ${o.metadata.generation}->${n.metadata.generation}`);
      const s = setup({ watcher });
      const v1 = widget('w', '1', { generation: 1, finalizers: fin });
      const v2 = widget('w', '2', { generation: 1, finalizers: fin });
      const v3 = widget('w', '3', { generation: specChange ? 2 : 1, finalizers: fin });
      const v4 = widget('w', '4', { generation: specChange ? 2 : 1, finalizers: fin });
      await coalesce(s, () => s.informer.update(widget('w', '0', { generation: 1, finalizers: fin }), v1), [
        [v1, v2],
        [v2, v3],
        [v3, v4],
      ]);
      assert.deepEqual(calls, specChange ? ['update gen 1->2'] : []);
    }
  });

  test('SimpleWatcher: old is the object before the first merged update, new the newest', async () => {
    const seen: string[] = [];
    const s = setup({ watcher: new SimpleWatcher({ updateFunc: async (_ctx, o, n) => void seen.push(`${rv(o)}->${rv(n)}`) }) });
    const v = (n: number): KubeObject => widget('w', String(n));
    await coalesce(s, () => s.informer.update(v(1), v(2)), [
      [v(2), v(3)],
      [v(3), v(4)],
      [v(4), v(5)],
    ]);
    assert.deepEqual(seen, ['1->2', '2->5']);
  });

  for (const [name, make] of [
    ['SimpleReconciler', (log: ReconcileRequest[]) => new SimpleReconciler({ reconcileFunc: async (_ctx, r) => (log.push(r), {}) })],
    ['TypedReconciler', (log: ReconcileRequest[]) => new TypedReconciler<KubeObject>({ kind: widgetKind, reconcileFunc: async (_ctx, r) => (log.push(r), {}) })],
  ] as const) {
    test(`${name}: merged updates arrive as one Updated with the newest object; a resync merged with a real update is Updated, not Resynced`, async () => {
      const log: ReconcileRequest[] = [];
      const s = setup({ reconciler: make(log) });
      const v = (n: number): KubeObject => widget('w', String(n));
      const v2 = v(2);
      // Held: a create. Queued: a resync of v2 (same object twice), then real updates.
      await coalesce(s, () => s.informer.add(v(1)), [
        [v2, v2],
        [v2, v(3)],
        [v(3), v(4)],
      ]);
      assert.deepEqual(
        log.map((r) => `${ReconcileAction[r.action]}@${rv(r.object)}`),
        ['Created@1', 'Updated@4'],
      );
      // A real update followed by a resync of its result: still Updated.
      log.length = 0;
      const v5 = v(5);
      s.informer.update(v(4), v5);
      s.informer.update(v5, v5);
      await s.settle();
      assert.ok(log.every((r) => r.action === ReconcileAction.Updated), log.map((r) => ReconcileAction[r.action]).join());
      assert.equal(rv(log.at(-1)!.object), '5');
    });
  }

  test('OpinionatedReconciler: a spec change merged with the echo of its finalizer add is delegated as Updated with the newest object', async () => {
    const client = new FakePatchClient();
    const guard = 'example.com/guard';
    const created = client.put(widget('w', '1', { generation: 1 }));
    const inner: ReconcileRequest[] = [];
    const reconciler = newOpinionatedReconciler(client, guard);
    reconciler.wrap({ reconcile: async (_ctx, r) => (inner.push(r), {}) });
    const s = setup({ reconciler });
    const echo = widget('w', '2', { generation: 1, finalizers: [guard] });
    const changed = widget('w', '3', { generation: 2, finalizers: [guard], spec: { size: 2 } });
    await coalesce(s, () => s.informer.add(created), [
      [created, echo],
      [echo, changed],
    ]);
    assert.deepEqual(
      inner.map((r) => `${ReconcileAction[r.action]}@gen${r.object.metadata.generation}`),
      ['Created@gen1', 'Updated@gen2'],
    );
    assert.deepEqual(s.errors, []);
  });
});
