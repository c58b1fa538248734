/**
 * Waiting in tests for something that happens asynchronously (a reconcile, a status write): poll
 * with a deadline, as Gomega's `Eventually` and envtest users do. No test runner is imported, so
 * these work under node:test, Vitest and Jest alike.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link eventually} and {@link waitFor}. */
export interface EventuallyOptions {
  /** Give up after this many milliseconds. Default: 10000. */
  timeoutMs?: number | undefined;
  /** Time between two attempts. Default: 25 ms. */
  intervalMs?: number | undefined;
  /** Named in the timeout error, e.g. `the Ready condition of p1`. Default: `a condition`. */
  what?: string | undefined;
  /** Stops waiting (rejects with the signal's reason). Default: none. */
  signal?: AbortSignal | undefined;
}

/**
 * Calls `fn` until it returns without throwing (a failed assertion is "not yet") and resolves with
 * what it returned. After `timeoutMs` it rejects with an Error naming `what` and the last failure,
 * which is also its `cause`.
 */
export async function eventually<T>(fn: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    let failure: unknown;
    try {
      return await fn();
    } catch (error) {
      failure = error;
    }
    if (Date.now() >= deadline) {
      const why = failure instanceof Error ? failure.message : String(failure);
      throw new Error(`eventually: ${options.what ?? 'a condition'} did not hold within ${timeoutMs} ms; last failure: ${why}`, { cause: failure });
    }
    await sleep(options.intervalMs ?? 25, undefined, { signal: options.signal });
  }
}

/**
 * Calls `condition` until it returns a truthy value and resolves with that value. An exception
 * thrown by `condition` is a real failure and rejects at once (use {@link eventually} to retry
 * assertions). After `timeoutMs` it rejects with an Error naming `what`.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await condition();
    if (value) return value;
    if (Date.now() >= deadline) throw new Error(`waitFor: ${options.what ?? 'a condition'} not met within ${timeoutMs} ms`);
    await sleep(options.intervalMs ?? 25, undefined, { signal: options.signal });
  }
}
