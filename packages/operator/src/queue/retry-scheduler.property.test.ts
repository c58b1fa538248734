/**
 * Properties of the retry scheduler on the virtual clock, against a model (fast-check): under
 * random schedules, cancels, queries, time steps, stops and clears, every entry fires exactly once
 * unless cancelled or cleared, never early and less than `resolutionMs` late, wake-ups in time order
 * and the entries of one wake-up in schedule order; `size`, `pending`, `entries` and `cancel` agree
 * with the model at every step.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { VirtualClock } from '../clock.js';
import { RetryScheduler } from './retry-scheduler.js';

interface Entry {
  id: number;
  key: string;
}

interface Waiting extends Entry {
  due: number;
  seq: number;
}

type Op =
  | { type: 'schedule'; key: string; delayMs: number }
  | { type: 'cancel'; key: string; modulo: number }
  | { type: 'advance'; ms: number }
  | { type: 'query'; key: string }
  | { type: 'stop' }
  | { type: 'start' }
  | { type: 'clear' };

const key = fc.constantFrom('a', 'b', 'c', 'd');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('schedule' as const), key, delayMs: fc.oneof(fc.integer({ min: -5, max: 60 }), fc.constantFrom(0, 10, 20, 1000)) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('cancel' as const), key, modulo: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(1000)) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('query' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ type: 'stop' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'start' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'clear' as const }) },
);

describe('RetryScheduler properties (virtual clock)', () => {
  test('fires each live entry exactly once, on time within the resolution, in order; queries and cancels agree with a model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.constantFrom(1, 10), async (ops, resolutionMs) => {
        const clock = new VirtualClock(1_000_000);
        const fired: { entry: Entry; at: number }[] = [];
        /** The wake-up an entry belongs to: its due time aligned up to the resolution. */
        const wakeOf = (due: number): number => Math.ceil(due / resolutionMs) * resolutionMs;
        const scheduler = new RetryScheduler<Entry>({ clock, resolutionMs, onDue: (k, entry) => fired.push({ entry: { ...entry, key: k }, at: clock.now() }) });
        scheduler.start();
        let running = true;
        /** Times at which the scheduler was stopped and started again: an entry due meanwhile fires late, at the start. */
        const pauses: { from: number; to: number }[] = [];
        let stoppedAt = 0;
        const runningSince = (due: number): boolean => !pauses.some((p) => p.to >= due);
        const wakes = new Map<number, number>();
        let model: Waiting[] = [];
        let seq = 0;
        const firedIds = new Set<number>();

        /** Checks what fired since the last check against the model, and removes it from the model. */
        const checkFired = (from: number): void => {
          const batch = fired.slice(from);
          for (const { entry, at } of batch) {
            const waiting = model.find((w) => w.id === entry.id);
            assert.ok(waiting !== undefined, `entry ${entry.id} fired but was not waiting (cancelled, cleared or fired before)`);
            assert.ok(!firedIds.has(entry.id), `entry ${entry.id} fired twice`);
            firedIds.add(entry.id);
            assert.equal(entry.key, waiting.key);
            assert.ok(at >= waiting.due, `entry ${entry.id} fired at ${at}, before it was due at ${waiting.due}`);
            assert.ok(at < waiting.due + resolutionMs || !runningSince(waiting.due), `entry ${entry.id} fired at ${at}, ${resolutionMs} ms or more after it was due at ${waiting.due}`);
            model = model.filter((w) => w.id !== entry.id);
            wakes.set(entry.id, wakeOf(waiting.due));
          }
        };

        for (const o of ops) {
          switch (o.type) {
            case 'schedule': {
              const id = seq++;
              scheduler.schedule(o.key, { id, key: o.key }, o.delayMs);
              model.push({ id, key: o.key, due: clock.now() + Math.max(0, o.delayMs), seq: id });
              break;
            }
            case 'cancel': {
              const removed = scheduler.cancel(o.key, (e) => e.id % o.modulo === 0);
              const expected = model.filter((w) => w.key === o.key && w.id % o.modulo === 0);
              assert.deepEqual(removed.map((e) => e.id), expected.map((w) => w.id), 'cancel returns the matching entries in schedule order');
              model = model.filter((w) => !expected.includes(w));
              break;
            }
            case 'advance': {
              const from = fired.length;
              const start = clock.now();
              await clock.advance(o.ms);
              checkFired(from);
              if (running) {
                // Everything due at least `resolutionMs` before the end of this step has fired.
                const late = model.filter((w) => w.due + resolutionMs <= clock.now());
                assert.deepEqual(late.map((w) => w.id), [], `due entries still waiting at ${clock.now()} (step from ${start})`);
              }
              break;
            }
            case 'query':
              assert.equal(scheduler.size, model.length);
              assert.equal(scheduler.pending(o.key), model.filter((w) => w.key === o.key).length);
              assert.equal(scheduler.hasPending(o.key), model.some((w) => w.key === o.key));
              assert.deepEqual(scheduler.entries(o.key).map((e) => e.id), model.filter((w) => w.key === o.key).map((w) => w.id));
              break;
            case 'stop':
              scheduler.stop();
              if (running) stoppedAt = clock.now();
              running = false;
              break;
            case 'start':
              scheduler.start();
              if (!running) pauses.push({ from: stoppedAt, to: clock.now() });
              running = true;
              break;
            case 'clear':
              assert.equal(scheduler.clear(), model.length);
              model = [];
              break;
          }
        }
        // Finally everything still waiting fires once the scheduler runs and time passes.
        if (!running) {
          scheduler.start();
          pauses.push({ from: stoppedAt, to: clock.now() });
        }
        const from = fired.length;
        await clock.advance(10_000);
        checkFired(from);
        assert.deepEqual(model.map((w) => w.id), [], 'every live entry fired');
        assert.equal(scheduler.size, 0);
        // Wake-ups in time order, the entries of one wake-up in schedule order (ids are schedule order).
        for (let i = 1; i < fired.length; i++) {
          const a = fired[i - 1]!;
          const b = fired[i]!;
          assert.ok(a.at <= b.at, 'firing times never go back');
          if (a.at === b.at) {
            const wa = wakes.get(a.entry.id)!;
            const wb = wakes.get(b.entry.id)!;
            assert.ok(wa < wb || (wa === wb && a.entry.id < b.entry.id), `entry ${a.entry.id} (wake-up ${wa}) fired before entry ${b.entry.id} (wake-up ${wb})`);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
