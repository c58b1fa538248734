/**
 * The coalescing contract (operator README) for the front-ends; the core's handlers are checked in
 * `controller/coalescing-contract.test.ts`. Updates of one object queued while it is busy merge into
 * one: the `./controller` front-end then upserts the cache's newest object, and the `./reconcile`
 * front-end, which queues keys, maps `old` and `new` of every informer event before any queueing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { VirtualClock } from '../clock.js';
import { noopLogger } from '../observability/logger.js';
import { CachingInformer, FakeInformer, deferred, waitFor, widget, widgetSchema } from '../testing/fake-informer.js';
import { Controller } from './controller/resource-controller.js';
import { newResource } from './controller/resource.js';
import { newController } from './reconcile/reconcile-controller.js';
import { reconcileFunc } from './reconcile/reconciler.js';
import { enqueueRequestForOwner } from './reconcile/watch-source.js';

/** A child object whose controller owner is the Widget `owner`. */
function child(owner: string, rv: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'child',
      namespace: 'default',
      resourceVersion: rv,
      ownerReferences: [{ apiVersion: widgetSchema.apiVersion, kind: widgetSchema.kind, name: owner, uid: `uid-${owner}`, controller: true }],
    },
  };
}

describe('front-end coalescing contract', () => {
  test('consul-k8s controller: updates merged while the key is busy give one upsert of the newest object', async () => {
    const clock = new VirtualClock();
    const informer = new CachingInformer();
    const upserts: string[] = [];
    const busy = deferred();
    const controller = new Controller({
      resource: newResource(
        informer,
        async (key, object) => {
          upserts.push(`${key}@${object.metadata.resourceVersion ?? ''}`);
          if (object.metadata.resourceVersion === '1') await busy.promise;
        },
        () => undefined,
      ),
      clock,
      log: noopLogger,
    });
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await waitFor(() => controller.hasSynced());
    informer.add(widget('a', { rv: '1' }));
    await waitFor(() => upserts.length === 1);
    informer.update(widget('a', { rv: '1' }), widget('a', { rv: '2' }));
    informer.update(widget('a', { rv: '2' }), widget('a', { rv: '3' }));
    informer.update(widget('a', { rv: '3' }), widget('a', { rv: '4' }));
    busy.resolve();
    await waitFor(() => upserts.length >= 2);
    await clock.advance(0);
    assert.deepEqual(upserts, ['default/a@1', 'default/a@4'], 'three queued updates merged into one upsert of the newest state');
    stop.abort();
    await running;
  });

  test('reconcile controller: an owner change among updates queued while busy reconciles the old and the new owner', async () => {
    const clock = new VirtualClock();
    const owners = new FakeInformer();
    const children = new FakeInformer();
    const reconciled: string[] = [];
    const busy = deferred();
    const controller = newController({
      kind: widgetSchema,
      informer: owners,
      clock,
      logger: noopLogger,
      watches: [{ informer: children, map: enqueueRequestForOwner(widgetSchema, { onlyController: true }) }],
      reconciler: reconcileFunc(async (_ctx, request) => {
        reconciled.push(request.name);
        if (request.name === 'blocker') await busy.promise;
        return {};
      }),
      maxConcurrentReconciles: 1,
    });
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await clock.advance(0);
    controller.enqueue({ namespace: 'default', name: 'blocker' });
    await waitFor(() => reconciled.length === 1);
    // While the only worker is busy: the child moves from p1 to p2, then to p3.
    children.update(child('p1', '1'), child('p2', '2'));
    children.update(child('p2', '2'), child('p3', '3'));
    busy.resolve();
    await waitFor(() => reconciled.length === 4);
    await controller.whenIdle();
    assert.deepEqual([...reconciled].sort(), ['blocker', 'p1', 'p2', 'p3'], 'the old owner of each update was reconciled too');
    stop.abort();
    await running;
  });
});
