import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RetryScheduler, VirtualClock } from '@kubeloop/operator';
import { HeapRetryScheduler } from './heap-retry-scheduler.js';
import { SeededRandom } from './seeded-random.js';

/** The public surface both schedulers share. */
type Scheduler = Pick<RetryScheduler<number>, 'size' | 'hasPending' | 'pending' | 'entries' | 'nextDueAt' | 'start' | 'stop' | 'clear' | 'schedule' | 'cancel'>;

/**
 * The bench compares the heap with the calendar queue only if both do the same work: the same random
 * operations on both, on one virtual clock, must fire the same entries at the same times in the same
 * order and answer every query alike.
 */
describe('HeapRetryScheduler (the bench candidate)', () => {
  for (const resolutionMs of [1, 10]) {
    test(`behaves as RetryScheduler under random schedules, cancels, stops and clears (resolution ${resolutionMs} ms)`, async () => {
      const random = new SeededRandom(resolutionMs);
      const clock = new VirtualClock();
      const keys = Array.from({ length: 40 }, (_, i) => `obj-${i}`);
      let nextEntry = 0;
      const calendarLog: string[] = [];
      const heapLog: string[] = [];
      const build = (log: string[], create: (onDue: (key: string, entry: number) => void) => Scheduler): Scheduler => {
        const scheduler = create((key, entry) => {
          log.push(`${clock.now()} ${key}=${entry}`);
          // Every scheduled entry (a multiple of 3) fails once more when it fires, with the same delay in both.
          if (entry % 3 === 0) scheduler.schedule(key, entry + 1, (entry * 7) % 50);
        });
        return scheduler;
      };
      const schedulers = [
        build(calendarLog, (onDue) => new RetryScheduler<number>({ clock, onDue, resolutionMs })),
        build(heapLog, (onDue) => new HeapRetryScheduler<number>({ clock, onDue, resolutionMs })),
      ];
      const both = <T>(f: (s: Scheduler) => T): T => {
        const [a, b] = schedulers.map(f);
        assert.deepEqual(b, a);
        return a!;
      };
      both((s) => s.start());
      for (let step = 0; step < 3000; step++) {
        const key = random.pick(keys);
        const op = random.next();
        if (op < 0.5) {
          const entry = (nextEntry += 3);
          const delay = random.int(400) - 20 + random.next();
          both((s) => s.schedule(key, entry, delay));
        } else if (op < 0.65) both((s) => s.cancel(key, (e) => e % 2 === 0));
        else if (op < 0.8) await clock.advance(random.int(60));
        else if (op < 0.81) both((s) => s.stop());
        else if (op < 0.83) both((s) => s.start());
        else if (op < 0.832) both((s) => s.clear());
        both((s) => [s.size, s.hasPending(key), s.pending(key), s.entries(key), s.nextDueAt()]);
        assert.deepEqual(heapLog, calendarLog);
      }
      both((s) => s.start());
      await clock.advance(10_000);
      assert.deepEqual(heapLog, calendarLog);
      assert.ok(calendarLog.length > 500, `fired ${calendarLog.length}`);
      both((s) => s.size);
    });
  }
});
