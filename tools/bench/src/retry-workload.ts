/**
 * The retry workload of scenario 3, shared by both variants so that they do identical logical work:
 * every object fails at once and then on every retry, with per-item exponential backoff (5 ms doubling, as
 * controller-runtime's default rate limiter, capped at 60 s), +-10% deterministic jitter, and first
 * failures spread over the first second.
 */

/** Base delay of the first retry, ms. */
export const RETRY_BASE_MS = 5;
/** Longest delay, ms. */
export const RETRY_CAP_MS = 60_000;

/** A cheap deterministic hash in [0, 1) of two integers (no PRNG state to share between variants). */
export function unitHash(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 4294967296;
}

/** Delay before retry `attempt` (0-based) of object `index`, ms. */
export function retryDelayMs(index: number, attempt: number): number {
  const base = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
  return base * (0.9 + 0.2 * unitHash(index, attempt));
}

/** When object `index` of `objects` first fails, ms after the start. */
export function firstFailureMs(index: number, objects: number): number {
  return (index / objects) * 1000;
}
