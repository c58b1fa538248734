/** Small statistics helpers for benchmark samples. Pure functions; inputs are never mutated. */

/** The median of `values`; NaN for an empty array. With an even count, the mean of the two middle values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The `p`-th percentile (0..100) of `values` by the nearest-rank method: the smallest value such that
 * at least p% of the samples are <= it. NaN for an empty array. p99 of 100 samples is the 99th smallest.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Arithmetic mean; NaN for an empty array. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** `a / b`, or NaN when either is not a finite number or `b` is 0 (a ratio against a missing baseline). */
export function ratio(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return a / b;
}

/** The smallest, middle and largest of repeated measurements: how far apart the repetitions were. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** The {@link Spread} of `values`; every field NaN for an empty array. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { min: Number.NaN, median: Number.NaN, max: Number.NaN };
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/** `s` with each of its three figures multiplied by `factor` (a change of unit). */
export function scaleSpread(s: Spread, factor: number): Spread {
  return { min: s.min * factor, median: s.median * factor, max: s.max * factor };
}

/**
 * The order in which round `round` (0-based) runs `participants`: the list rotated left by `round`
 * (A B C, then B C A, then C A B, ...), so that over as many rounds as participants each one runs once
 * in every position and none always runs first, right after a warm start, or last, on a machine that
 * has grown busier.
 */
export function rotatedOrder<T>(participants: readonly T[], round: number): T[] {
  if (!Number.isInteger(round) || round < 0) throw new RangeError(`round must be an integer >= 0, got ${round}`);
  const n = participants.length;
  return participants.map((_, i) => participants[(i + round) % n]!);
}
