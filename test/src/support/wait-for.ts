/** Waiting on real I/O: poll a condition until it holds or a deadline passes. */

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this many milliseconds. Default 10000. */
  timeoutMs?: number;
  /** Poll every this many milliseconds. Default 25. */
  intervalMs?: number;
  /** Named in the timeout error. Default `a condition`. */
  what?: string;
}

/**
 * Polls `condition` until it returns a truthy value, and returns that value. Errors thrown by the
 * condition count as "not yet" and the last one is reported on timeout.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
