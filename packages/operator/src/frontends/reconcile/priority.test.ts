import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../../clock.js';
import { isInvalidArgumentError } from '../../errors.js';
import { noopLogger } from '../../observability/logger.js';
import { LOW_PRIORITY } from '../../queue/ready-queue.js';
import { FakeInformer, SlowSyncInformer, deferred, waitFor, widget, widgetSchema } from '../../testing/fake-informer.js';
import { newController } from './reconcile-controller.js';
import { reconcileFunc } from './reconciler.js';
import type { Request } from './request.js';
import type { Result } from './result.js';
import { runUntilStopped } from '../../testing/run-until-stopped.js';

/**
 * One worker; the first reconcile of `hold` waits for `release()`, so the test can queue work behind
 * it and then read the order in which the rest started.
 */
function heldController(informer: FakeInformer, results: (request: Request, call: number) => Result = () => ({})) {
  const clock = new VirtualClock();
  const order: string[] = [];
  const hold = deferred();
  let calls = 0;
  const controller = newController({
    kind: widgetSchema,
    informer,
    clock,
    logger: noopLogger,
    errorHandler: () => undefined,
    maxConcurrentReconciles: 1,
    reconciler: reconcileFunc(async (_ctx, request) => {
      order.push(request.name);
      if (request.name === 'hold' && order.filter((n) => n === 'hold').length === 1) await hold.promise;
      return results(request, ++calls);
    }),
  });
  const stop = runUntilStopped(controller);
  return {
    clock,
    order,
    controller,
    release: () => hold.resolve(),
    stop,
  };
}

describe('priority queue (ReconcileController)', () => {
  test('adds from the initial list wait behind fresh changes', async () => {
    const informer = new SlowSyncInformer();
    const h = heldController(informer);
    await h.clock.advance(0);
    informer.add(widget('hold'));
    informer.add(widget('init-1'));
    informer.add(widget('init-2'));
    informer.markSynced();
    await waitFor(() => h.order.length === 1);
    informer.update(widget('fresh', { rv: '1' }), widget('fresh', { rv: '2' }));
    informer.add(widget('created'));
    h.release();
    await waitFor(() => h.order.length === 5);
    assert.deepEqual(h.order, ['hold', 'fresh', 'created', 'init-1', 'init-2']);
    await h.stop();
  });

  test('resyncs wait behind fresh changes, and an explicit enqueue sets a priority', async () => {
    const informer = new FakeInformer();
    const h = heldController(informer);
    await h.clock.advance(0);
    informer.add(widget('hold'));
    await waitFor(() => h.order.length === 1);
    const same = widget('resynced', { rv: '4' });
    informer.update(same, same);
    informer.update(widget('changed', { rv: '4' }), widget('changed', { rv: '5' }));
    h.controller.enqueue({ namespace: 'default', name: 'urgent' }, { priority: 10 });
    h.release();
    await waitFor(() => h.order.length === 4);
    assert.deepEqual(h.order, ['hold', 'urgent', 'changed', 'resynced']);
    assert.equal(LOW_PRIORITY, -100, "controller-runtime's handler.LowPriority");
    assert.throws(() => h.controller.enqueue({ namespace: 'default', name: 'x' }, { priority: Number.NaN }), isInvalidArgumentError);
    await h.stop();
  });

  test('a retry keeps the priority of the request that failed; a result can set the priority of its requeue', async () => {
    const informer = new FakeInformer();
    const clock = new VirtualClock();
    const order: string[] = [];
    const hold = deferred();
    let failOnce = true;
    const controller = newController({
      kind: widgetSchema,
      informer,
      clock,
      logger: noopLogger,
      errorHandler: () => undefined,
      maxConcurrentReconciles: 1,
      reconciler: reconcileFunc(async (_ctx, request) => {
        order.push(request.name);
        if (request.name === 'low' && failOnce) {
          failOnce = false;
          throw new Error('boom');
        }
        if (request.name === 'bump' && order.filter((n) => n === 'bump').length === 1) return { requeueAfter: 50, priority: 20 };
        if (request.name === 'hold') await hold.promise;
        return {};
      }),
    });
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    controller.enqueue({ namespace: 'default', name: 'low' }, { priority: LOW_PRIORITY });
    controller.enqueue({ namespace: 'default', name: 'bump' });
    await clock.advance(0);
    assert.deepEqual(order, ['bump', 'low']);
    controller.enqueue({ namespace: 'default', name: 'hold' });
    await clock.advance(1);
    assert.deepEqual(order, ['bump', 'low', 'hold']);
    // While `hold` runs: the retry of `low` (5 ms) and the requeue of `bump` (50 ms) fall due, and a fresh key arrives.
    await clock.advance(100);
    controller.enqueue({ namespace: 'default', name: 'fresh' });
    hold.resolve();
    await waitFor(() => order.length === 6);
    assert.deepEqual(order.slice(3), ['bump', 'fresh', 'low']);
    await stop();
  });
});
