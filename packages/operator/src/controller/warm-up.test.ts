import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../clock.js';
import { Controller } from '../frontends/controller/resource-controller.js';
import { newResource } from '../frontends/controller/resource.js';
import { ControllerLifecycle } from './controller-lifecycle.js';
import { InformerController } from './informer-controller.js';
import { noopLogger } from '../observability/logger.js';
import { Operator } from './operator.js';
import { FakeInformer, SlowSyncInformer, waitFor, widget } from '../testing/fake-informer.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

/** An InformerController with one informer that syncs when the test says, recording the handler calls. */
function warmableController() {
  const clock = new VirtualClock();
  const informer = new SlowSyncInformer();
  const calls: string[] = [];
  const errors: unknown[] = [];
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: (_ctx, err) => void errors.push(err) });
  controller.addInformer(informer, 'Widget');
  controller.addWatcher(
    {
      add: async (_ctx, o) => void calls.push(`add ${o.metadata.name}`),
      update: async () => undefined,
      delete: async () => undefined,
    },
    'Widget',
  );
  return { clock, informer, calls, errors, controller };
}

describe('warm-up (warm replicas)', () => {
  test('informers run during warm-up but no handler does; run() takes them over and opens the gate at once', async () => {
    const { clock, informer, calls, controller } = warmableController();
    const follow = new AbortController();
    const warming = controller.warmUp(follow.signal);
    await clock.advance(0);
    assert.equal(informer.runs, 1, 'the informer started while following');
    informer.add(widget('a'));
    informer.markSynced();
    await clock.advance(60_000);
    assert.deepEqual(calls, [], 'a handler ran before run()');
    assert.equal(controller.hasSynced(), false, 'not ready before run()');

    const stop = runUntilStopped(controller);
    await warming;
    await waitFor(() => calls.length === 1);
    assert.deepEqual(calls, ['add a']);
    assert.equal(controller.hasSynced(), true);
    assert.equal(informer.runs, 1, 'run() started no second informer run');
    // The warm-up's signal no longer governs the informers once run() has them.
    follow.abort();
    await clock.advance(0);
    assert.equal(controller.hasSynced(), true);
    await stop();
  });

  test('InformerController and the consul-k8s Controller report cachesSynced once their warming informer synced', async () => {
    const { clock, informer, controller } = warmableController();
    const consulInformer = new SlowSyncInformer();
    const consul = new Controller({ resource: newResource(consulInformer, () => undefined, () => undefined), clock, log: noopLogger });
    const follow = new AbortController();
    assert.equal(controller.cachesSynced(), false, 'idle');
    const warming = [controller.warmUp(follow.signal), consul.warmUp(follow.signal)];
    await clock.advance(0);
    assert.equal(controller.cachesSynced(), false, 'the initial list has not ended');
    assert.equal(consul.cachesSynced(), false, 'the initial list has not ended');
    informer.markSynced();
    consulInformer.markSynced();
    await clock.advance(0);
    assert.equal(controller.cachesSynced(), true);
    assert.equal(consul.cachesSynced(), true);
    assert.equal(controller.hasSynced(), false, 'no workers while warming');
    follow.abort();
    await Promise.all(warming);
    assert.equal(controller.cachesSynced(), false, 'a stopped warm-up');
  });

  test('the consul-k8s front-end warms its informer and upserts nothing until run()', async () => {
    const clock = new VirtualClock();
    const informer = new SlowSyncInformer();
    const upserts: string[] = [];
    const controller = new Controller({ resource: newResource(informer, (key) => void upserts.push(key), () => undefined), clock, log: noopLogger });
    const warming = controller.warmUp(new AbortController().signal);
    await clock.advance(0);
    assert.equal(informer.runs, 1);
    informer.add(widget('a'));
    informer.markSynced();
    await clock.advance(1_000);
    assert.deepEqual(upserts, []);

    const stop = runUntilStopped(controller);
    await warming;
    await waitFor(() => upserts.length === 1);
    assert.deepEqual(upserts, ['default/a']);
    assert.equal(informer.runs, 1);
    await stop();
  });

  test('aborting the warm-up stops the informers, and warmUp resolves after they stopped', async () => {
    const clock = new VirtualClock();
    const informer = new FakeInformer();
    let informerStopped = false;
    const run = informer.run.bind(informer);
    informer.run = async (signal) => {
      await run(signal);
      informerStopped = true;
    };
    const controller = new InformerController({ clock, logger: noopLogger });
    controller.addInformer(informer, 'Widget');
    const follow = new AbortController();
    const warming = controller.warmUp(follow.signal);
    await clock.advance(0);
    assert.equal(informerStopped, false);
    follow.abort();
    await warming;
    assert.equal(informerStopped, true);
  });

  test("an informer's configuration error ends the warm-up with it, and run() then rejects with it", async () => {
    const clock = new VirtualClock();
    const informer = new FakeInformer();
    const bad = new Error('bad field selector');
    informer.failWith = bad;
    const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined });
    controller.addInformer(informer, 'Widget');
    await assert.rejects(controller.warmUp(new AbortController().signal), (err) => err === bad);
    await assert.rejects(controller.run(new AbortController().signal), (err) => err === bad);
  });

  test('Operator.warmUp warms every controller that can and rejects with the first warm-up error', async () => {
    const clock = new VirtualClock();
    const good = new FakeInformer();
    const bad = new FakeInformer();
    bad.failWith = new Error('forbidden');
    const operator = new Operator();
    for (const informer of [good, bad]) {
      const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => undefined });
      controller.addInformer(informer, 'Widget');
      operator.addController(controller);
    }
    operator.addController({ run: async () => undefined });
    const follow = new AbortController();
    const warming = operator.warmUp(follow.signal);
    await clock.advance(0);
    assert.equal(good.runs, 1);
    follow.abort();
    await assert.rejects(warming, /forbidden/);
  });

  test('ControllerLifecycle.cachesSynced holds while warming once every informer synced, with no workers yet; not once stopped', async () => {
    const lifecycle = new ControllerLifecycle({ clock: new VirtualClock(), shutdownTimeoutMs: 1_000, name: 'test', logger: noopLogger, logAttributes: {} });
    const informer = new SlowSyncInformer();
    assert.equal(lifecycle.cachesSynced, false, 'idle');
    const follow = new AbortController();
    const warming = lifecycle.warmUp(follow.signal, { startInformers: () => lifecycle.runInformer(informer, () => undefined) });
    assert.equal(lifecycle.cachesSynced, false, 'the initial list has not ended');
    informer.markSynced();
    assert.equal(lifecycle.cachesSynced, true);
    assert.equal(lifecycle.synced, false, 'no worker while warming');
    follow.abort();
    await warming;
    assert.equal(lifecycle.cachesSynced, false, 'a stopped warm-up');
  });

  test('Operator.cachesSynced follows the controllers that can tell while warming, and is false before and after', async () => {
    let synced = false;
    const operator = new Operator();
    operator.addController({
      run: async () => undefined,
      warmUp: (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
      cachesSynced: () => synced,
    });
    // A controller that cannot tell does not hold the others back.
    operator.addController({ run: async () => undefined });
    assert.equal(operator.cachesSynced(), false, 'neither warming nor running');
    const follow = new AbortController();
    const warming = operator.warmUp(follow.signal);
    assert.equal(operator.cachesSynced(), false);
    synced = true;
    assert.equal(operator.cachesSynced(), true);
    assert.equal(operator.hasSynced(), false, 'no worker while warming');
    follow.abort();
    await warming;
    assert.equal(operator.cachesSynced(), false, 'the warm-up ended');
  });
});
