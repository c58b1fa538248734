/**
 * Rate limiters of requeued requests (client-go `workqueue.RateLimiter`): how long a request waits
 * before it is processed again, per key. Compose them with {@link maxOfRateLimiter}.
 */
import type { Duration } from 'luxon';
import { realClock } from '../../clock.js';
import type { Clock } from '../../clock.js';
import { InvalidArgumentError } from '../../errors.js';
import { toMillis } from '../../queue/retry-policy.js';

/** Decides the delay of each requeue of a key (client-go `workqueue.TypedRateLimiter`). */
export interface RateLimiter {
  /** The delay (milliseconds) before the key is processed again; counts one more requeue of the key. */
  when(key: string): number;
  /** Forgets the key's history: it succeeded, or is no longer tracked. */
  forget(key: string): void;
  /** How many times the key has been requeued since it was last forgotten. */
  numRequeues(key: string): number;
}

/** Default base delay of {@link defaultControllerRateLimiter}: 5 ms (controller-runtime's). */
export const DEFAULT_BASE_DELAY_MS = 5;
/** Default maximum delay of {@link defaultControllerRateLimiter}: 1000 s (controller-runtime's). */
export const DEFAULT_MAX_DELAY_MS = 1_000_000;

function millis(value: number | Duration, what: string): number {
  const ms = toMillis(value);
  if (!(ms >= 0) || ms === Number.POSITIVE_INFINITY) throw new InvalidArgumentError(`${what} must be a finite, non-negative duration, got ${String(value)}`);
  return ms;
}

/**
 * Per-key exponential backoff (client-go `ItemExponentialFailureRateLimiter`): the n-th requeue of a
 * key since it was forgotten waits `baseDelay * 2^(n-1)`, at most `maxDelay`.
 * With controller-runtime's 5 ms and 1000 s: 5, 10, 20, ... 655360 ms, then 1000 s from the 19th on.
 */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly failures = new Map<string, number>();

  /**
   * @param baseDelay the first delay (milliseconds or a luxon Duration)
   * @param maxDelay the largest delay (milliseconds or a luxon Duration)
   * @throws InvalidArgumentError when a delay is negative or not finite.
   */
  constructor(baseDelay: number | Duration, maxDelay: number | Duration) {
    this.baseDelayMs = millis(baseDelay, 'baseDelay');
    this.maxDelayMs = millis(maxDelay, 'maxDelay');
  }

  when(key: string): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    // 2^exp reaches Infinity for absurd counts; the cap bounds it.
    return Math.min(this.baseDelayMs * 2 ** exp, this.maxDelayMs);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** Options of {@link BucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /** Tokens added per second. Default: 10 (controller-runtime's). */
  qps?: number | undefined;
  /** Tokens the bucket holds, i.e. requeues allowed at once without delay. Default: 100 (controller-runtime's). */
  burst?: number | undefined;
  /** Source of time. Default: `realClock`. */
  clock?: Clock | undefined;
}

/**
 * An overall token bucket shared by every key (client-go `BucketRateLimiter` over `rate.Limiter`):
 * bounds the total requeue rate, whatever the number of failing keys. Each `when` reserves a token;
 * once the bucket is empty, requeues are spaced `1/qps` apart. It keeps no per-key state.
 */
export class BucketRateLimiter implements RateLimiter {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  /** @throws InvalidArgumentError when `qps` is not > 0 or `burst` not an integer >= 1. */
  constructor(options: BucketRateLimiterOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    if (!(this.qps > 0) || this.qps === Number.POSITIVE_INFINITY) throw new InvalidArgumentError(`qps must be a finite number > 0, got ${this.qps}`);
    if (!Number.isInteger(this.burst) || this.burst < 1) throw new InvalidArgumentError(`burst must be an integer >= 1, got ${this.burst}`);
    this.clock = options.clock ?? realClock;
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  when(_key: string): number {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = Math.max(this.last, now);
    // Reservations may take the bucket below zero: the deficit is the wait.
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000) - 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/**
 * The largest delay of several limiters (client-go `MaxOfRateLimiter`); every limiter counts every
 * requeue. `numRequeues` is the largest of theirs.
 * @throws InvalidArgumentError when no limiter is given.
 */
export function maxOfRateLimiter(...limiters: RateLimiter[]): RateLimiter {
  if (limiters.length === 0) throw new InvalidArgumentError('maxOfRateLimiter needs at least one limiter');
  return {
    when(key) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.when(key));
      return max;
    },
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
    numRequeues(key) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.numRequeues(key));
      return max;
    },
  };
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface DefaultControllerRateLimiterOptions {
  /** Source of time of the token bucket. Default: `realClock`. */
  clock?: Clock | undefined;
}

/**
 * controller-runtime's default (`workqueue.DefaultControllerRateLimiter`): per-key exponential
 * backoff from 5 ms to 1000 s, and at most 10 requeues per second overall after a burst of 100.
 */
export function defaultControllerRateLimiter(options: DefaultControllerRateLimiterOptions = {}): RateLimiter {
  return maxOfRateLimiter(
    new ItemExponentialFailureRateLimiter(DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS),
    new BucketRateLimiter({ qps: 10, burst: 100, clock: options.clock }),
  );
}
