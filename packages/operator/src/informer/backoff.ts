/**
 * Backoff between reconnect attempts: a tiny interface composed from outside (kube-rs style), and
 * the jittered exponential schedule informers use by default.
 */
import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';
import { InvalidArgumentError } from '../errors.js';

/** A source of successive delays. `next()` after a failure; `reset()` once things are healthy again. */
export interface Backoff {
  /** The delay, in milliseconds, to wait before the next attempt. */
  next(): number;
  /** Starts the schedule over. */
  reset(): void;
  /** The largest delay `next()` returns, when it is bounded; an informer warns once an outage lasts longer. */
  readonly maxMs?: number | undefined;
}

/** The largest delay of the default schedule (kube-rs' watcher and client-go's reflector). */
export const DEFAULT_BACKOFF_CAP_MS = 30_000;

/**
 * How randomness spreads the delays, so that many clients failing together do not retry together.
 * - `full`: uniform between `initialMs` and the exponential ceiling `initialMs * factor^(n+1)` (capped at `maxMs`).
 * - `decorrelated`: uniform between `initialMs` and `previous * factor * 1.5` (capped), AWS's "decorrelated jitter".
 * - `none`: exactly `initialMs * factor^n` (capped); deterministic, for tests and tools.
 */
export type BackoffJitter = 'full' | 'decorrelated' | 'none';

/** Options of {@link JitteredExponentialBackoff}. */
export interface JitteredExponentialBackoffOptions {
  /** Smallest delay. Default: 800 ms. */
  initialMs?: number;
  /** Largest delay. Default: 30000 ms. */
  maxMs?: number;
  /** Growth per attempt. Default: 2. */
  factor?: number;
  /** Jitter strategy. Default: `'full'`. */
  jitter?: BackoffJitter;
  /**
   * When no `next()` was asked for this long, the previous failures are considered over and the
   * schedule starts again from `initialMs`. 0 disables the automatic reset. Default: 120000 ms.
   */
  resetAfterMs?: number;
  /** Time source for the automatic reset. Default: the real clock. */
  clock?: Clock;
  /** Uniform random numbers in [0, 1). Default: `Math.random`. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter: 0.8 s .. 30 s, factor 2, reset after 120 s without failures
 * (the defaults of kube-rs' watcher and client-go's reflector).
 */
export class JitteredExponentialBackoff implements Backoff {
  private readonly initialMs: number;
  readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: BackoffJitter;
  private readonly resetAfterMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private attempt = 0;
  private previousMs: number;
  private lastAt: number | undefined;

  constructor(options: JitteredExponentialBackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? DEFAULT_BACKOFF_CAP_MS;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 'full';
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    if (!(this.initialMs > 0)) throw new InvalidArgumentError('backoff initialMs must be > 0');
    if (!(this.maxMs >= this.initialMs)) throw new InvalidArgumentError('backoff maxMs must be >= initialMs');
    if (!(this.factor >= 1)) throw new InvalidArgumentError('backoff factor must be >= 1');
    if (!(this.resetAfterMs >= 0)) throw new InvalidArgumentError('backoff resetAfterMs must be >= 0');
    this.previousMs = this.initialMs;
  }

  next(): number {
    const now = this.clock.now();
    if (this.resetAfterMs > 0 && this.lastAt !== undefined && now - this.lastAt >= this.resetAfterMs) this.reset();
    this.lastAt = now;
    const n = this.attempt++;
    let delay: number;
    switch (this.jitter) {
      case 'none':
        delay = this.ceiling(n);
        break;
      case 'full':
        delay = this.between(this.initialMs, this.ceiling(n + 1));
        break;
      case 'decorrelated':
        delay = this.between(this.initialMs, Math.min(this.maxMs, this.previousMs * this.factor * 1.5));
        break;
    }
    this.previousMs = delay;
    return delay;
  }

  reset(): void {
    this.attempt = 0;
    this.previousMs = this.initialMs;
    this.lastAt = undefined;
  }

  private ceiling(n: number): number {
    // Stop multiplying once capped: factor^n overflows to Infinity after ~1000 attempts.
    const raw = this.initialMs * Math.pow(this.factor, Math.min(n, 64));
    return Math.min(this.maxMs, raw);
  }

  private between(low: number, high: number): number {
    return Math.round(low + this.random() * Math.max(0, high - low));
  }
}
