import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { VirtualClock } from '../clock.js';
import { InformerController } from './informer-controller.js';
import { noopLogger } from '../observability/logger.js';
import { SlowSyncInformer, deferred, waitFor, widget } from '../testing/fake-informer.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

describe('priority queue (InformerController)', () => {
  test('adds from the initial list and resyncs wait behind fresh changes, and watchers can tell a listed object from a created one', async () => {
    const clock = new VirtualClock();
    const informer = new SlowSyncInformer();
    const controller = new InformerController({ clock, logger: noopLogger, maxConcurrentWorkers: 1 });
    controller.addInformer(informer, 'Widget');
    const order: string[] = [];
    const hold = deferred();
    const record = (what: string, o: KubeObject): Promise<void> => {
      order.push(`${what} ${o.metadata.name}`);
      return o.metadata.name === 'hold' && what === 'add' ? hold.promise : Promise.resolve();
    };
    const initial = new Map<string, boolean | undefined>();
    controller.addWatcher({ add: (c, o) => (initial.set(o.metadata.name, c.isInInitialList), record('add', o)), update: (_c, _old, o) => record('update', o), delete: (_c, o) => record('delete', o) }, 'Widget');
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    informer.add(widget('hold'));
    informer.add(widget('listed'));
    informer.markSynced();
    await waitFor(() => order.length === 1);
    const same = widget('resynced', { rv: '3' });
    informer.update(same, same);
    informer.add(widget('created'));
    informer.update(widget('changed', { rv: '3' }), widget('changed', { rv: '4' }));
    hold.resolve();
    await waitFor(() => order.length === 5);
    assert.deepEqual(order, ['add hold', 'add created', 'update changed', 'add listed', 'update resynced']);
    assert.deepEqual(Object.fromEntries(initial), { hold: true, listed: true, created: undefined }, 'ctx.isInInitialList tells a listed object from a created one');
    await stop();
  });

  test('a retry keeps the priority of the event that failed: a failing listed object retries behind fresh changes', async () => {
    const clock = new VirtualClock();
    const informer = new SlowSyncInformer();
    const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined, maxConcurrentWorkers: 1 });
    controller.addInformer(informer, 'Widget');
    const order: string[] = [];
    const hold = deferred();
    let failListed = true;
    controller.addWatcher(
      {
        add: async (_c, o) => {
          order.push(`add ${o.metadata.name}`);
          if (o.metadata.name === 'listed' && failListed) {
            failListed = false;
            throw new Error('first call fails');
          }
          if (o.metadata.name === 'hold') await hold.promise;
        },
        update: async () => undefined,
        delete: async () => undefined,
      },
      'Widget',
    );
    const stop = runUntilStopped(controller);
    await clock.advance(0);
    informer.add(widget('listed'));
    informer.markSynced();
    await waitFor(() => order.length === 1);
    informer.add(widget('hold'));
    await waitFor(() => order.length === 2);
    await clock.advance(5_010); // the retry of `listed` falls due while `hold` runs
    informer.add(widget('created'));
    hold.resolve();
    await waitFor(() => order.length === 4);
    assert.deepEqual(order, ['add listed', 'add hold', 'add created', 'add listed']);
    await stop();
  });
});
