import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from './clock.js';
import type { Clock, Timer } from './clock.js';
import { isInvalidArgumentError } from './errors.js';
import { RetryScheduler } from './retry-scheduler.js';
import { seededRandom } from './testing/fake-informer.js';

/** A synchronous manual clock: `fire()` runs the one armed timer; counts how many timers were set. */
class ManualClock implements Clock {
  current = 0;
  timersSet = 0;
  private armed: { at: number; fn: () => void; cancelled: boolean } | undefined;
  now(): number {
    return this.current;
  }
  setTimer(delayMs: number, fn: () => void): Timer {
    this.timersSet++;
    const t = { at: this.current + delayMs, fn, cancelled: false };
    this.armed = t;
    return { cancel: () => void (t.cancelled = true) };
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
  /** Jumps to the armed timer and fires it; false when none is armed. */
  fire(): boolean {
    const t = this.armed;
    if (t === undefined || t.cancelled) return false;
    this.armed = undefined;
    this.current = Math.max(this.current, t.at);
    t.fn();
    return true;
  }
}

describe('RetryScheduler', () => {
  test('fires entries in due order, entries due together in schedule order', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    const s = new RetryScheduler<string>({ clock, onDue: (_k, e) => fired.push(`${clock.now()}:${e}`) });
    s.start();
    s.schedule('a', 'late', 300);
    s.schedule('b', 'first', 100);
    s.schedule('c', 'tie1', 200);
    s.schedule('a', 'tie2', 200);
    await clock.advance(1000);
    assert.deepEqual(fired, ['100:first', '200:tie1', '200:tie2', '300:late']);
    assert.equal(s.size, 0);
  });

  test('keeps exactly one timer armed for many entries, re-armed for an earlier entry', () => {
    const clock = new VirtualClock();
    const s = new RetryScheduler<number>({ clock, onDue: () => {} });
    s.start();
    for (let i = 0; i < 1000; i++) s.schedule(`k${i}`, i, 5000 + i);
    assert.equal(clock.pendingTimers(), 1);
    assert.equal(clock.nextTimerAt(), 5000);
    s.schedule('early', -1, 10);
    assert.equal(clock.pendingTimers(), 1);
    assert.equal(clock.nextTimerAt(), 10);
    assert.equal(s.nextDueAt(), 10);
  });

  test('cancel removes the matching entries of one key only and returns them', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    const s = new RetryScheduler<{ handler: string }>({ clock, onDue: (k, e) => fired.push(`${k}/${e.handler}`) });
    s.start();
    s.schedule('obj', { handler: 'w1' }, 100);
    s.schedule('obj', { handler: 'w2' }, 100);
    s.schedule('other', { handler: 'w1' }, 100);
    const removed = s.cancel('obj', (e) => e.handler === 'w1');
    assert.deepEqual(removed, [{ handler: 'w1' }]);
    assert.equal(s.pending('obj'), 1);
    assert.equal(s.hasPending('obj'), true);
    assert.deepEqual(s.entries('obj'), [{ handler: 'w2' }]);
    assert.deepEqual(s.cancel('obj', () => true), [{ handler: 'w2' }]);
    assert.equal(s.hasPending('obj'), false);
    s.schedule('obj', { handler: 'w2' }, 100);
    assert.deepEqual(s.cancel('missing', () => true), []);
    await clock.advance(100);
    assert.deepEqual(fired, ['other/w1', 'obj/w2']);
  });

  test('cancel keeps schedule order of the entries that remain, whichever entries are removed', () => {
    const s = new RetryScheduler<number>({ clock: new VirtualClock(), onDue: () => {} });
    for (let i = 0; i < 6; i++) s.schedule('k', i, 10);
    s.cancel('k', (n) => n === 0 || n === 3 || n === 5);
    assert.deepEqual(s.entries('k'), [1, 2, 4]);
    s.schedule('k', 6, 10);
    assert.deepEqual(s.entries('k'), [1, 2, 4, 6]);
  });

  test('with a resolution, entries due in one window fire together at the end of it, never early', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    const s = new RetryScheduler<string>({ clock, resolutionMs: 100, onDue: (_k, e) => fired.push(`${clock.now()}:${e}`) });
    s.start();
    s.schedule('a', 'x', 101);
    s.schedule('b', 'y', 150);
    s.schedule('c', 'z', 200);
    assert.equal(clock.nextTimerAt(), 200);
    await clock.advance(1000);
    assert.deepEqual(fired, ['200:x', '200:y', '200:z']);
  });

  test('stopping from onDue keeps the entries that have not fired yet', async () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const s = new RetryScheduler<number>({
      clock,
      onDue: (_k, n) => {
        fired.push(n);
        if (n === 1) s.stop();
      },
    });
    s.start();
    for (let i = 0; i < 4; i++) s.schedule(`k${i}`, i, 100);
    s.schedule('later', 9, 200);
    await clock.advance(300);
    assert.deepEqual(fired, [0, 1]);
    assert.equal(s.size, 3);
    assert.deepEqual(s.entries('k2'), [2]);
    s.start();
    await clock.advance(0);
    assert.deepEqual(fired, [0, 1, 2, 3, 9]);
  });

  test('finished entries are not retained: a key that fired has no entries, and new keys get only their own', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    const s = new RetryScheduler<string>({ clock, onDue: (k, e) => fired.push(`${k}=${e}`) });
    s.start();
    s.schedule('a', 'first', 10);
    await clock.advance(10);
    s.schedule('b', 'second', 10);
    assert.deepEqual(s.entries('a'), []);
    assert.equal(s.hasPending('a'), false);
    assert.deepEqual(s.entries('b'), ['second']);
    await clock.advance(10);
    assert.deepEqual(fired, ['a=first', 'b=second']);
  });

  test('rejects a resolution that is not a positive integer', () => {
    assert.throws(() => new RetryScheduler<number>({ onDue: () => {}, resolutionMs: 0 }), isInvalidArgumentError);
    assert.throws(() => new RetryScheduler<number>({ onDue: () => {}, resolutionMs: 2.5 }), isInvalidArgumentError);
  });

  test('an entry scheduled with delay 0 while firing waits for the next turn instead of looping', async () => {
    const clock = new VirtualClock();
    let fired = 0;
    const s = new RetryScheduler<number>({
      clock,
      onDue: (k, n) => {
        fired++;
        if (n < 3) s.schedule(k, n + 1, 0);
      },
    });
    s.start();
    s.schedule('k', 0, 0);
    await clock.advance(0);
    assert.equal(fired, 4);
  });

  test('does not fire before start or after stop, and clear drops everything', async () => {
    const clock = new VirtualClock();
    let fired = 0;
    const s = new RetryScheduler<number>({ clock, onDue: () => fired++ });
    s.schedule('k', 1, 10);
    await clock.advance(100);
    assert.equal(fired, 0);
    s.start();
    await clock.advance(0);
    assert.equal(fired, 1);
    s.schedule('k', 2, 10);
    s.stop();
    await clock.advance(100);
    assert.equal(fired, 1);
    assert.equal(s.clear(), 1);
    s.start();
    await clock.advance(100);
    assert.equal(fired, 1);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('waits longer than the 2^31-1 ms timer limit in steps without firing early', async () => {
    const clock = new VirtualClock();
    const firedAt: number[] = [];
    const s = new RetryScheduler<number>({ clock, onDue: () => firedAt.push(clock.now()) });
    s.start();
    const due = 2 ** 32;
    s.schedule('k', 1, due);
    assert.equal(clock.nextTimerAt(), 2 ** 31 - 1);
    while (await clock.runNext());
    assert.deepEqual(firedAt, [due]);
  });

  test('a burst of schedules in one synchronous run reads the clock once', async () => {
    const clock = new VirtualClock(1000);
    let reads = 0;
    const counting: Clock = { now: () => (reads++, clock.now()), setTimer: (d, fn) => clock.setTimer(d, fn), sleep: (d) => clock.sleep(d) };
    const s = new RetryScheduler<number>({ clock: counting, onDue: () => {} });
    s.start();
    for (let i = 0; i < 1000; i++) s.schedule(`k${i}`, i, 10 + i);
    assert.equal(reads, 1);
    await Promise.resolve();
    s.schedule('later', 0, 5);
    assert.equal(reads, 2, 'the next run of code reads the clock again');
    assert.equal(s.nextDueAt(), 1005);
  });

  test('handles 100k pending entries with one timer, cancellation compacts the heap, and all fire in order', () => {
    const clock = new ManualClock();
    const random = seededRandom(7);
    let last = -1;
    let outOfOrder = 0;
    let fired = 0;
    const s = new RetryScheduler<number>({
      clock,
      onDue: (_k, due) => {
        fired++;
        if (due < last) outOfOrder++;
        last = due;
      },
    });
    s.start();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const delay = Math.floor(random() * 160_000);
      s.schedule(`obj${i % 5000}`, delay, delay);
    }
    assert.equal(s.size, n);
    // Cancel every entry of the first half of the objects: half the heap.
    let cancelled = 0;
    for (let o = 0; o < 2500; o++) cancelled += s.cancel(`obj${o}`, () => true).length;
    assert.equal(s.size, n - cancelled);
    while (clock.fire());
    assert.equal(fired, n - cancelled);
    assert.equal(outOfOrder, 0);
    assert.equal(s.size, 0);
    // Far fewer timers than entries: one per distinct due time at most.
    assert.ok(clock.timersSet <= 160_001, `timers set: ${clock.timersSet}`);
  });
});
