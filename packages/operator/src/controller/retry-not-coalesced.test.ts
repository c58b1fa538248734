import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { VirtualClock, flushMicrotasks } from '../clock.js';
import { noopLogger } from '../observability/logger.js';
import { FakeInformer, deferred, waitFor, widget } from '../testing/fake-informer.js';
import { InformerController } from './informer-controller.js';

// operator README, "Coalescing": queued, not yet started UPDATEs of one object merge into one;
// "creates, deletes and retries never merge". "Retries keep that order": a due retry goes back into
// its object's queue behind events already queued there. "Dequeue policy": before the watcher gets a
// new event, its pending retries of that object (same action, same generation: kept) are refreshed to
// carry the new event's object; an update's retry keeps its `old`.
test('an UPDATE queued behind a due retry is not merged into it: the watcher gets the retry, then the update', async () => {
  const clock = new VirtualClock();
  const informer = new FakeInformer();
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined, retryPolicy: () => [true, 1_000] });
  const calls: string[] = [];
  const busy = deferred();
  let failedOnce = false;
  controller.addInformer(informer, 'Widget');
  controller.addWatcher(
    {
      add: async () => {},
      delete: async () => {},
      update: async (_ctx, old: KubeObject, object: KubeObject) => {
        const rv = object.metadata.resourceVersion;
        calls.push(`update ${old.metadata.resourceVersion}->${rv}`);
        if (rv === '2' && !failedOnce) {
          failedOnce = true;
          throw new Error('fails once');
        }
        if (rv === '3') await busy.promise; // keeps the object busy while its retry falls due
      },
    },
    'Widget',
  );
  const stop = new AbortController();
  const running = controller.run(stop.signal);
  await waitFor(() => controller.hasSynced());
  const a = (rv: string): KubeObject => widget('a', { rv });

  informer.update(a('1'), a('2')); // fails: a retry is due in 1 s
  await controller.whenIdle();
  informer.update(a('2'), a('3')); // the retry is kept and now carries a@3; the watcher holds the object
  await waitFor(() => calls.length === 2);
  await clock.advance(1_000); // the retry is due: it waits in the object's queue
  informer.update(a('3'), a('4')); // queued behind the retry
  await flushMicrotasks();
  assert.deepEqual(calls, ['update 1->2', 'update 2->3'], 'nothing runs beside the busy object');

  busy.resolve();
  await controller.whenIdle();
  assert.deepEqual(calls, ['update 1->2', 'update 2->3', 'update 1->3', 'update 3->4'], 'the retry ran on its own, then the update it was not merged with');
  assert.equal(clock.pendingTimers(), 0, 'no retry is left');
  stop.abort();
  await running;
});
