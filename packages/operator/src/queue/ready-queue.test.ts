import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadyQueue } from './ready-queue.js';
import { deferred } from '../testing/fake-informer.js';
import { WorkQueue } from './work-queue.js';

interface Entry {
  name: string;
  readyTicket: number;
}

const entry = (name: string): Entry => ({ name, readyTicket: 0 });

function drain(q: ReadyQueue<Entry>): string[] {
  const out: string[] = [];
  for (let e = q.shift(); e !== undefined; e = q.shift()) out.push(e.name);
  return out;
}

describe('ReadyQueue', () => {
  test('takes the highest priority first and keeps arrival order within a priority', () => {
    const q = new ReadyQueue<Entry>();
    q.push(entry('low-1'), -100);
    q.push(entry('a'), 0);
    q.push(entry('low-2'), -100);
    q.push(entry('urgent'), 10);
    q.push(entry('b'), 0);
    assert.equal(q.length, 5);
    assert.deepEqual(drain(q), ['urgent', 'a', 'b', 'low-1', 'low-2']);
    assert.equal(q.length, 0);
  });

  test('an entry pushed again moves to the back of its new level and is taken once', () => {
    const q = new ReadyQueue<Entry>();
    const x = entry('x');
    q.push(x, -100);
    q.push(entry('a'), 0);
    q.push(x, 0);
    assert.equal(q.length, 2);
    assert.deepEqual(drain(q), ['a', 'x']);
    // Back at its old level later: the stale entry left there is not taken a second time.
    q.push(x, -100);
    q.push(entry('y'), -100);
    assert.deepEqual(drain(q), ['x', 'y']);
  });

  test('levels emptied are dropped, so many distinct priorities cost nothing once drained; a non-finite priority counts as 0', () => {
    const q = new ReadyQueue<Entry>();
    for (let p = 1; p <= 1000; p++) q.push(entry(`p${p}`), p);
    assert.equal(drain(q).length, 1000);
    q.push(entry('nan'), Number.NaN);
    q.push(entry('one'), 1);
    q.push(entry('zero'), 0);
    assert.deepEqual(drain(q), ['one', 'nan', 'zero']);
    assert.equal(q.levelCount, 1, 'only the default level is kept');
  });

  test('a removed entry is skipped', () => {
    const q = new ReadyQueue<Entry>();
    const x = entry('x');
    q.push(x, 0);
    q.push(entry('y'), 0);
    q.remove(x);
    assert.equal(q.length, 1);
    assert.deepEqual(drain(q), ['y']);
  });
});

describe('WorkQueue priorities', () => {
  /** A queue with one worker held by a first item, so that the order of the rest can be set up. */
  function heldQueue() {
    const started: string[] = [];
    const hold = deferred();
    const q = new WorkQueue<string>({
      maxConcurrentWorkers: 1,
      coalesce: (queued) => queued,
      process: async (key, item, priority) => {
        started.push(`${key}:${item}@${priority}`);
        if (key === 'hold') await hold.promise;
      },
    });
    q.start();
    q.add('hold', 'h');
    return { q, started, release: () => hold.resolve() };
  }

  test('starts higher priorities first, keys of one priority in arrival order, and tells process the priority', async () => {
    const { q, started, release } = heldQueue();
    await Promise.resolve();
    q.add('init-1', 'i', -100);
    q.add('fresh-1', 'f');
    q.add('init-2', 'i', -100);
    q.add('urgent', 'u', 5);
    q.add('fresh-2', 'f');
    release();
    await q.whenIdle();
    assert.deepEqual(started, ['hold:h@0', 'urgent:u@5', 'fresh-1:f@0', 'fresh-2:f@0', 'init-1:i@-100', 'init-2:i@-100']);
  });

  test('a merge keeps the higher priority and moves a waiting key up', async () => {
    const { q, started, release } = heldQueue();
    await Promise.resolve();
    q.add('a', 'first', -100);
    q.add('b', 'b');
    assert.equal(q.add('a', 'merged', 3), 'coalesced');
    assert.equal(q.add('b', 'merged', -100), 'coalesced', 'a lower priority does not lower a queued item');
    release();
    await q.whenIdle();
    assert.deepEqual(started, ['hold:h@0', 'a:first@3', 'b:b@0']);
  });

  test('items of one key keep their order; the key waits at the highest priority of its items', async () => {
    const order: string[] = [];
    const hold = deferred();
    const q = new WorkQueue<string>({
      maxConcurrentWorkers: 1,
      process: async (key, item, priority) => {
        order.push(`${key}:${item}@${priority}`);
        if (item === 'hold') await hold.promise;
      },
    });
    q.start();
    q.add('k', 'hold');
    await Promise.resolve();
    q.add('k', 'low', -100);
    q.add('k', 'high', 7);
    q.add('other', 'x', 1);
    hold.resolve();
    await q.whenIdle();
    assert.deepEqual(order, ['k:hold@0', 'k:low@-100', 'k:high@7', 'other:x@1']);
  });

  test('removeQueued of a waiting key leaves no ghost behind', async () => {
    const { q, started, release } = heldQueue();
    await Promise.resolve();
    q.add('gone', 'g', 9);
    q.add('stay', 's');
    assert.equal(q.removeQueued('gone', () => true).length, 1);
    assert.equal(q.depth, 1);
    release();
    await q.whenIdle();
    assert.deepEqual(started, ['hold:h@0', 'stay:s@0']);
  });
});
