/** The queue that runs one simulated controller: dedup, resync after a change mid-sync, timed resyncs, retries. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@kubeloop/resource';
import { conflict } from '../http/status-error.js';
import { ControllerQueue } from './simulated-controller.js';
import type { SimulatedController } from './simulated-controller.js';

/** A controller whose sync is scripted by the test; it records every key it syncs. */
function scripted(sync: (key: string) => Promise<number | undefined>): SimulatedController & { synced: string[] } {
  const synced: string[] = [];
  return {
    name: 'scripted',
    watches: [],
    synced,
    keysFor: () => [],
    initialKeys: () => [],
    sync(key) {
      synced.push(key);
      return sync(key);
    },
  };
}

function queueFor(controller: SimulatedController, clock: VirtualClock, logged: string[] = []): { queue: ControllerQueue; idle: () => Promise<void> } {
  let waiters: (() => void)[] = [];
  const queue = new ControllerQueue(controller, {
    clock,
    logger: (line) => logged.push(line),
    onIdle: () => {
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve();
    },
  });
  const idle = (): Promise<void> => (queue.idle ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve)));
  return { queue, idle };
}

describe('ControllerQueue', () => {
  test('a key queued many times before it syncs is synced once, after the write that queued it', async () => {
    const controller = scripted(() => Promise.resolve(undefined));
    const { queue, idle } = queueFor(controller, new VirtualClock());
    queue.add('a');
    queue.add('b');
    queue.add('a');
    assert.deepEqual(controller.synced, [], 'nothing syncs inside the call that queued it');
    await idle();
    assert.deepEqual(controller.synced, ['a', 'b']);
  });

  test('a key queued while it syncs is synced again after', async () => {
    let release: () => void = () => undefined;
    const controller = scripted((key) => (key === 'a' && controller.synced.length === 1 ? new Promise<undefined>((resolve) => (release = () => resolve(undefined))) : Promise.resolve(undefined)));
    const { queue, idle } = queueFor(controller, new VirtualClock());
    queue.add('a');
    await new Promise((resolve) => setImmediate(resolve));
    queue.add('a');
    release();
    await idle();
    assert.deepEqual(controller.synced, ['a', 'a']);
  });

  test('a sync asking to run again does so after its delay on the clock, not before', async () => {
    const clock = new VirtualClock();
    const controller = scripted(() => Promise.resolve(controller.synced.length === 1 ? 5_000 : undefined));
    const { queue, idle } = queueFor(controller, clock);
    queue.add('a');
    await idle();
    await clock.advance(4_999);
    await idle();
    assert.equal(controller.synced.length, 1);
    await clock.advance(1);
    await idle();
    assert.equal(controller.synced.length, 2);
  });

  test('a conflict is retried at once; another failure is logged and retried with a doubling backoff', async () => {
    const clock = new VirtualClock();
    const failures = [conflict({ group: 'apps', plural: 'deployments' }, 'a', 'stale'), new Error('boom'), new Error('boom again')];
    const controller = scripted(() => {
      const failure = failures.shift();
      return failure ? Promise.reject(failure) : Promise.resolve(undefined);
    });
    const logged: string[] = [];
    const { queue, idle } = queueFor(controller, clock, logged);
    queue.add('a');
    await idle();
    assert.equal(controller.synced.length, 2, 'the conflict was retried without waiting');
    assert.match(logged[0] ?? '', /simulated scripted controller failed to sync a \(retry 1 in 0\.5 s\): boom/);
    await clock.advance(500);
    await idle();
    assert.equal(controller.synced.length, 3);
    assert.match(logged[1] ?? '', /retry 2 in 1 s/);
    await clock.advance(999);
    await idle();
    assert.equal(controller.synced.length, 3);
    await clock.advance(1);
    await idle();
    assert.equal(controller.synced.length, 4);
    assert.equal(logged.length, 2);
  });

  test('stop cancels timers and drops queued keys', async () => {
    const clock = new VirtualClock();
    const controller = scripted(() => Promise.resolve(1_000));
    const { queue, idle } = queueFor(controller, clock);
    queue.add('a');
    await idle();
    await queue.stop();
    queue.add('b');
    await clock.advance(10_000);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(controller.synced, ['a']);
  });
});
