/** Waiting on real I/O: poll a condition until it holds or a deadline passes, through the test kit's `eventually`. */
import { eventually } from '@kubeloop/apiserver/testing';

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
 * Polls `condition` until it returns a truthy value, and returns that value. Unlike the kit's
 * `waitFor`, errors thrown by the condition count as "not yet" (a read racing a restart, a file not
 * written yet) and the last one is reported on timeout.
 */
export function waitFor<T>(condition: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  return eventually(async () => {
    const value = await condition();
    if (!value) throw new Error(`the condition returned ${String(value)}`);
    return value;
  }, options);
}
