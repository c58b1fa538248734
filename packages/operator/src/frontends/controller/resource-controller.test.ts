import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { VirtualClock } from '../../clock.js';
import { isInvalidArgumentError } from '../../errors.js';
import type { ErrorHandler } from '../../controller/informer-controller.js';
import { noopLogger } from '../../observability/logger.js';
import { CachingInformer as SharedCachingInformer, FakeInformer, deferred, widget } from '../../testing/fake-informer.js';
import { Controller } from './resource-controller.js';
import { newResource } from './resource.js';
import type { Backgrounder, Resource } from './resource.js';
import { testControllerRun } from './test-controller-run.js';
import { runUntilStopped } from '../../testing/run-until-stopped.js';

/** The shared caching fake, with a resourceVersion to report. */
class CachingInformer extends SharedCachingInformer {
  override lastSyncResourceVersion(): string {
    return '42';
  }
}

/** The core wakes retries on a 10 ms grid: each retry comes at least its policy delay after the previous call, at most 10 ms later. */
function assertBackoff(times: number[], delays: number[]): void {
  assert.equal(times.length, delays.length + 1, `calls at ${times.join(', ')}`);
  delays.forEach((delay, i) => {
    const gap = times[i + 1]! - times[i]!;
    assert.ok(gap >= delay && gap <= delay + 10, `retry ${i + 1} came ${gap} ms after the previous call, expected ${delay} ms (calls at ${times.join(', ')})`);
  });
}

interface Call {
  op: 'upsert' | 'delete';
  key: string;
  rv: string | undefined;
  at: number;
}

function setup(
  behaviour: { upsert?: (key: string, obj: KubeObject) => Promise<void>; delete?: (key: string, obj: KubeObject) => Promise<void>; errorHandler?: ErrorHandler } = {},
) {
  const clock = new VirtualClock();
  const informer = new CachingInformer();
  const calls: Call[] = [];
  const record = (op: Call['op'], key: string, obj: KubeObject): void => {
    calls.push({ op, key, rv: obj.metadata.resourceVersion, at: clock.now() });
  };
  const resource = newResource(
    informer,
    async (key, obj) => {
      record('upsert', key, obj);
      await behaviour.upsert?.(key, obj);
    },
    async (key, obj) => {
      record('delete', key, obj);
      await behaviour.delete?.(key, obj);
    },
  );
  const controller = new Controller({ resource, log: noopLogger, clock, errorHandler: behaviour.errorHandler });
  const stop = runUntilStopped(controller);
  return {
    clock,
    informer,
    calls,
    controller,
    stop,
  };
}

describe('consul-style Controller', () => {
  test('adds and updates upsert the key with its newest state and deletes pass the last known state', async () => {
    const t = setup();
    await t.clock.advance(0);
    const v1 = widget('a', { rv: '1' });
    const v2 = widget('a', { rv: '2' });
    t.informer.add(v1);
    await t.clock.advance(0);
    t.informer.update(v1, v2);
    await t.clock.advance(0);
    t.informer.delete(v2);
    await t.clock.advance(0);
    await t.stop();
    assert.deepEqual(
      t.calls.map((c) => [c.op, c.key, c.rv]),
      [
        ['upsert', 'default/a', '1'],
        ['upsert', 'default/a', '2'],
        ['delete', 'default/a', '2'],
      ],
    );
  });

  test('an upsert that keeps failing is retried 5 times with backoff, then dropped and reported', async () => {
    const reported: (number | undefined)[] = [];
    const t = setup({
      upsert: async () => {
        throw new Error('consul unavailable');
      },
      errorHandler: (ctx) => reported.push(ctx.retryAfterMs),
    });
    await t.clock.advance(0);
    t.informer.add(widget('a'));
    await t.clock.advance(10_000_000);
    await t.stop();
    assertBackoff(
      t.calls.map((c) => c.at),
      [5, 10, 20, 40, 80],
    );
    assert.deepEqual(reported, [5, 10, 20, 40, 80, undefined], 'the last failure is reported as not retried');
  });

  test('an event whose key is gone when it is processed deletes with its object, never upserts a stale one', async () => {
    const t = setup();
    await t.clock.advance(0);
    const v1 = widget('a', { rv: '1' });
    // Added and deleted before the controller processed the add.
    t.informer.add(v1);
    t.informer.delete(v1);
    await t.clock.advance(0);
    await t.stop();
    assert.deepEqual(
      t.calls.map((c) => [c.op, c.rv]),
      [
        ['delete', '1'],
        ['delete', '1'],
      ],
    );
  });

  test('a delete processed after the key was created again upserts the new object', async () => {
    const t = setup();
    await t.clock.advance(0);
    const v1 = widget('a', { rv: '1' });
    t.informer.add(v1);
    await t.clock.advance(0);
    t.informer.delete(v1);
    t.informer.add(widget('a', { rv: '5' }));
    await t.clock.advance(0);
    await t.stop();
    assert.deepEqual(
      t.calls.map((c) => [c.op, c.rv]),
      [
        ['upsert', '1'],
        ['upsert', '5'],
        ['upsert', '5'],
      ],
    );
  });

  // Deliberate difference (README): consul-k8s runs one worker; ours handles keys concurrently, one key never twice at once.
  test('keys are handled concurrently: a slow upsert of one key does not hold up another key', async () => {
    const slow = deferred();
    const t = setup({
      upsert: async (key) => {
        if (key === 'default/a') await slow.promise;
      },
    });
    await t.clock.advance(0);
    t.informer.add(widget('a', { rv: '1' }));
    t.informer.add(widget('b', { rv: '1' }));
    await t.clock.advance(0);
    t.informer.update(widget('a', { rv: '1' }), widget('a', { rv: '2' }));
    await t.clock.advance(0);
    assert.deepEqual(
      t.calls.map((c) => [c.key, c.rv]),
      [
        ['default/a', '1'],
        ['default/b', '1'],
      ],
      'b was handled while a was still running, and the second event of a waits for the first',
    );
    slow.resolve();
    await t.clock.advance(0);
    await t.stop();
    assert.deepEqual(
      t.calls.map((c) => [c.key, c.rv]),
      [
        ['default/a', '1'],
        ['default/b', '1'],
        ['default/a', '2'],
      ],
    );
  });

  test('an upsert that fails is retried with backoff until it succeeds', async () => {
    let failures = 4;
    const t = setup({
      upsert: async () => {
        if (failures-- > 0) throw new Error('consul unavailable');
      },
    });
    await t.clock.advance(0);
    t.informer.add(widget('a'));
    await t.clock.advance(10_000);
    await t.stop();
    assertBackoff(
      t.calls.map((c) => c.at),
      [5, 10, 20, 40],
    );
  });

  test('a failed upsert retried later sees the newest state of the key', async () => {
    let fail = true;
    const t = setup({
      upsert: async () => {
        if (fail) {
          fail = false;
          throw new Error('once');
        }
      },
    });
    await t.clock.advance(0);
    const v1 = widget('a', { rv: '1', generation: 1 });
    t.informer.add(v1);
    await t.clock.advance(0);
    // A status-only change while the retry waits: same generation.
    const v2 = widget('a', { rv: '2', generation: 1 });
    t.informer.cache.set('default/a', v2);
    await t.clock.advance(100);
    await t.stop();
    assert.deepEqual(
      t.calls.map((c) => [c.op, c.rv]),
      [
        ['upsert', '1'],
        ['upsert', '2'],
      ],
    );
  });

  test('a newer event of the key replaces its pending retry', async () => {
    const t = setup({
      upsert: async (_key, obj) => {
        if (obj.metadata.resourceVersion === '1') throw new Error('v1 always fails');
      },
    });
    await t.clock.advance(0);
    const v1 = widget('a', { rv: '1' });
    t.informer.add(v1);
    await t.clock.advance(2);
    t.informer.update(v1, widget('a', { rv: '2' }));
    await t.clock.advance(10_000);
    await t.stop();
    assert.deepEqual(
      t.calls.map((c) => [c.op, c.rv, c.at]),
      [
        ['upsert', '1', 0],
        ['upsert', '2', 2],
      ],
    );
  });

  test('a delete that fails is retried with the same last known state', async () => {
    let failures = 2;
    const t = setup({
      delete: async () => {
        if (failures-- > 0) throw new Error('nope');
      },
    });
    await t.clock.advance(0);
    const last = widget('a', { rv: '7' });
    t.informer.add(last);
    await t.clock.advance(0);
    t.informer.delete(last);
    await t.clock.advance(1000);
    await t.stop();
    const deletes = t.calls.filter((c) => c.op === 'delete');
    assert.deepEqual(
      deletes.map((c) => c.rv),
      ['7', '7', '7'],
    );
    assertBackoff(
      deletes.map((c) => c.at),
      [5, 10],
    );
  });

  test('hasSynced and lastSyncResourceVersion follow the informer; a stopped controller has not synced (seed: still true)', async () => {
    const t = setup();
    assert.equal(t.controller.lastSyncResourceVersion(), '42');
    await t.clock.advance(0);
    assert.equal(t.controller.hasSynced(), true);
    await t.stop();
    assert.equal(t.controller.hasSynced(), false, 'a stopped controller serves no readiness');
  });

  test('a Backgrounder runs beside the controller and is awaited when it stops', async () => {
    const informer = new FakeInformer();
    const release = deferred();
    const events: string[] = [];
    const resource: Resource & Backgrounder = {
      informer: () => informer,
      upsert: () => {},
      delete: () => {},
      run: async (signal) => {
        events.push('started');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        events.push('aborted');
        await release.promise;
        events.push('finished');
      },
    };
    const abort = new AbortController();
    const controller = new Controller({ resource, log: noopLogger });
    let stopped = false;
    const running = controller.run(abort.signal).then(() => {
      stopped = true;
    });
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(events, ['started']);
    abort.abort();
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(events, ['started', 'aborted']);
    assert.equal(stopped, false, 'run() waits for the backgrounder');
    release.resolve();
    await running;
    assert.deepEqual(events, ['started', 'aborted', 'finished']);
  });

  test('testControllerRun runs the controller until the returned function stops it', async () => {
    const informer = new FakeInformer();
    const keys: string[] = [];
    const stop = testControllerRun(
      newResource(
        informer,
        (key) => {
          keys.push(key);
        },
        () => {},
      ),
      { log: noopLogger },
    );
    await new Promise<void>((r) => setImmediate(r));
    informer.add(widget('x', { namespace: 'ns' }));
    await new Promise<void>((r) => setImmediate(r));
    await stop();
    assert.deepEqual(keys, ['ns/x']);
  });

  test('testControllerRun reports an informer failure when stopped', async () => {
    const informer = new FakeInformer();
    informer.failWith = new Error('forbidden namespace');
    const stop = testControllerRun(newResource(informer, () => {}, () => {}), { log: noopLogger });
    await assert.rejects(stop(), /forbidden namespace/);
  });

  test('newResource and Controller refuse missing arguments', () => {
    assert.throws(() => newResource(undefined as never, () => {}, () => {}), isInvalidArgumentError);
    assert.throws(() => newResource(new FakeInformer(), undefined as never, () => {}), isInvalidArgumentError);
    assert.throws(() => new Controller({ resource: undefined as never }), isInvalidArgumentError);
  });

  test('a controller runs once, and its collectors exist before it runs', async () => {
    const controller = new Controller({ resource: newResource(new FakeInformer(), () => {}, () => {}), log: noopLogger });
    assert.ok(controller.prometheusCollectors().length > 0);
    const abort = new AbortController();
    const first = controller.run(abort.signal);
    await assert.rejects(controller.run(abort.signal), (err: unknown) => (err as { code?: string }).code === 'ControllerAlreadyRun');
    abort.abort();
    await first;
  });
});
