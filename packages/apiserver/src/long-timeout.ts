/**
 * A timeout of any length. Node's timers hold at most 2^31-1 ms (24.8 days): a longer delay is
 * taken as 1 ms, which made `?timeoutSeconds=2147484` end a watch at once and clients re-watch in
 * a tight loop. Long delays are waited for in steps of at most that much.
 */

/** Node's longest timer delay. */
export const maxTimerDelayMs = 2 ** 31 - 1;

/** Calls `callback` once `delayMs` have passed; returns a function that cancels it. */
export function setLongTimeout(callback: () => void, delayMs: number): () => void {
  const deadline = Date.now() + delayMs;
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      callback();
      return;
    }
    timer = setTimeout(arm, Math.min(remaining, maxTimerDelayMs));
  };
  timer = setTimeout(arm, Math.min(Math.max(delayMs, 0), maxTimerDelayMs));
  return () => clearTimeout(timer);
}
