/**
 * A small seeded PRNG (mulberry32) for the tests whose write program or fault schedule must be the
 * same on every run. The reliability suite has its own generator (`reliability/prng.ts`), with
 * choices and shuffles; this is only a stream of numbers.
 */

/** Numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
