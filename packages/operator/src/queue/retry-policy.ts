import { Duration } from 'luxon';
import { InvalidArgumentError, isTerminalError } from '../errors.js';

/**
 * Decides whether a failed handler call is tried again, and after how long (grafana-app-sdk
 * `RetryPolicy`). `attempt` is 0 for the failure of the first call, 1 for the failure of the first
 * retry, and so on. The controller never retries a `TerminalError`, whatever the policy says.
 */
export type RetryPolicy = (err: unknown, attempt: number) => [retry: boolean, delayMs: number];

/** Extra options of {@link exponentialBackoffRetryPolicy}; none of them changes the upstream schedule by default. */
export interface ExponentialBackoffOptions {
  /**
   * Fraction (0..1) of each delay that is randomised: the delay is multiplied by a factor drawn
   * uniformly from `[1 - jitter, 1]`, so it never exceeds the un-jittered schedule or `maxDelay`.
   * Spreads retries of many objects that failed together. Default: 0 (no jitter).
   */
  jitter?: number | undefined;
  /** Upper bound of any delay (milliseconds or a luxon Duration). Default: none. */
  maxDelay?: number | Duration | undefined;
  /** Source of randomness in [0, 1) for the jitter. Default: `Math.random`. */
  random?: (() => number) | undefined;
}

/** Milliseconds from a number of milliseconds or a luxon Duration. */
export function toMillis(value: number | Duration): number {
  return typeof value === 'number' ? value : Duration.isDuration(value) ? value.toMillis() : Number.NaN;
}

/**
 * Exponential backoff (grafana-app-sdk `ExponentialBackoffRetryPolicy`): the delay after failure
 * `attempt` is `initial * 2^attempt`; once `attempt > maxAttempts` the event is not retried.
 * A `TerminalError` is never retried.
 *
 * @param initial the first delay, in milliseconds or as a luxon Duration.
 * @param maxAttempts the last `attempt` that is still retried (so up to `maxAttempts + 1` retries).
 */
export function exponentialBackoffRetryPolicy(
  initial: number | Duration,
  maxAttempts: number,
  options: ExponentialBackoffOptions = {},
): RetryPolicy {
  const initialMs = toMillis(initial);
  if (!Number.isFinite(initialMs) || initialMs < 0) throw new InvalidArgumentError(`initial delay must be a finite, non-negative duration, got ${String(initial)}`);
  if (Number.isNaN(maxAttempts)) throw new InvalidArgumentError('maxAttempts must be a number');
  const jitter = options.jitter ?? 0;
  if (!(jitter >= 0 && jitter <= 1)) throw new InvalidArgumentError(`jitter must be within 0..1, got ${jitter}`);
  const maxDelayMs = options.maxDelay === undefined ? Number.POSITIVE_INFINITY : toMillis(options.maxDelay);
  if (Number.isNaN(maxDelayMs) || maxDelayMs < 0) throw new InvalidArgumentError(`maxDelay must be a non-negative duration, got ${String(options.maxDelay)}`);
  const random = options.random ?? Math.random;

  return (err, attempt) => {
    if (attempt > maxAttempts || isTerminalError(err)) return [false, 0];
    // 2^attempt overflows to Infinity for absurd attempt counts; the cap (or the clock) bounds it.
    let delay = Math.min(initialMs * 2 ** attempt, maxDelayMs);
    if (jitter > 0) delay *= 1 - jitter * random();
    return [true, delay];
  };
}

/**
 * The default policy: 5 s initial delay, up to attempt 5. A failing event is retried after
 * 5, 10, 20, 40, 80 and 160 seconds, then dropped (grafana-app-sdk `DefaultRetryPolicy`).
 */
export const DefaultRetryPolicy: RetryPolicy = exponentialBackoffRetryPolicy(5000, 5);
