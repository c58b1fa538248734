/**
 * `retryOnConflict(fn)`: run a read-modify-write until it does not fail with a 409 Conflict (the
 * object changed between the read and the write), as client-go's `retry.RetryOnConflict(retry.DefaultRetry, fn)`.
 * `fn` must read the object again on every call.
 */
import { isConflict } from '../errors.js';
import { abortableSleep } from './request-retry.js';

/** Options of {@link retryOnConflict}; client-go's `retry.DefaultRetry` by default. */
export interface RetryOnConflictOptions {
  /** Calls in all, the first included. Default: 5. */
  steps?: number | undefined;
  /** Wait before the first retry. Default: 10 ms. */
  delayMs?: number | undefined;
  /** Each next wait is the previous one times this. Default: 1. */
  factor?: number | undefined;
  /** Each wait grows by up to this fraction at random. Default: 0.1. */
  jitter?: number | undefined;
  /** Aborts the waits (and is passed to `fn`). Default: none. */
  signal?: AbortSignal | undefined;
  /** Source of jitter in [0, 1). Default: `Math.random`. */
  random?: (() => number) | undefined;
  /** Waits between calls. Default: a `setTimeout` (tests inject a virtual clock's `sleep`). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** Calls `fn` again after a conflict, up to `steps` calls; rethrows any other error, and the last conflict. */
export async function retryOnConflict<R>(fn: (signal: AbortSignal | undefined) => Promise<R>, options: RetryOnConflictOptions = {}): Promise<R> {
  const steps = options.steps ?? 5;
  if (!Number.isInteger(steps) || steps < 1) throw new RangeError(`steps must be an integer >= 1, got ${steps}`);
  const factor = options.factor ?? 1;
  const jitter = options.jitter ?? 0.1;
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? abortableSleep;
  let delay = options.delayMs ?? 10;
  for (let step = 1; ; step++) {
    try {
      return await fn(options.signal);
    } catch (err) {
      if (step >= steps || !isConflict(err)) throw err;
    }
    await wait(delay * (1 + jitter * random()), options.signal);
    delay *= factor;
  }
}
