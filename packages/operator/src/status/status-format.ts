/** How the status page writes times and durations: short, human, fixed precision. */

/** `12.3 ms`, `4.56 s`, `3 min 20 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

/** `2.0 s ago`, or `-` when unknown. */
export function formatAgo(at: number | undefined, now: number): string {
  return at === undefined ? '-' : `${formatDuration(Math.max(0, now - at))} ago`;
}

/** `-` for an unknown value. */
export function formatCount(value: number | undefined): string {
  return value === undefined ? '-' : String(value);
}
