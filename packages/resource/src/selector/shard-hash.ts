/**
 * The hash of KEP-5866 sharded list and watch: 64-bit FNV-1a over the UTF-8 bytes of a field's
 * value (`metadata.uid` or `metadata.namespace`), as kube-apiserver's `sharding.HashField` does with
 * Go's `hash/fnv`. Computed on four 16-bit limbs so that every step stays an exact small integer
 * (no BigInt per byte); the result is turned into a bigint or hex text only at the end.
 */

/** 2^64: the exclusive top of the hash space, the largest allowed shard range end. */
export const shardHashSpaceEnd = 1n << 64n;

const utf8 = new TextEncoder();

/** The hash of `value` as two 32-bit halves `[high, low]`, each an unsigned integer. */
export function shardHashHalves(value: string): [high: number, low: number] {
  // Offset basis 0xcbf29ce484222325, lowest limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const step = (byte: number): void => {
    h0 ^= byte;
    // Times the prime 0x100000001b3 = 2^40 + 0x1b3, modulo 2^64: 0x1b3 on every limb, 2^40 shifts limbs 0 and 1 up by 2.5 limbs (0x100 << 32).
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + h0 * 0x100 + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + h1 * 0x100 + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  };
  let ascii = true;
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    for (let i = 0; i < value.length; i++) step(value.charCodeAt(i));
  } else {
    for (const byte of utf8.encode(value)) step(byte);
  }
  return [(h3 * 0x10000 + h2) >>> 0, (h1 * 0x10000 + h0) >>> 0];
}

/** The 64-bit FNV-1a hash of `value`'s UTF-8 bytes, in [0, 2^64): where an object with that field value falls in the shard hash space. */
export function shardHash(value: string): bigint {
  const [high, low] = shardHashHalves(value);
  return (BigInt(high) << 32n) | BigInt(low);
}

/** A hash or bound as the selector writes it: `0x` and 16 lowercase hex digits (17 for 2^64). */
export function formatShardBound(value: bigint): string {
  return `0x${value.toString(16).padStart(16, '0')}`;
}
