import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../clock.js';
import { isInvalidArgumentError } from '../errors.js';
import { deferred, seededRandom, waitFor } from '../testing/fake-informer.js';
import { DEFAULT_MAX_CONCURRENT_WORKERS, WorkQueue } from './work-queue.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('WorkQueue', () => {
  test('processes the items of one key one at a time and in order', async () => {
    const seen: number[] = [];
    let running = 0;
    let maxRunning = 0;
    const q = new WorkQueue<number>({
      process: async (_key, item) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await tick();
        seen.push(item);
        running--;
      },
    });
    q.start();
    for (let i = 0; i < 20; i++) q.add('k', i);
    await q.whenIdle();
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => i));
    assert.equal(maxRunning, 1);
  });

  test('runs different keys concurrently but never more than maxConcurrentWorkers', async () => {
    let running = 0;
    let maxRunning = 0;
    const gate = deferred();
    const q = new WorkQueue<number>({
      maxConcurrentWorkers: 3,
      process: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await gate.promise;
        running--;
      },
    });
    q.start();
    for (let i = 0; i < 10; i++) q.add(`k${i}`, i);
    await waitFor(() => running === 3);
    assert.equal(q.inFlight, 3);
    assert.equal(q.depth, 7);
    gate.resolve();
    await q.whenIdle();
    assert.equal(maxRunning, 3);
  });

  test('tells its metrics when items are queued (not merged), start and finish, whether they return, resolve, throw or reject', async () => {
    const log: string[] = [];
    const started: string[] = [];
    const gate = deferred();
    const q = new WorkQueue<string>({
      onError: () => {},
      coalesce: (queued, incoming) => (queued.startsWith('merge') && incoming.startsWith('merge') ? `${queued}+${incoming}` : undefined),
      process: (_key, item) => {
        if (item === 'sync-throw') throw new Error('x');
        if (item === 'async') return gate.promise;
        if (item === 'async-reject') return Promise.reject(new Error('y'));
        return undefined;
      },
      metrics: {
        queued: (item) => void log.push(`queued ${item}`),
        started: (item) => (log.push(`started ${item}`), started.push(item)),
        finished: (token) => void log.push(`finished ${started[token - 1]}`),
      },
    });
    q.add('a', 'sync');
    q.add('b', 'sync-throw');
    q.add('c', 'async');
    q.add('d', 'async-reject');
    q.add('e', 'merge1');
    q.add('e', 'merge2');
    q.start();
    await waitFor(() => log.includes('finished async-reject'));
    gate.resolve();
    await q.whenIdle();
    assert.deepEqual(log, [
      'queued sync',
      'queued sync-throw',
      'queued async',
      'queued async-reject',
      'queued merge1',
      'started sync',
      'finished sync',
      'started sync-throw',
      'finished sync-throw',
      'started async',
      'started async-reject',
      'started merge1+merge2',
      'finished merge1+merge2',
      'finished async-reject',
      'finished async',
    ]);
  });

  test('defaults to 10 concurrent workers', () => {
    const q = new WorkQueue<number>({ process: async () => {} });
    assert.equal(q.maxConcurrentWorkers, DEFAULT_MAX_CONCURRENT_WORKERS);
    assert.equal(DEFAULT_MAX_CONCURRENT_WORKERS, 10);
  });

  test('rejects a maxConcurrentWorkers that is not a positive integer', () => {
    assert.throws(() => new WorkQueue<number>({ process: async () => {}, maxConcurrentWorkers: 0 }), isInvalidArgumentError);
    assert.throws(() => new WorkQueue<number>({ process: async () => {}, maxConcurrentWorkers: 1.5 }), isInvalidArgumentError);
  });

  test('never calls process synchronously from add', () => {
    let called = false;
    const q = new WorkQueue<number>({
      process: async () => {
        called = true;
      },
    });
    q.start();
    q.add('k', 1);
    assert.equal(called, false);
  });

  test('holds items added before start until start', async () => {
    const seen: number[] = [];
    const q = new WorkQueue<number>({ process: async (_k, i) => void seen.push(i) });
    q.add('a', 1);
    await tick();
    assert.deepEqual(seen, []);
    q.start();
    await q.whenIdle();
    assert.deepEqual(seen, [1]);
  });

  test('coalesces an incoming item into the last queued item of its key, never into the running one', async () => {
    const seen: string[] = [];
    const gate = deferred();
    const q = new WorkQueue<string>({
      process: async (_k, item) => {
        if (item === 'first') await gate.promise;
        seen.push(item);
      },
      coalesce: (queued, incoming) => (queued.startsWith('u') && incoming.startsWith('u') ? `${queued}+${incoming}` : undefined),
    });
    q.start();
    q.add('k', 'first');
    await waitFor(() => q.inFlight === 1);
    assert.equal(q.add('k', 'u1'), 'queued');
    assert.equal(q.add('k', 'u2'), 'coalesced');
    assert.equal(q.add('k', 'u3'), 'coalesced');
    assert.equal(q.add('k', 'x'), 'queued');
    assert.equal(q.add('k', 'u4'), 'queued');
    assert.equal(q.depth, 3);
    gate.resolve();
    await q.whenIdle();
    assert.deepEqual(seen, ['first', 'u1+u2+u3', 'x', 'u4']);
  });

  test('takes keys round-robin so a busy key does not starve the others', async () => {
    const seen: string[] = [];
    const q = new WorkQueue<string>({ maxConcurrentWorkers: 1, process: async (_k, item) => void seen.push(item) });
    q.add('a', 'a1');
    q.add('a', 'a2');
    q.add('a', 'a3');
    q.add('b', 'b1');
    q.start();
    await q.whenIdle();
    assert.deepEqual(seen, ['a1', 'b1', 'a2', 'a3']);
  });

  test('frees the state of a key once it has nothing queued or running', async () => {
    const q = new WorkQueue<number>({ process: async () => {} });
    q.start();
    for (let i = 0; i < 100; i++) q.add(`k${i}`, i);
    assert.equal(q.keyCount, 100);
    await q.whenIdle();
    assert.equal(q.keyCount, 0);
    assert.equal(q.depth, 0);
  });

  test('removeQueued removes matching queued items of one key and returns them', async () => {
    const gate = deferred();
    const seen: number[] = [];
    const q = new WorkQueue<number>({
      process: async (_k, i) => {
        if (i === 0) await gate.promise;
        seen.push(i);
      },
    });
    q.start();
    q.add('k', 0);
    await waitFor(() => q.inFlight === 1);
    q.add('k', 1);
    q.add('k', 2);
    q.add('k', 3);
    assert.deepEqual(q.removeQueued('k', (i) => i % 2 === 1), [1, 3]);
    assert.deepEqual(q.queuedItems('k'), [2]);
    assert.deepEqual(q.removeQueued('other', () => true), []);
    gate.resolve();
    await q.whenIdle();
    assert.deepEqual(seen, [0, 2]);
  });

  test('a key emptied by removeQueued is skipped and can be used again', async () => {
    const seen: number[] = [];
    const q = new WorkQueue<number>({ process: async (_k, i) => void seen.push(i) });
    q.add('k', 1);
    q.removeQueued('k', () => true);
    q.add('k', 2);
    q.start();
    await q.whenIdle();
    assert.deepEqual(seen, [2]);
  });

  test('passes a rejection of process to onError and keeps going', async () => {
    const errors: unknown[] = [];
    const seen: number[] = [];
    const q = new WorkQueue<number>({
      process: async (_k, i) => {
        if (i === 1) throw new Error('boom');
        seen.push(i);
      },
      onError: (err) => errors.push(err),
    });
    q.start();
    q.add('k', 1);
    q.add('k', 2);
    await q.whenIdle();
    assert.equal(errors.length, 1);
    assert.deepEqual(seen, [2]);
  });

  test('shutdown rejects new items, drops queued ones and resolves true once running items finish', async () => {
    const gate = deferred();
    const seen: number[] = [];
    const q = new WorkQueue<number>({
      process: async (_k, i) => {
        await gate.promise;
        seen.push(i);
      },
    });
    q.start();
    q.add('k', 1);
    q.add('k', 2);
    await waitFor(() => q.inFlight === 1);
    const done = q.shutdown(1000);
    assert.equal(q.add('k', 3), 'rejected');
    assert.equal(q.depth, 0);
    gate.resolve();
    assert.equal(await done, true);
    assert.deepEqual(seen, [1]);
    assert.equal(q.keyCount, 0);
  });

  test('shutdown resolves false when the deadline passes with items still running', async () => {
    const clock = new VirtualClock();
    const q = new WorkQueue<number>({ clock, process: () => new Promise<void>(() => {}) });
    q.start();
    q.add('k', 1);
    await waitFor(() => q.inFlight === 1);
    let result: boolean | undefined;
    void q.shutdown(500).then((r) => (result = r));
    await clock.advance(499);
    assert.equal(result, undefined);
    await clock.advance(1);
    assert.equal(result, false);
  });

  test('under a seeded random storm no key ever has two items running, and each key keeps its order', async () => {
    const random = seededRandom(42);
    const running = new Set<string>();
    const lastSeen = new Map<string, number>();
    let violations = 0;
    const q = new WorkQueue<{ seq: number }>({
      maxConcurrentWorkers: 4,
      process: async (key, item) => {
        if (running.has(key)) violations++;
        running.add(key);
        if ((lastSeen.get(key) ?? -1) >= item.seq) violations++;
        lastSeen.set(key, item.seq);
        const turns = Math.floor(random() * 3);
        for (let i = 0; i < turns; i++) await tick();
        running.delete(key);
      },
    });
    q.start();
    for (let seq = 0; seq < 2000; seq++) {
      q.add(`k${Math.floor(random() * 25)}`, { seq });
      if (random() < 0.1) await tick();
    }
    await q.whenIdle();
    assert.equal(violations, 0);
    assert.equal(lastSeen.size, 25);
  });
});
