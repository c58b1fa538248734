/**
 * Which replica of a ring should own which slot of the hash space: a pure function of the live
 * members, so that every replica computes the same table from the same membership. Rendezvous
 * (highest random weight) hashing: a slot goes to the member whose `hash(ring/slot/member)` is
 * highest, so a member that joins takes about 1/N of the slots, each from whoever had it, and a
 * member that leaves gives up only its own.
 */
import { equalShardRange, shardHash } from '@kubeloop/resource';
import type { ShardField, ShardRange } from '@kubeloop/resource';

const mask64 = (1n << 64n) - 1n;

/**
 * The weight of one member for one slot. FNV-1a alone mixes its last bytes poorly into the high bits
 * (names that differ only at their end, `replica-1` and `replica-4`, get close weights, and one of them
 * wins most slots), so its value goes through MurmurHash3's 64-bit finalizer.
 */
function weight(ring: string, slot: number, member: string): bigint {
  let h = shardHash(`${ring}/${slot}/${member}`);
  h ^= h >> 33n;
  h = (h * 0xff51afd7ed558ccdn) & mask64;
  h ^= h >> 33n;
  h = (h * 0xc4ceb9fe1a85ec53n) & mask64;
  return h ^ (h >> 33n);
}

/** The owner of each slot (index = slot) among `members`; '' for every slot when there is none. */
export function assignSlots(ring: string, slotCount: number, members: readonly string[]): string[] {
  const sorted = [...new Set(members)].sort();
  return Array.from({ length: slotCount }, (_, slot) => {
    let owner = '';
    let best = -1n;
    for (const member of sorted) {
      const w = weight(ring, slot, member);
      // Ties (practically never) go to the first member in sorted order, the same on every replica.
      if (w > best) {
        best = w;
        owner = member;
      }
    }
    return owner;
  });
}

/** The hash ranges of `slots` (of `slotCount` equal slots), adjacent slots merged into one range. */
export function slotRanges(slots: Iterable<number>, slotCount: number, field: ShardField): ShardRange[] {
  const sorted = [...new Set(slots)].sort((a, b) => a - b);
  const ranges: ShardRange[] = [];
  for (const slot of sorted) {
    const range = equalShardRange(slot, slotCount, field);
    const last = ranges.at(-1);
    if (last !== undefined && last.end === range.start) ranges[ranges.length - 1] = { ...last, end: range.end };
    else ranges.push(range);
  }
  return ranges;
}
