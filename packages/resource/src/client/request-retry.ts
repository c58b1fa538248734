/**
 * Retries of requests the server turned away (kube-rs' client `RetryPolicy`, on by default since
 * kube 4.0): 429 Too Many Requests for every request (the server, usually API Priority and
 * Fairness, rejected it before doing anything), and 5xx answers (but 501 and 505) for idempotent
 * requests only (GET, PUT, DELETE, and PATCH but a JSON patch). A `Retry-After` is honoured (up to
 * `maxRetryAfterMs`); otherwise the delay is jittered exponential backoff from `minDelayMs` doubling
 * to `maxDelayMs`. Watches are not retried here: informers have their own backoff.
 */
import { ApiError } from '../errors.js';

/** Options of request retries (`ClientOptions.retry`); every field optional. */
export interface RequestRetryOptions {
  /** Retries after the first attempt. Default: 3 (kube-rs). */
  maxRetries?: number | undefined;
  /** Backoff of the first retry, doubled for each next one, before jitter. Default: 500 ms (kube-rs). */
  minDelayMs?: number | undefined;
  /** Cap of the backoff. Default: 5000 ms (kube-rs). */
  maxDelayMs?: number | undefined;
  /** Cap of a server's `Retry-After`. Default: 60000 ms. */
  maxRetryAfterMs?: number | undefined;
  /** Source of jitter in [0, 1): each backoff is scaled by 0.5 + random() / 2. Default: `Math.random`. */
  random?: (() => number) | undefined;
  /** Waits between attempts; rejects when `signal` aborts. Default: a `setTimeout` (tests inject a virtual clock's `sleep`). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** The defaults of {@link RequestRetryOptions}. */
export const DEFAULT_REQUEST_RETRY = { maxRetries: 3, minDelayMs: 500, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 } as const;

/** A resolved retry policy. */
export class RequestRetry {
  readonly maxRetries: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  private readonly random: () => number;
  private readonly sleepFn: (ms: number, signal?: AbortSignal) => Promise<void>;

  /** @throws RangeError for a negative or non-finite count or delay. */
  constructor(options: RequestRetryOptions = {}) {
    this.maxRetries = options.maxRetries ?? DEFAULT_REQUEST_RETRY.maxRetries;
    this.minDelayMs = options.minDelayMs ?? DEFAULT_REQUEST_RETRY.minDelayMs;
    this.maxDelayMs = options.maxDelayMs ?? DEFAULT_REQUEST_RETRY.maxDelayMs;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_REQUEST_RETRY.maxRetryAfterMs;
    for (const [name, value] of Object.entries({ maxRetries: this.maxRetries, minDelayMs: this.minDelayMs, maxDelayMs: this.maxDelayMs, maxRetryAfterMs: this.maxRetryAfterMs })) {
      if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`retry.${name} must be a finite number >= 0, got ${value}`);
    }
    if (!Number.isInteger(this.maxRetries)) throw new RangeError(`retry.maxRetries must be an integer, got ${this.maxRetries}`);
    this.random = options.random ?? Math.random;
    this.sleepFn = options.sleep ?? abortableSleep;
  }

  /** Whether an answer with `status` to a request is retried (see the file comment). */
  retries(status: number, idempotent: boolean): boolean {
    if (status === 429) return true;
    return idempotent && status >= 500 && status <= 599 && status !== 501 && status !== 505;
  }

  /** The wait before retry `attempt` (0 for the first retry) after `error`. */
  delayMs(attempt: number, error: ApiError): number {
    const retryAfter = error.retryAfterSeconds;
    if (retryAfter !== undefined && retryAfter >= 0) return Math.min(retryAfter * 1000, this.maxRetryAfterMs);
    const backoff = Math.min(this.maxDelayMs, this.minDelayMs * 2 ** attempt);
    return backoff * (0.5 + this.random() / 2);
  }

  /** Runs `attempt` until it resolves, fails with an error that is not retried, or retries run out. */
  async run<R>(idempotent: boolean, signal: AbortSignal | undefined, attempt: () => Promise<R>): Promise<R> {
    for (let retry = 0; ; retry++) {
      try {
        return await attempt();
      } catch (err) {
        if (retry >= this.maxRetries || !(err instanceof ApiError) || !this.retries(err.status, idempotent)) throw err;
        await this.sleepFn(this.delayMs(retry, err), signal);
      }
    }
  }
}

/** Resolves after `ms` of real time; rejects with the signal's reason if it aborts first. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
