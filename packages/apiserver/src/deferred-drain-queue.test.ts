/** The queue behind the background loops: deduplicated keys, drained a turn later, one at a time. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DeferredDrainQueue } from './deferred-drain-queue.js';
import type { DeferredDrainQueueOptions } from './deferred-drain-queue.js';
import { nextTurn } from './next-turn.js';

type Extra = Partial<Omit<DeferredDrainQueueOptions<string>, 'process' | 'onIdle'>>;

/** A queue whose work is scripted by the test; it records the keys worked on and resolves `idle()` on `onIdle`. */
function recordingQueue(work: (key: string) => Promise<void> = () => Promise.resolve(), extra: Extra = {}): {
  queue: DeferredDrainQueue<string>;
  processed: string[];
  idle: () => Promise<void>;
} {
  const processed: string[] = [];
  let waiters: (() => void)[] = [];
  const queue = new DeferredDrainQueue<string>({
    onError: (key, err) => assert.fail(`unexpected failure of ${key}: ${String(err)}`),
    ...extra,
    process: (key) => {
      processed.push(key);
      return work(key);
    },
    onIdle: () => {
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve();
    },
  });
  const idle = (): Promise<void> => (queue.idle ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve)));
  return { queue, processed, idle };
}

/** A promise the test settles by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('DeferredDrainQueue', () => {
  test('works on nothing inside the call that adds, then on each key once, in order', async () => {
    const { queue, processed, idle } = recordingQueue();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    assert.deepEqual(processed, []);
    assert.equal(queue.idle, false);
    await Promise.resolve();
    assert.deepEqual(processed, [], 'not in a microtask either: a setImmediate turn later');
    await idle();
    assert.deepEqual(processed, ['a', 'b']);
    assert.equal(queue.idle, true);
  });

  test('a key added again keeps its place by default and goes last with requeueToBack', async () => {
    const kept = recordingQueue();
    for (const key of ['a', 'b', 'a']) kept.queue.add(key);
    await kept.idle();
    assert.deepEqual(kept.processed, ['a', 'b']);
    const moved = recordingQueue(undefined, { requeueToBack: true });
    for (const key of ['a', 'b', 'a']) moved.queue.add(key);
    await moved.idle();
    assert.deepEqual(moved.processed, ['b', 'a']);
  });

  test('works on one key at a time; a key added while it is worked on is worked on again after', async () => {
    const first = gate();
    let running = 0;
    let most = 0;
    const { queue, processed, idle } = recordingQueue(async (key) => {
      most = Math.max(most, ++running);
      if (key === 'a' && processed.length === 1) await first.promise;
      running--;
    });
    queue.add('a');
    queue.add('b');
    while (processed.length === 0) await nextTurn();
    queue.add('a');
    queue.add('c');
    assert.equal(queue.idle, false, 'busy with a key');
    first.open();
    await idle();
    assert.deepEqual(processed, ['a', 'b', 'a', 'c']);
    assert.equal(most, 1);
  });

  test('with waitForStart, keys wait for start()', async () => {
    const { queue, processed, idle } = recordingQueue(undefined, { waitForStart: true });
    queue.add('a');
    for (let turn = 0; turn < 3; turn++) await nextTurn();
    assert.deepEqual(processed, []);
    assert.equal(queue.idle, false, 'the key is kept');
    queue.start();
    await idle();
    assert.deepEqual(processed, ['a']);
  });

  test('yieldBetweenKeys lets other callbacks of the loop run between two keys; without it the next key follows at once', async () => {
    for (const yieldBetweenKeys of [false, true]) {
      const order: string[] = [];
      const { queue, idle } = recordingQueue(
        (key) => {
          order.push(key);
          if (key === 'a') setImmediate(() => order.push('other'));
          return Promise.resolve();
        },
        { yieldBetweenKeys },
      );
      queue.add('a');
      queue.add('b');
      await idle();
      await nextTurn();
      assert.deepEqual(order, yieldBetweenKeys ? ['a', 'other', 'b'] : ['a', 'b', 'other'], `yieldBetweenKeys: ${yieldBetweenKeys}`);
    }
  });

  test('a failure goes to onError and the next key is worked on', async () => {
    const failures: string[] = [];
    const { queue, processed, idle } = recordingQueue((key) => (key === 'a' ? Promise.reject(new Error('boom')) : Promise.resolve()), {
      onError: (key, err) => failures.push(`${key}: ${(err as Error).message}`),
    });
    queue.add('a');
    queue.add('b');
    await idle();
    assert.deepEqual(processed, ['a', 'b']);
    assert.deepEqual(failures, ['a: boom']);
  });

  test('stop drops queued keys, takes no more, says idle, and resolves only once the key in progress is done', async () => {
    const first = gate();
    let done = false;
    let idleCalls = 0;
    const processed: string[] = [];
    const queue = new DeferredDrainQueue<string>({
      process: async (key) => {
        processed.push(key);
        await first.promise;
        done = true;
      },
      onError: (key) => assert.fail(`unexpected failure of ${key}`),
      onIdle: () => idleCalls++,
    });
    queue.add('a');
    queue.add('b');
    while (processed.length === 0) await nextTurn();
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    assert.equal(queue.stopped, true);
    queue.add('c');
    await nextTurn();
    assert.equal(stopped, false, 'waits for the key in progress');
    first.open();
    await stopping;
    assert.equal(done, true);
    for (let turn = 0; turn < 3; turn++) await nextTurn();
    assert.deepEqual(processed, ['a']);
    assert.equal(queue.idle, true);
    assert.equal(idleCalls, 1);
  });
});
