/**
 * Child process of scenario 3: runs the retry workload (retry-workload.ts) on the real clock for a bounded
 * time with one of three schedulers, and reports CPU, retries fired, timer lateness and heap per pending retry.
 * - `kubeloop`: @kubeloop/operator's RetryScheduler (a calendar queue, one timer).
 * - `heap`: the candidate replacement, a plain binary min-heap with a per-key map (heap-retry-scheduler.ts).
 * - `setTimeout`: the naive way, one `setTimeout` closure per retry.
 */
import { RetryScheduler } from '@kubeloop/operator';
import { HeapRetryScheduler } from './heap-retry-scheduler.js';
import { runChildMain } from './child-runtime.js';
import { heapAfterGc, mark, maxRssBytes } from './measure.js';
import { firstFailureMs, retryDelayMs } from './retry-workload.js';
import { percentile } from './stats.js';

/** Input of a retry child. */
export interface RetryInput {
  variant: 'kubeloop' | 'heap' | 'setTimeout';
  objects: number;
  seconds: number;
}

/** What a retry child reports. */
export interface RetryResult {
  variant: RetryInput['variant'];
  retries: number;
  cpuSeconds: number;
  wallSeconds: number;
  pendingAtEnd: number;
  heapBytesPerPending: number;
  latenessP50Ms: number;
  latenessP99Ms: number;
  maxRssBytes: number;
}

interface Entry {
  index: number;
  attempt: number;
  due: number;
}

const SAMPLE_EVERY = 8;

runChildMain<RetryInput>(async (input) => {
  const keys = Array.from({ length: input.objects }, (_, i) => `bench/obj-${i}`);
  const lateness = new Float64Array(Math.ceil((input.objects * 40) / SAMPLE_EVERY));
  // The keys and the sample buffer are the same for both variants: not counted as scheduler memory.
  const emptyHeap = await heapAfterGc();
  let samples = 0;
  let retries = 0;
  let scheduled = 0;
  let stopped = false;

  const fired = (entry: Entry): void => {
    retries++;
    if (retries % SAMPLE_EVERY === 0 && samples < lateness.length) lateness[samples++] = Date.now() - entry.due;
  };

  let schedule: (entry: Entry, delayMs: number) => void;
  let pause: () => void = () => undefined;
  if (input.variant !== 'setTimeout') {
    const onDue = (_key: string, entry: Entry): void => {
      if (stopped) return;
      fired(entry);
      // The handler fails again: next attempt.
      const next = entry.attempt + 1;
      const delay = retryDelayMs(entry.index, next);
      schedule({ index: entry.index, attempt: next, due: Date.now() + delay }, delay);
    };
    const scheduler = input.variant === 'kubeloop' ? new RetryScheduler<Entry>({ onDue }) : new HeapRetryScheduler<Entry>({ onDue });
    schedule = (entry, delayMs) => {
      scheduled++;
      scheduler.schedule(keys[entry.index]!, entry, delayMs);
    };
    scheduler.start();
    pause = () => scheduler.stop();
  } else {
    const retry = (entry: Entry): void => {
      if (stopped) return;
      fired(entry);
      const next = entry.attempt + 1;
      const delay = retryDelayMs(entry.index, next);
      schedule({ index: entry.index, attempt: next, due: Date.now() + delay }, delay);
    };
    schedule = (entry, delayMs) => {
      scheduled++;
      setTimeout(() => retry(entry), delayMs);
    };
  }

  const begin = mark();
  const start = Date.now();
  for (let i = 0; i < input.objects; i++) {
    const delay = firstFailureMs(i, input.objects) + retryDelayMs(i, 0);
    schedule({ index: i, attempt: 0, due: start + delay }, delay);
  }
  await new Promise((resolve) => setTimeout(resolve, input.seconds * 1000));
  const end = mark();
  stopped = true;
  pause();
  const pendingAtEnd = scheduled - retries;
  const heap = await heapAfterGc();
  const sampled = Array.from(lateness.subarray(0, samples));
  return {
    variant: input.variant,
    retries,
    cpuSeconds: end.cpu - begin.cpu,
    wallSeconds: end.wall - begin.wall,
    pendingAtEnd,
    heapBytesPerPending: (heap - emptyHeap) / Math.max(1, pendingAtEnd),
    latenessP50Ms: percentile(sampled, 50),
    latenessP99Ms: percentile(sampled, 99),
    maxRssBytes: maxRssBytes(),
  } satisfies RetryResult;
});
