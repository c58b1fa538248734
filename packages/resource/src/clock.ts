/**
 * Time, injectable. Every timer in @kubeloop/operator goes through a {@link Clock} so that retry,
 * backoff and lease logic runs on {@link VirtualClock} in tests: no test sleeps for a retry. The
 * embedded API server's cluster simulation runs on one too, so a test can hand the same
 * {@link VirtualClock} to both. It lives here, in the package both depend on.
 */

/** A cancellable timer handle. */
export interface Timer {
  /** Cancels the timer; a no-op if it already fired. */
  cancel(): void;
}

/** A source of time and timers. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once, `delayMs` (>= 0) from now. */
  setTimer(delayMs: number, fn: () => void): Timer;
  /** Resolves after `delayMs`, or rejects with the signal's reason when it aborts first. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Wall-clock time with Node's timers. Its timers are unref'd: a timer alone never keeps the process
 * alive, so a retry or lease timer left pending cannot hold up a program that has stopped. What
 * keeps a running operator's process alive is the runtime's single hold (`keep-alive.ts`), taken by
 * every `run()` for as long as it runs, not its timers.
 */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, delayMs, signal);
  }
}

/** The process-wide real clock. */
export const realClock: Clock = new RealClock();

interface VirtualTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * Time that moves only when a test says so. `advance(ms)` fires due timers in time order and,
 * between timers, lets pending promise callbacks run, so async code reacting to a timer
 * (and scheduling the next one) completes within the same `advance`.
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: VirtualTimer[] = [];

  /** @param startMs the initial time. Default: 0. */
  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    const timer: VirtualTimer = { at: this.current + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, delayMs, signal);
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Time of the earliest pending timer, or undefined. */
  nextTimerAt(): number | undefined {
    let next: number | undefined;
    for (const t of this.timers) if (!t.cancelled && (next === undefined || t.at < next)) next = t.at;
    return next;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order, settling promises between them. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await flushMicrotasks();
    for (;;) {
      const due = this.popDue(target);
      if (!due) break;
      this.current = due.at;
      due.fn();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Advances to the next pending timer and fires it (and any due at the same instant). Returns false if none is pending. */
  async runNext(): Promise<boolean> {
    const at = this.nextTimerAt();
    if (at === undefined) return false;
    await this.advance(at - this.current);
    return true;
  }

  private popDue(limit: number): VirtualTimer | undefined {
    let best = -1;
    for (let i = 0; i < this.timers.length; i++) {
      const t = this.timers[i]!;
      if (t.cancelled || t.at > limit) continue;
      const b = this.timers[best];
      if (b === undefined || t.at < b.at || (t.at === b.at && t.seq < b.seq)) best = i;
    }
    if (best < 0) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      return undefined;
    }
    const [timer] = this.timers.splice(best, 1);
    return timer;
  }
}

/** Lets queued promise callbacks (and the callbacks they queue) run; a few macrotask turns deep. */
export async function flushMicrotasks(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function sleepOn(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      reject(signal?.reason as Error);
    };
    const timer = clock.setTimer(delayMs, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
