/**
 * The hash of KEP-5866 sharded list and watch: 64-bit FNV-1a over the UTF-8 bytes of a field's
 * value (`metadata.uid` or `metadata.namespace`), as kube-apiserver's `sharding.HashField` does with
 * Go's `hash/fnv`.
 */

/** 2^64: the exclusive top of the hash space, the largest allowed shard range end. */
export const shardHashSpaceEnd = 1n << 64n;

const utf8 = new TextEncoder();
const offsetBasis = 0xcbf29ce484222325n;
const prime = 0x100000001b3n;
const mask64 = shardHashSpaceEnd - 1n;

/** The hash of `value` as two 32-bit halves `[high, low]`, each an unsigned integer. */
export function shardHashHalves(value: string): [high: number, low: number] {
  const hash = shardHash(value);
  return [Number(hash >> 32n), Number(hash & 0xffffffffn)];
}

/** The 64-bit FNV-1a hash of `value`'s UTF-8 bytes, in [0, 2^64): where an object with that field value falls in the shard hash space. */
export function shardHash(value: string): bigint {
  let hash = offsetBasis;
  for (const byte of utf8.encode(value)) hash = ((hash ^ BigInt(byte)) * prime) & mask64;
  return hash;
}

/** A hash or bound as the selector writes it: `0x` and 16 lowercase hex digits (17 for 2^64). */
export function formatShardBound(value: bigint): string {
  return `0x${value.toString(16).padStart(16, '0')}`;
}
