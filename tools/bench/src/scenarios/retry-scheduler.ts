/**
 * Scenario 3, retry scheduler: N objects failing with backoff for a bounded time on the real clock, each
 * scheduler in its own child process: kubeloop's RetryScheduler, a plain binary heap with a key map, and one
 * setTimeout per retry. CPU per retry, heap per pending retry, timer lateness.
 */
import { BenchChild } from '../child-process.js';
import { formatFixed, formatInt, formatMillis, formatRatio, formatSpread } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import type { RetryInput, RetryResult } from '../retry-scheduler-main.js';
import { median, ratio, rotatedOrder, spread } from '../stats.js';

const RETRY_MAIN = new URL('../retry-scheduler-main.js', import.meta.url);

/** Options of scenario 3. */
export interface RetrySchedulerOptions {
  objects: number;
  seconds: number;
  runs: number;
  log: (line: string) => void;
  /** Extra node flags for the children. Default: none. */
  execArgv?: readonly string[] | undefined;
}

/** Median figures of one variant. */
export interface RetryFigures {
  variant: RetryInput['variant'];
  retries: number;
  cpuSeconds: number;
  cpuMicrosPerRetry: number;
  heapBytesPerPending: number;
  latenessP50Ms: number;
  latenessP99Ms: number;
  runs: RetryResult[];
}

/** Machine-readable outcome of scenario 3. */
export interface RetrySchedulerData {
  objects: number;
  seconds: number;
  variants: RetryFigures[];
}

const VARIANTS: RetryInput['variant'][] = ['kubeloop', 'heap', 'setTimeout'];
const LABELS: Record<RetryInput['variant'], string> = {
  kubeloop: 'kubeloop RetryScheduler (calendar queue, one timer)',
  heap: 'binary min-heap + key map (one timer)',
  setTimeout: 'naive: one setTimeout per retry',
};
const BAR_LABELS: Record<RetryInput['variant'], string> = {
  kubeloop: 'kubeloop RetryScheduler',
  heap: 'binary heap + key map',
  setTimeout: 'setTimeout per retry',
};

/** Runs scenario 3. */
export async function runRetryScheduler(options: RetrySchedulerOptions): Promise<ScenarioReport<RetrySchedulerData>> {
  const results = new Map<RetryInput['variant'], RetryResult[]>(VARIANTS.map((v) => [v, []]));
  for (let run = 0; run < options.runs; run++) {
    for (const variant of rotatedOrder(VARIANTS, run)) {
      const child = BenchChild.start(RETRY_MAIN, { variant, objects: options.objects, seconds: options.seconds } satisfies RetryInput, {
        timeoutMs: options.seconds * 1000 + 120_000,
        label: `retry ${variant}`,
        execArgv: options.execArgv,
      });
      const result = await child.result<RetryResult>().finally(() => child.stop());
      options.log(`  run ${run + 1}/${options.runs} ${variant}: ${formatInt(result.retries)} retries, ${result.cpuSeconds.toFixed(2)} CPU-s`);
      results.get(variant)!.push(result);
    }
  }
  const variants = VARIANTS.map((variant): RetryFigures => {
    const runs = results.get(variant)!;
    return {
      variant,
      retries: median(runs.map((r) => r.retries)),
      cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
      cpuMicrosPerRetry: median(runs.map((r) => (r.cpuSeconds / r.retries) * 1e6)),
      heapBytesPerPending: median(runs.map((r) => r.heapBytesPerPending)),
      latenessP50Ms: median(runs.map((r) => r.latenessP50Ms)),
      latenessP99Ms: median(runs.map((r) => r.latenessP99Ms)),
      runs,
    };
  });
  const naive = variants.find((v) => v.variant === 'setTimeout')!;
  return {
    id: 'retry-scheduler',
    title: '3. Retry scheduler',
    setup: `${formatInt(options.objects)} objects failing on every attempt for ${options.seconds} s of real time (backoff 5 ms doubling, +-10% jitter, first failures spread over 1 s); ${options.runs} rounds, the order rotated every round; median [min, max] of the rounds.`,
    columns: ['Scheduler', 'retries fired', 'CPU s', 'CPU us / retry', 'CPU vs naive', 'heap B / pending retry', 'lateness p50', 'lateness p99'],
    rows: variants.map((v) => [
      LABELS[v.variant],
      formatInt(v.retries),
      formatFixed(v.cpuSeconds, 2),
      formatSpread(spread(v.runs.map((r) => (r.cpuSeconds / r.retries) * 1e6)), (n) => formatFixed(n, 2)),
      formatRatio(ratio(v.cpuMicrosPerRetry, naive.cpuMicrosPerRetry)),
      formatSpread(spread(v.runs.map((r) => r.heapBytesPerPending)), formatInt),
      formatMillis(v.latenessP50Ms),
      formatSpread(spread(v.runs.map((r) => r.latenessP99Ms)), formatMillis),
    ]),
    notes: [],
    chart: {
      title: '3. Retry scheduler CPU',
      subtitle: `CPU microseconds per retry, ${formatInt(options.objects)} failing objects, lower is better`,
      bars: variants.map((v) => ({ label: BAR_LABELS[v.variant], value: v.cpuMicrosPerRetry, emphasis: v.variant === 'kubeloop' })),
      format: (v) => `${v.toFixed(2)} us`,
    },
    data: { objects: options.objects, seconds: options.seconds, variants },
  };
}
