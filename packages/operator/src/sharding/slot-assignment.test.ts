import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { shardHashSpaceEnd } from '@kubeloop/resource';
import { assignSlots, slotRanges } from './slot-assignment.js';

const members = (n: number): string[] => Array.from({ length: n }, (_, i) => `replica-${i}`);

describe('assignSlots', () => {
  test('is a pure function of the member set (order and repeats do not matter)', () => {
    const a = assignSlots('ring', 64, ['b', 'a', 'c']);
    assert.deepEqual(assignSlots('ring', 64, ['c', 'a', 'b', 'a']), a);
    assert.ok(a.every((owner) => ['a', 'b', 'c'].includes(owner)));
    assert.deepEqual(assignSlots('ring', 4, []), ['', '', '', '']);
  });

  test('spreads slots over the members: none gets more than twice its share of 256 slots', () => {
    for (const n of [2, 3, 5, 8]) {
      const counts = new Map<string, number>();
      for (const owner of assignSlots('ring', 256, members(n))) counts.set(owner, (counts.get(owner) ?? 0) + 1);
      assert.equal(counts.size, n, `every one of ${n} members owns slots`);
      for (const [owner, count] of counts) assert.ok(count <= (2 * 256) / n, `${owner} owns ${count} of 256 slots with ${n} members`);
    }
  });

  test('a member joining takes slots only from others, and a member leaving moves only its own', () => {
    for (let n = 1; n <= 6; n++) {
      const before = assignSlots('ring', 128, members(n));
      const joined = assignSlots('ring', 128, members(n + 1));
      const newcomer = `replica-${n}`;
      joined.forEach((owner, slot) => assert.ok(owner === before[slot] || owner === newcomer, `slot ${slot} moved from ${before[slot]} to ${owner}`));
      const left = assignSlots('ring', 128, members(n + 1).filter((m) => m !== 'replica-0'));
      joined.forEach((owner, slot) => assert.ok(owner === 'replica-0' || left[slot] === owner, `slot ${slot} of ${owner} moved when replica-0 left`));
    }
  });

  test('different rings place the same members differently', () => {
    assert.notDeepEqual(assignSlots('ring-a', 32, members(3)), assignSlots('ring-b', 32, members(3)));
  });
});

describe('slotRanges', () => {
  test('adjacent slots merge; the ranges cover exactly the slots', () => {
    const ranges = slotRanges([3, 0, 1, 7], 8, 'uid');
    const eighth = shardHashSpaceEnd / 8n;
    assert.deepEqual(
      ranges.map((r) => [r.start / eighth, r.end / eighth]),
      [
        [0n, 2n],
        [3n, 4n],
        [7n, 8n],
      ],
    );
    assert.equal(ranges.at(-1)?.end, shardHashSpaceEnd);
    assert.deepEqual(slotRanges([], 8, 'uid'), []);
  });
});
