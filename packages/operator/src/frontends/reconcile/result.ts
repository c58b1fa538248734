import type { Duration } from 'luxon';
import { toMillis } from '../../queue/retry-policy.js';

/**
 * The outcome of a reconcile that did not throw (controller-runtime `reconcile.Result`).
 * A thrown error wins: the result of a failed reconcile does not exist.
 */
export interface Result {
  /** Requeue the request with the rate limiter's backoff (as after an error, but nothing is reported). Default: false. */
  requeue?: boolean | undefined;
  /**
   * Requeue the request after this delay (milliseconds or a luxon Duration); wins over `requeue`
   * and resets the rate limiter's backoff for the request. Zero or less means no delayed requeue. Default: none.
   */
  requeueAfter?: number | Duration | undefined;
  /**
   * The priority of the requeue this result asks for (`requeue` or `requeueAfter`): higher starts
   * first (controller-runtime's `Result.Priority`). Default: the priority the request had.
   */
  priority?: number | undefined;
}

/**
 * True when the result is the zero value (controller-runtime `Result.IsZero`, which compares the
 * struct with `Result{}`): `requeue` unset or false, and `requeueAfter` unset or exactly 0. A
 * negative `requeueAfter` is not zero (Go's `Result{RequeueAfter: -5}` is not), even though the
 * controller does not requeue after it.
 */
export function resultIsZero(result: Result | undefined): boolean {
  if (result == null) return true;
  const after = result.requeueAfter;
  return !result.requeue && (after == null || toMillis(after) === 0);
}

/** `requeueAfter` in milliseconds; 0 when absent, not positive or not a duration. */
export function requeueAfterMs(result: Result | undefined): number {
  const after = result?.requeueAfter;
  if (after == null) return 0;
  const ms = toMillis(after);
  return ms > 0 ? ms : 0;
}
