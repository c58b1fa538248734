/** Number formatting shared by the console table, the markdown and the charts. */

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
