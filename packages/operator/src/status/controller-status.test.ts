import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../clock.js';
import { InformerController } from '../controller/informer-controller.js';
import { Operator } from '../controller/operator.js';
import { noopLogger } from '../observability/logger.js';
import { CachingInformer, waitFor, widget } from '../testing/fake-informer.js';

/** A controller whose reconciler fails for `bad` and succeeds for the rest; its watcher always succeeds. */
function failingController(clock: VirtualClock, callLog?: false): { controller: InformerController; informer: CachingInformer } {
  const informer = new CachingInformer();
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined, retryPolicy: (_e, attempt) => [attempt < 3, 5_000], callLog });
  controller.addInformer(informer, 'Widget');
  controller.addWatcher({ add: async () => {}, update: async () => {}, delete: async () => {} }, 'Widget');
  controller.addReconciler(
    {
      reconcile: async (_ctx, request) => {
        if (request.object.metadata.name === 'bad') throw new Error('quota exceeded');
        return {};
      },
    },
    'Widget',
  );
  return { controller, informer };
}

test("status() shows each object's handler calls: the failed reconcile with its error and the retry it scheduled", async () => {
  const clock = new VirtualClock();
  const { controller, informer } = failingController(clock);
  const stop = new AbortController();
  const running = controller.run(stop.signal);
  await waitFor(() => controller.hasSynced());
  informer.add(widget('good'));
  informer.add(widget('bad'));
  await controller.whenIdle();

  const status = controller.status();
  assert.equal(status.running, true);
  assert.deepEqual(status.informers.map((i) => [i.kind, i.role, i.synced, i.objects]), [['Widget', 'primary', true, 2]]);
  assert.deepEqual([status.queue.depth, status.queue.pendingRetries], [0, 1]);
  assert.deepEqual([status.totals.calls, status.totals.errors], [4, 1]);
  assert.equal(status.totals.lastError?.key, 'default/bad');
  const bad = status.objects.find((o) => o.key === 'default/bad');
  assert.deepEqual(
    bad?.calls.map((c) => [c.handler, c.action, c.result, c.attempt, c.error, c.retryInMs]),
    [
      ['reconciler', 'Created', 'error', 0, 'quota exceeded', 5_000],
      ['watcher', 'CREATE', 'ok', 0, undefined, undefined],
    ],
  );

  await clock.advance(5_000); // the retry runs and fails again: attempt 1
  await controller.whenIdle();
  const retried = controller.status().objects[0];
  assert.equal(retried?.key, 'default/bad');
  assert.deepEqual(retried?.calls[0] && [retried.calls[0].attempt, retried.calls[0].result, retried.calls[0].retryInMs], [1, 'error', 5_000]);
  stop.abort();
  await running;
});

test('status() names the item that has waited longest in the queue', async () => {
  const clock = new VirtualClock();
  const informer = new CachingInformer();
  const controller = new InformerController({ clock, logger: noopLogger, maxConcurrentWorkers: 1 });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  controller.addInformer(informer, 'Widget');
  controller.addReconciler({ reconcile: async (_ctx, r) => (r.object.metadata.name === 'busy' ? held.then(() => ({})) : {}) }, 'Widget');
  const stop = new AbortController();
  const running = controller.run(stop.signal);
  await waitFor(() => controller.hasSynced());
  informer.add(widget('busy'));
  await waitFor(() => controller.status().queue.inFlight === 1);
  informer.add(widget('first'));
  await clock.advance(1_000);
  informer.add(widget('second'));
  await clock.advance(500);
  const { queue } = controller.status();
  assert.equal(queue.depth, 2);
  assert.deepEqual(queue.longestWaiting, { kind: 'Widget', key: 'default/first', waitingMs: 1_500 });
  release();
  await controller.whenIdle();
  assert.equal(controller.status().queue.longestWaiting, undefined);
  stop.abort();
  await running;
});

test('callLog: false keeps no calls; the Operator names its controllers as in the metrics', async () => {
  const clock = new VirtualClock();
  const quiet = failingController(clock, false);
  const logged = failingController(clock);
  const operator = new Operator();
  operator.addController(quiet.controller);
  operator.addController(logged.controller);
  const stop = new AbortController();
  const running = operator.run(stop.signal);
  await waitFor(() => operator.hasSynced());
  for (const { informer, controller } of [quiet, logged]) {
    informer.add(widget('bad'));
    await controller.whenIdle();
  }
  const status = operator.status();
  assert.deepEqual(status.controllers.map((c) => [c.name, c.objects.length, c.totals.calls]), [['controller-1', 0, 0], ['controller-2', 1, 2]]);
  stop.abort();
  await running;
});
