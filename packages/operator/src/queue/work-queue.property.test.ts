/**
 * Properties of the work queue under random interleavings of adds, completions and removals
 * (fast-check): one key is never processed twice at once, at most `maxConcurrentWorkers` keys run,
 * every item added is processed exactly once or removed, in the order it was added within its key
 * (coalescing merges only items not started yet, never reorders or loses one), and the queue ends idle.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WorkQueue } from './work-queue.js';

/** An item: the ids it stands for (several once merged) and whether it may merge (as an UPDATE). */
interface Item {
  ids: number[];
  mergeable: boolean;
}

type Op =
  | { type: 'add'; key: string; mergeable: boolean }
  | { type: 'complete'; pick: number; fail: boolean }
  | { type: 'remove'; key: string; modulo: number }
  | { type: 'turn' };

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('add' as const), key, mergeable: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('complete' as const), pick: fc.nat(), fail: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('remove' as const), key, modulo: fc.integer({ min: 2, max: 4 }) }) },
  { weight: 2, arbitrary: fc.constant({ type: 'turn' as const }) },
);

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('WorkQueue properties', () => {
  test('per-key order and exclusivity, bounded concurrency, every item exactly once or removed, idle at the end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 3 }), async (ops, maxConcurrentWorkers) => {
        const running: { key: string; item: Item; finish: (fail: boolean) => void }[] = [];
        const processed = new Map<string, number[]>();
        const added = new Map<string, number[]>();
        const removed = new Set<number>();
        const violations: string[] = [];
        let errors = 0;
        const queue = new WorkQueue<Item>({
          maxConcurrentWorkers,
          coalesce: (queued, incoming) => (queued.mergeable && incoming.mergeable ? { ids: [...queued.ids, ...incoming.ids], mergeable: true } : undefined),
          onError: () => errors++,
          process: (k, item) => {
            if (running.some((r) => r.key === k)) violations.push(`two items of ${k} at once`);
            if (running.length >= maxConcurrentWorkers) violations.push(`more than ${maxConcurrentWorkers} running`);
            processed.set(k, [...(processed.get(k) ?? []), ...item.ids]);
            return new Promise<void>((resolve, reject) => {
              running.push({ key: k, item, finish: (fail) => (fail ? reject(new Error('handler failed')) : resolve()) });
            });
          },
        });
        queue.start();
        let nextId = 0;
        let failures = 0;
        const complete = (index: number, fail: boolean): void => {
          const [done] = running.splice(index, 1);
          if (fail) failures++;
          done?.finish(fail);
        };
        for (const o of ops) {
          if (o.type === 'add') {
            const id = nextId++;
            added.set(o.key, [...(added.get(o.key) ?? []), id]);
            assert.notEqual(queue.add(o.key, { ids: [id], mergeable: o.mergeable }), 'rejected');
          } else if (o.type === 'complete') {
            if (running.length > 0) complete(o.pick % running.length, o.fail);
          } else if (o.type === 'remove') {
            for (const item of queue.removeQueued(o.key, (i) => i.ids[0]! % o.modulo === 0)) for (const id of item.ids) removed.add(id);
          }
          await turn();
        }
        // Drain: finish whatever runs until nothing is left.
        for (let guard = 0; guard < 10_000 && (running.length > 0 || queue.depth > 0); guard++) {
          while (running.length > 0) complete(0, false);
          await turn();
        }
        await queue.whenIdle();

        assert.deepEqual(violations, []);
        assert.equal(queue.depth, 0);
        assert.equal(queue.inFlight, 0);
        assert.equal(errors, failures, 'every rejection of process reached onError');
        for (const [k, ids] of added) {
          const expected = ids.filter((id) => !removed.has(id));
          assert.deepEqual(processed.get(k) ?? [], expected, `key ${k}: processed in add order, each once, none lost`);
        }
      }),
      { numRuns: 200 },
    );
  });
});
