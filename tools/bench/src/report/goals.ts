/**
 * The goals of the benchmark issue, judged against one run. Reported as ratios with the margin by which
 * each is met or missed; never asserted (a slow CI machine must not fail a build).
 */
import type { CacheMemoryData } from '../scenarios/cache-memory.js';
import type { LatencyData } from '../scenarios/latency.js';
import type { RetrySchedulerData } from '../scenarios/retry-scheduler.js';
import type { WatchIngestData } from '../scenarios/watch-ingest.js';
import { ratio } from '../stats.js';
import { formatRatio } from './format.js';
import type { GoalVerdict, ScenarioId, ScenarioReport } from './scenario-report.js';

/** Verdict for "measured >= target" (higher is better). */
export function atLeast(goal: string, measured: number, target: number): GoalVerdict {
  if (!Number.isFinite(measured)) return { goal, measured: 'n/a', met: undefined, margin: 'a figure is missing' };
  const rel = measured / target - 1;
  return {
    goal,
    measured: formatRatio(measured),
    met: measured >= target,
    margin: rel >= 0 ? `by ${(rel * 100).toFixed(0)}%` : `short by ${(-rel * 100).toFixed(0)}%`,
  };
}

/** Verdict for "measured <= target" (lower is better). */
export function atMost(goal: string, measured: number, target: number): GoalVerdict {
  if (!Number.isFinite(measured)) return { goal, measured: 'n/a', met: undefined, margin: 'a figure is missing' };
  const rel = measured / target - 1;
  return {
    goal,
    measured: formatRatio(measured),
    met: measured <= target,
    margin: rel <= 0 ? `by ${(-rel * 100).toFixed(0)}%` : `over by ${(rel * 100).toFixed(0)}%`,
  };
}

function notRun(goal: string, scenario: ScenarioId): GoalVerdict {
  return { goal, measured: 'n/a', met: undefined, margin: `scenario ${scenario} did not run` };
}

function find<D>(reports: readonly ScenarioReport[], id: ScenarioId): D | undefined {
  return reports.find((r) => r.id === id)?.data as D | undefined;
}

/** Judges every goal whose scenario ran. */
export function judgeGoals(reports: readonly ScenarioReport[]): GoalVerdict[] {
  const goals: GoalVerdict[] = [];

  const ingest = find<WatchIngestData>(reports, 'watch-ingest');
  const g1 = 'ingest events/s >= 1.0x the raw baseline';
  const g2 = 'ingest events/s >= 1.25x client-node';
  const g2s = 'stretch: ingest events/s >= 1.5x client-node';
  if (ingest) {
    const eps = (c: string): number => ingest.consumers.find((f) => f.consumer === c)?.eventsPerSecond ?? NaN;
    goals.push(atLeast(g1, ratio(eps('kubeloop'), eps('raw')), 1.0));
    goals.push(atLeast(g2, ratio(eps('kubeloop'), eps('client-node')), 1.25));
    goals.push(atLeast(g2s, ratio(eps('kubeloop'), eps('client-node')), 1.5));
  } else goals.push(notRun(g1, 'watch-ingest'), notRun(g2, 'watch-ingest'), notRun(g2s, 'watch-ingest'));

  const cache = find<CacheMemoryData>(reports, 'cache-memory');
  const g3 = 'cache bytes/object, no transform <= 1.0x the raw Map';
  const g4 = 'cache bytes/object, managedFields stripped <= 0.6x client-node';
  if (cache) {
    const largest = Math.max(...cache.sizes);
    const per = (c: string): number => cache.consumers.find((f) => f.consumer === c && f.objects === largest)?.bytesPerObject ?? NaN;
    goals.push(atMost(`${g3} (${largest.toLocaleString('en-US')} objects)`, ratio(per('kubeloop'), per('raw')), 1.0));
    goals.push(atMost(`${g4} (${largest.toLocaleString('en-US')} objects)`, ratio(per('kubeloop-strip'), per('client-node')), 0.6));
  } else goals.push(notRun(g3, 'cache-memory'), notRun(g4, 'cache-memory'));

  const retry = find<RetrySchedulerData>(reports, 'retry-scheduler');
  const g5 = 'retry scheduler: >= 5x less CPU per retry than setTimeout-per-retry';
  if (retry) {
    const cpu = (v: string): number => retry.variants.find((x) => x.variant === v)?.cpuMicrosPerRetry ?? NaN;
    goals.push(atLeast(`${g5} (${retry.objects.toLocaleString('en-US')} objects)`, ratio(cpu('setTimeout'), cpu('kubeloop')), 5));
  } else goals.push(notRun(g5, 'retry-scheduler'));

  const latency = find<LatencyData>(reports, 'latency');
  const g6 = 'end-to-end p99 latency <= 1.0x client-node';
  if (latency) {
    const p99 = (c: string): number => latency.consumers.find((f) => f.consumer === c)?.p99Ms ?? NaN;
    goals.push(atMost(g6, ratio(p99('kubeloop'), p99('client-node')), 1.0));
  } else goals.push(notRun(g6, 'latency'));

  return goals;
}
