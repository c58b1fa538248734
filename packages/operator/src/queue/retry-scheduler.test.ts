import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../clock.js';
import type { Clock, Timer } from '../clock.js';
import { isInvalidArgumentError } from '../errors.js';
import { RetryScheduler } from './retry-scheduler.js';
import { seededRandom } from '../testing/fake-informer.js';

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

/** A started scheduler on a virtual clock that records the entries it fires and stops itself from onDue after firing `stopAt`. */
function selfStoppingScheduler(stopAt: number): { clock: VirtualClock; fired: number[]; scheduler: RetryScheduler<number> } {
  const clock = new VirtualClock();
  const fired: number[] = [];
  const scheduler = new RetryScheduler<number>({
    clock,
    onDue: (_k, n) => {
      fired.push(n);
      if (n === stopAt) scheduler.stop();
    },
  });
  scheduler.start();
  return { clock, fired, scheduler };
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
    const { clock, fired, scheduler: s } = selfStoppingScheduler(1);
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

  test('entries put back after a stop from onDue stay cancellable through the key index', async () => {
    const { clock, fired, scheduler: s } = selfStoppingScheduler(0);
    for (let i = 0; i < 4; i++) s.schedule(`k${i}`, i, 100);
    assert.equal(s.hasPending('k2'), true); // builds the index before the wake-up
    await clock.advance(100);
    assert.deepEqual(fired, [0]);
    assert.deepEqual(s.entries('k2'), [2]);
    assert.deepEqual(
      s.cancel('k2', () => true),
      [2],
    );
    s.start();
    await clock.advance(0);
    assert.deepEqual(fired, [0, 1, 3]);
    assert.equal(s.size, 0);
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

  test('the key index lists a key\'s entries in schedule order, whichever buckets they wait in', () => {
    const s = new RetryScheduler<string>({ clock: new VirtualClock(), onDue: () => {} });
    s.schedule('k', 'a', 100);
    s.schedule('other', 'x', 50);
    s.schedule('k', 'b', 200);
    s.schedule('k', 'c', 100);
    // First key query: the index is built bucket by bucket (a, c, then b) and sorted back into schedule order.
    assert.deepEqual(s.entries('k'), ['a', 'b', 'c']);
    assert.deepEqual(
      s.cancel('k', (e) => e !== 'b'),
      ['a', 'c'],
    );
    assert.deepEqual(s.entries('k'), ['b']);
  });

  test('a query from onDue sees the entries of the same wake-up that have not fired yet, and can cancel them', () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    const s = new RetryScheduler<string>({
      clock,
      onDue: (key, e) => {
        fired.push(e);
        if (e === 'first') {
          assert.deepEqual(s.entries('b'), ['second', 'third']);
          assert.deepEqual(
            s.cancel('b', (x) => x === 'second'),
            ['second'],
          );
          assert.equal(s.hasPending(key), false);
        }
      },
    });
    s.start();
    s.schedule('a', 'first', 10);
    s.schedule('b', 'second', 10);
    s.schedule('b', 'third', 20);
    while (clock.fire());
    assert.deepEqual(fired, ['first', 'third']);
    assert.equal(s.size, 0);
  });

  test('clear from onDue drops the rest of the wake-up too', () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    const s = new RetryScheduler<number>({
      clock,
      onDue: (_key, n) => {
        fired.push(n);
        if (n === 1) {
          assert.equal(s.clear(), 2);
          s.schedule('after', 9, 5);
        }
      },
    });
    s.start();
    for (let i = 0; i < 3; i++) s.schedule(`k${i}`, i, 10);
    s.schedule('later', 3, 20);
    while (clock.fire());
    assert.deepEqual(fired, [0, 1, 9]);
    assert.equal(s.size, 0);
  });

  test('matches a reference model through index builds, drops and rebuilds, also from onDue', () => {
    const clock = new ManualClock();
    const random = seededRandom(11);
    const resolution = 10;
    interface Waiting {
      key: string;
      entry: number;
      at: number;
      seq: number;
    }
    let model: Waiting[] = [];
    let seq = 0;
    let nextEntry = 0;
    let expected: Waiting[] = [];
    let rescheduleOnDue = false;
    let queryFromOnDue = false;
    const keys = Array.from({ length: 400 }, (_, i) => `obj-${i}`);
    const isIndexed = (): boolean => (s as unknown as { indexed: boolean }).indexed; // white-box: prove the drop path ran
    const modelEntries = (key: string): number[] =>
      model
        .filter((w) => w.key === key)
        .sort((a, b) => a.seq - b.seq)
        .map((w) => w.entry);
    const schedule = (key: string): void => {
      const delay = Math.floor(random() * 3000);
      const entry = nextEntry++;
      model.push({ key, entry, at: Math.ceil((clock.current + delay) / resolution) * resolution, seq: seq++ });
      s.schedule(key, entry, delay);
    };
    const cancelSome = (key: string): void => {
      const drop = (e: number): boolean => e % 3 === 0;
      const want = modelEntries(key).filter(drop);
      const keep = (w: Waiting): boolean => w.key !== key || !drop(w.entry);
      model = model.filter(keep);
      expected = expected.filter(keep);
      assert.deepEqual(s.cancel(key, drop), want);
    };
    const cancelAll = (key: string): void => {
      const want = modelEntries(key);
      model = model.filter((w) => w.key !== key);
      assert.deepEqual(
        s.cancel(key, () => true),
        want,
      );
    };
    const checkKeys = (): void => {
      for (const key of keys) {
        assert.deepEqual(s.entries(key), modelEntries(key), key);
        assert.equal(s.pending(key), modelEntries(key).length);
      }
      assert.equal(s.size, model.length);
    };
    const s = new RetryScheduler<number>({
      clock,
      resolutionMs: resolution,
      onDue: (key, entry) => {
        const want = expected.shift();
        assert.deepEqual([key, entry], [want?.key, want?.entry], 'fires in time order, schedule order within a wake-up');
        model = model.filter((w) => w !== want);
        if (queryFromOnDue && entry % 50 === 0) {
          // The entries of this wake-up that have not fired yet are still waiting, and can be cancelled.
          const other = keys[Math.floor(random() * keys.length)]!;
          assert.deepEqual(s.entries(other), modelEntries(other));
          cancelSome(other);
        }
        if (rescheduleOnDue) schedule(key);
      },
    });
    /** Fires the next wake-up; the model says which entries it must deliver, in which order. */
    const fireNext = (): boolean => {
      if (model.length === 0) return false;
      const at = Math.min(...model.map((w) => w.at));
      expected = model.filter((w) => w.at <= Math.max(at, clock.current)).sort((a, b) => a.at - b.at || a.seq - b.seq);
      assert.equal(clock.fire(), true);
      assert.deepEqual(expected, []);
      return true;
    };
    s.start();

    for (let i = 0; i < 3000; i++) schedule(keys[i % keys.length]!);
    checkKeys(); // builds the index
    assert.equal(isIndexed(), true);

    // A retry storm: every fired entry is scheduled again and nobody asks about keys, so the index goes.
    rescheduleOnDue = true;
    const before = seq;
    while (seq - before < 12_000) fireNext();
    assert.equal(isIndexed(), false, 'dropped after many schedules without a query');
    checkKeys(); // rebuilt
    for (let i = 0; i < 100; i++) cancelSome(keys[Math.floor(random() * keys.length)]!);
    checkKeys();
    // Cancel most keys outright: cancelled slots outnumber waiting ones and the buckets are compacted.
    for (let k = 0; k < 300; k++) cancelAll(keys[k]!);
    checkKeys();
    for (let i = 0; i < 20; i++) fireNext();
    checkKeys();

    // Drop it again, then let onDue query and cancel other keys mid-wake-up (a rebuild while firing).
    while (seq - before < 30_000) fireNext();
    assert.equal(isIndexed(), false);
    queryFromOnDue = true;
    for (let i = 0; i < 50; i++) fireNext();
    checkKeys();

    rescheduleOnDue = false;
    queryFromOnDue = false;
    while (fireNext());
    checkKeys();
    assert.equal(s.size, 0);
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
