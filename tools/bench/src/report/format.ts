/** Number formatting shared by the console table, the markdown and the charts. */
import type { LoadFigures } from '../machine.js';
import type { Spread } from '../stats.js';

/** `1234567.8` -> `1,234,568`; NaN -> `n/a`. */
export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  return Math.round(n).toLocaleString('en-US');
}

/** A number with `digits` decimals; NaN -> `n/a`. */
export function formatFixed(n: number, digits: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  return n.toFixed(digits);
}

/** A ratio as `1.23x`; NaN -> `n/a`. */
export function formatRatio(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  return `${n.toFixed(2)}x`;
}

/** Bytes as `1,234 B`, `12.3 KiB` or `45.6 MiB`; NaN -> `n/a`. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  const abs = Math.abs(n);
  if (abs < 10 * 1024) return `${formatInt(n)} B`;
  if (abs < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Milliseconds with a precision that suits their size; NaN -> `n/a`. */
export function formatMillis(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${formatInt(ms)} ms`;
}

/**
 * A figure of repeated runs as `median [min, max]`, each part formatted by `format`; just the median when
 * every repetition gave the same text (one run), `n/a` when there is no median.
 */
export function formatSpread(s: Spread, format: (n: number) => string): string {
  const mid = format(s.median);
  if (!Number.isFinite(s.median)) return mid;
  const low = format(s.min);
  const high = format(s.max);
  return low === mid && high === mid ? mid : `${mid} [${low}, ${high}]`;
}

/**
 * The load average of a scenario for the line next to its table: `load average 1.2 -> 3.4 (max 3.9) on 2
 * cores`, and a warning when it went above the core count (other processes competed for the CPU).
 */
export function formatLoad(load: LoadFigures, cores: number): string {
  const text = `load average ${load.start.toFixed(2)} -> ${load.end.toFixed(2)} (max ${load.max.toFixed(2)}) on ${cores} cores`;
  return load.max > cores ? `${text}: a loaded machine, other processes competed for the cores` : text;
}
