/**
 * The goals of issue 14 (performance), judged against one run. Reported as ratios with the margin by which
 * each is met or missed; never asserted (a slow CI machine must not fail a build).
 */
import type { LoadFigures } from '../machine.js';
import type { CacheMemoryData } from '../scenarios/cache-memory.js';
import type { LatencyData } from '../scenarios/latency.js';
import type { ScaleData } from '../scenarios/scale.js';
import type { WatchIngestData } from '../scenarios/watch-ingest.js';
import { ratio, type Spread } from '../stats.js';
import { formatFixed, formatInt, formatRatio } from './format.js';
import type { GoalVerdict, ScenarioId, ScenarioReport } from './scenario-report.js';

/** Verdict for "measured >= target" (higher is better); `format` prints the figure (default: as a ratio, `1.23x`). */
export function atLeast(goal: string, measured: number, target: number, format: (n: number) => string = formatRatio): GoalVerdict {
  if (!Number.isFinite(measured)) return { goal, measured: 'n/a', met: undefined, margin: 'a figure is missing' };
  const rel = measured / target - 1;
  return {
    goal,
    measured: format(measured),
    met: measured >= target,
    margin: rel >= 0 ? `by ${(rel * 100).toFixed(0)}%` : `short by ${(-rel * 100).toFixed(0)}%`,
  };
}

/** Verdict for "measured <= target" (lower is better); `format` prints the figure (default: as a ratio, `1.23x`). */
export function atMost(goal: string, measured: number, target: number, format: (n: number) => string = formatRatio): GoalVerdict {
  if (!Number.isFinite(measured)) return { goal, measured: 'n/a', met: undefined, margin: 'a figure is missing' };
  const rel = measured / target - 1;
  return {
    goal,
    measured: format(measured),
    met: measured <= target,
    margin: rel <= 0 ? `by ${(-rel * 100).toFixed(0)}%` : `over by ${(rel * 100).toFixed(0)}%`,
  };
}

/** A verdict with a note appended to its margin. */
function withNote(verdict: GoalVerdict, note: string): GoalVerdict {
  return { ...verdict, margin: `${verdict.margin}; ${note}` };
}

/** A few words on same-round ratios: how many rounds agree with the verdict on the medians. */
export function roundAgreement(sameRound: Spread, roundsBelow: number, rounds: number): string {
  const range = `same-round ratios ${formatRatio(sameRound.min)} to ${formatRatio(sameRound.max)}, lower in ${roundsBelow} of ${rounds} rounds`;
  return sameRound.min < 1 && sameRound.max > 1 ? `${range}: the rounds disagree, so the verdict is not conclusive` : range;
}

function notRun(goal: string, scenario: ScenarioId): GoalVerdict {
  return { goal, measured: 'n/a', met: undefined, margin: `scenario ${scenario} did not run` };
}

function find<D>(reports: readonly ScenarioReport[], id: ScenarioId): D | undefined {
  return reports.find((r) => r.id === id)?.data as D | undefined;
}

/** The sizes the issue's figures are about. */
const ISSUE_LIST_OBJECTS = 50_000;
const ISSUE_SCALE = { objects: 100_000, rate: 1_000, seconds: 30 };
/** Rounds below which a p99 comparison is called thin. */
const TRUSTED_LATENCY_ROUNDS = 5;
/** The time `--quick` must stay under in CI. */
const QUICK_LIMIT_SECONDS = 120;

/** A `--quick` run's duration, for goal 5. */
export interface QuickRunSummary {
  durationSeconds: number;
  startedAt: string;
  /** 1-minute load average at its start. */
  loadAtStart: number;
}

/** What the goals need besides the scenario reports. */
export interface GoalContext {
  /** The machine's core count. */
  cores: number;
  /** The load average over the whole run. */
  load: LoadFigures;
  /** This run's `--quick` duration, or the latest one found on disk for a full run. Default: none. */
  quickRun?: QuickRunSummary | undefined;
}

/** Judges every goal of issue 14 on one run; a goal whose scenario did not run says so. */
export function judgeGoals(reports: readonly ScenarioReport[], context: GoalContext): GoalVerdict[] {
  return [...ingestGoals(reports), ...listGoals(reports), ...scaleGoals(reports), ...latencyGoals(reports), ...benchGoals(context)];
}

function ingestGoals(reports: readonly ScenarioReport[]): GoalVerdict[] {
  const g1 = '1. full path (informer -> controller -> handler): CPU per event <= 1.0x client-node makeInformer';
  const g1c = '1. the InformerController stage adds <= 1 us CPU per event';
  const g1s = '1. stretch: full path CPU per event <= 0.8x client-node';
  const ingest = find<WatchIngestData>(reports, 'watch-ingest');
  if (!ingest) return [notRun(g1, 'watch-ingest'), notRun(g1c, 'watch-ingest'), notRun(g1s, 'watch-ingest')];
  const cpu = (c: string): number => ingest.consumers.find((f) => f.consumer === c && f.available)?.cpuSecondsPer100k.median ?? NaN;
  const full = ratio(cpu('kubeloop'), cpu('client-node'));
  const controller = ingest.stages.find((s) => s.consumer === 'kubeloop')?.addedMicros.median ?? NaN; // the last stage: the controller
  return [atMost(g1, full, 1.0), atMost(g1c, controller, 1.0, (n) => `${formatFixed(n, 1)} us`), atMost(g1s, full, 0.8)];
}

function listGoals(reports: readonly ScenarioReport[]): GoalVerdict[] {
  const cache = find<CacheMemoryData>(reports, 'cache-memory');
  const goals = [
    ['wall time', '1.0x client-node'],
    ['CPU', '1.0x client-node'],
    ['wall time', '1.3x the raw baseline'],
    ['CPU', '1.3x the raw baseline'],
  ].map(([figure, target]) => `2. initial list of ${formatInt(ISSUE_LIST_OBJECTS)} objects: ${figure} <= ${target}`);
  if (!cache) return goals.map((g) => notRun(g, 'cache-memory'));
  const largest = Math.max(...cache.sizes);
  const at = (c: string): CacheMemoryData['consumers'][number] | undefined => cache.consumers.find((f) => f.consumer === c && f.objects === largest);
  const [ours, cn, raw] = [at('kubeloop'), at('client-node'), at('raw')];
  const verdicts = [
    atMost(goals[0]!, ratio(ours?.listSeconds.median, cn?.listSeconds.median), 1.0),
    atMost(goals[1]!, ratio(ours?.listCpuSeconds.median, cn?.listCpuSeconds.median), 1.0),
    atMost(goals[2]!, ratio(ours?.listSeconds.median, raw?.listSeconds.median), 1.3),
    atMost(goals[3]!, ratio(ours?.listCpuSeconds.median, raw?.listCpuSeconds.median), 1.3),
  ];
  if (largest === ISSUE_LIST_OBJECTS) return verdicts;
  return verdicts.map((v) => ({ ...v, met: undefined, margin: `measured at ${formatInt(largest)} objects, not the issue's ${formatInt(ISSUE_LIST_OBJECTS)}; ${v.margin} there` }));
}

function scaleGoals(reports: readonly ScenarioReport[]): GoalVerdict[] {
  const g3 = `3. scale scenario: ${formatInt(ISSUE_SCALE.objects)} cached objects (managedFields stripped), ${formatInt(ISSUE_SCALE.rate)} events/s for ${ISSUE_SCALE.seconds} s, heap, CPU per event and p99 against client-node on the same stream`;
  const g3c = '3. scale: CPU per event <= 1.0x client-node';
  const g3l = '3. scale: p99 event-to-handler latency <= 1.0x client-node';
  const scale = find<ScaleData>(reports, 'scale');
  if (!scale) return [notRun(g3, 'scale'), notRun(g3c, 'scale'), notRun(g3l, 'scale')];
  const ours = scale.consumers.find((c) => c.consumer !== 'client-node');
  const cn = scale.consumers.find((c) => c.consumer === 'client-node');
  const cpu = ratio(ours?.cpuMicrosPerEvent.median, cn?.cpuMicrosPerEvent.median);
  const p99 = ratio(ours?.p99Ms.median, cn?.p99Ms.median);
  const heap = ratio(ours?.heapHeldAfterStreamBytes.median, cn?.heapHeldAfterStreamBytes.median);
  const atIssueSize = scale.objects >= ISSUE_SCALE.objects && scale.rate >= ISSUE_SCALE.rate && scale.seconds >= ISSUE_SCALE.seconds;
  const everyEvent = scale.consumers.every((c) => c.seenPerEvent >= 0.999);
  const measured = `heap ${formatRatio(heap)}, CPU/event ${formatRatio(cpu)}, p99 ${formatRatio(p99)} client-node`;
  const reported: GoalVerdict = !atIssueSize
    ? { goal: g3, measured, met: undefined, margin: `run at ${formatInt(scale.objects)} objects, ${formatInt(scale.rate)} events/s, ${scale.seconds} s: not the issue's size` }
    : {
        goal: g3,
        measured,
        met: everyEvent && [cpu, p99, heap].every(Number.isFinite),
        margin: everyEvent ? `reported, ${scale.runs} round(s)` : 'a consumer did not handle every event',
      };
  const small = (v: GoalVerdict): GoalVerdict => (atIssueSize ? v : { ...v, met: undefined, margin: `not the issue's size; ${v.margin} at this size` });
  const latency = atMost(g3l, p99, 1.0);
  return [
    reported,
    small(atMost(g3c, cpu, 1.0)),
    small(ours && latency.met !== undefined ? withNote(latency, roundAgreement(ours.p99VsClientNode, ours.roundsBelowClientNode, scale.runs)) : latency),
  ];
}

function latencyGoals(reports: readonly ScenarioReport[]): GoalVerdict[] {
  const g4 = '4. end-to-end p99 latency (embedded API server) <= 1.0x client-node, over interleaved rounds';
  const latency = find<LatencyData>(reports, 'latency');
  if (!latency) return [notRun(g4, 'latency')];
  const ours = latency.consumers.find((f) => f.consumer === 'kubeloop');
  const cn = latency.consumers.find((f) => f.consumer === 'client-node');
  const verdict = atMost(`${g4} (${latency.runs} rounds)`, ratio(ours?.p99Ms.median, cn?.p99Ms.median), 1.0);
  if (!ours || verdict.met === undefined) return [verdict];
  const agreement = roundAgreement(ours.p99VsClientNode, ours.roundsBelowClientNode, latency.runs);
  return [withNote(verdict, latency.runs < TRUSTED_LATENCY_ROUNDS ? `${agreement}; only ${latency.runs} rounds, too few to trust` : agreement)];
}

function benchGoals(context: GoalContext): GoalVerdict[] {
  const g5q = `5. \`npm run bench -- --quick\` takes under ${QUICK_LIMIT_SECONDS / 60} minutes`;
  const g5l = `5. the run was on a quiet machine (1-minute load average <= ${context.cores}, the core count, throughout)`;
  const quick = context.quickRun;
  const quickVerdict: GoalVerdict = quick
    ? withNote(
        atMost(g5q, quick.durationSeconds, QUICK_LIMIT_SECONDS, (n) => `${formatInt(n)} s`),
        `the --quick run of ${quick.startedAt}, load average ${formatFixed(quick.loadAtStart, 2)} at its start`,
      )
    : { goal: g5q, measured: 'n/a', met: undefined, margin: 'no --quick run recorded (bench/raw/quick/results.json)' };
  const loadVerdict = withNote(atMost(g5l, context.load.max, context.cores, (n) => `max ${formatFixed(n, 2)}`), `start ${formatFixed(context.load.start, 2)}, end ${formatFixed(context.load.end, 2)}`);
  return [quickVerdict, loadVerdict];
}
