/**
 * The retry workload of scenario 3 on virtual time, for instruction counts: deterministic, so
 * `valgrind --tool=callgrind` counts the same instructions on a loaded machine as on an idle one.
 * A manual clock jumps to the one armed timer and fires it; there is no wall-clock wait, and
 * the setTimeout variant (which needs real timers) is not run here.
 *
 *   node tools/bench/dist/retry-instructions-main.js <kubeloop|heap> <objects> <virtual seconds> [query]
 *
 * With `query`, every retry first asks `hasPending(key)` (as the controller does for each informer
 * event): the calendar queue then keeps its key index up to date instead of dropping it.
 *
 * Instructions per retry = (count at S seconds - count at 0 seconds) / retries fired: the run at
 * 0 seconds does everything else (start-up, keys, the first schedule of every object).
 * docs/benchmarks.md ("Retry scheduler") has the commands and the figures.
 */
import { RetryScheduler } from '@kubeloop/operator';
import type { Clock, Timer } from '@kubeloop/operator';
import { HeapRetryScheduler } from './heap-retry-scheduler.js';
import { firstFailureMs, retryDelayMs } from './retry-workload.js';

interface Entry {
  index: number;
  attempt: number;
}

/** Time moves only when the one armed timer fires. */
class ManualClock implements Clock {
  current = 0;
  private armed: { at: number; fn: () => void; cancelled: boolean } | undefined;
  now(): number {
    return this.current;
  }
  setTimer(delayMs: number, fn: () => void): Timer {
    const timer = { at: this.current + delayMs, fn, cancelled: false };
    this.armed = timer;
    return { cancel: () => void (timer.cancelled = true) };
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
  /** Fires the armed timer if it is due by `until`; false when there is none. */
  fireNext(until: number): boolean {
    const timer = this.armed;
    if (timer === undefined || timer.cancelled || timer.at > until) return false;
    this.armed = undefined;
    this.current = Math.max(this.current, timer.at);
    timer.fn();
    return true;
  }
}

const [variant = 'kubeloop', objectsArg = '100000', secondsArg = '2', mode = ''] = process.argv.slice(2);
if (variant !== 'kubeloop' && variant !== 'heap') throw new Error(`variant must be kubeloop or heap, got ${variant}`);
const objects = Number(objectsArg);
const untilMs = Number(secondsArg) * 1000;
const query = mode === 'query';

const clock = new ManualClock();
const keys = Array.from({ length: objects }, (_, i) => `bench/obj-${i}`);
let retries = 0;
let pendingSeen = 0;
const onDue = (key: string, entry: Entry): void => {
  retries++;
  if (query && scheduler.hasPending(key)) pendingSeen++;
  // The handler fails again: next attempt.
  const attempt = entry.attempt + 1;
  scheduler.schedule(key, { index: entry.index, attempt }, retryDelayMs(entry.index, attempt));
};
const scheduler = variant === 'kubeloop' ? new RetryScheduler<Entry>({ clock, onDue }) : new HeapRetryScheduler<Entry>({ clock, onDue });
for (let i = 0; i < objects; i++) scheduler.schedule(keys[i]!, { index: i, attempt: 0 }, firstFailureMs(i, objects) + retryDelayMs(i, 0));
scheduler.start();
// One macrotask-free turn per wake-up: the schedulers' cached clock reading expires in a microtask, as on a real event loop.
while (clock.fireNext(untilMs)) await Promise.resolve();
process.stdout.write(`${JSON.stringify({ variant, query, objects, seconds: untilMs / 1000, retries, pendingSeen, pending: scheduler.size })}\n`);
