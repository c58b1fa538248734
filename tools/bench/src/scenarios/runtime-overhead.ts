/**
 * Scenario 6, runtime overhead: what the sync gate and read-your-writes tracking cost per event (issue 17
 * expects nothing measurable). Each variant in its own child process (runtime-overhead-main.ts), the order
 * rotated every round; CPU per handled event, and each variant against its pair as a ratio.
 */
import { BenchChild } from '../child-process.js';
import { formatFixed, formatInt, formatRatio, formatSpread } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import type { OverheadInput, OverheadResult, OverheadVariant } from '../runtime-overhead-main.js';
import { median, ratio, rotatedOrder, spread } from '../stats.js';

const OVERHEAD_MAIN = new URL('../runtime-overhead-main.js', import.meta.url);

/** Options of scenario 6. */
export interface RuntimeOverheadOptions {
  events: number;
  keys: number;
  runs: number;
  log: (line: string) => void;
  /** Extra node flags for the children. Default: none. */
  execArgv?: readonly string[] | undefined;
}

/** Median figures of one variant. */
export interface OverheadFigures {
  variant: OverheadVariant;
  events: number;
  cpuMicrosPerEvent: number;
  eventsPerCpuSecond: number;
  /** CPU per event against the variant's pair (the one without the feature). */
  vsBaseline: number;
  runs: OverheadResult[];
}

/** Machine-readable outcome of scenario 6. */
export interface RuntimeOverheadData {
  events: number;
  keys: number;
  variants: OverheadFigures[];
}

const VARIANTS: OverheadVariant[] = ['gate-open', 'gate-waited', 'writes-untracked', 'writes-tracked'];
const BASELINE: Record<OverheadVariant, OverheadVariant> = {
  'gate-open': 'gate-open',
  'gate-waited': 'gate-open',
  'writes-untracked': 'writes-untracked',
  'writes-tracked': 'writes-untracked',
};
const LABELS: Record<OverheadVariant, string> = {
  'gate-open': 'InformerController, informer synced at start (gate trivially open)',
  'gate-waited': 'InformerController, informer synced after run() (gate waited, then opened)',
  'writes-untracked': 'ReconcileController, one write per reconcile, plain client',
  'writes-tracked': 'ReconcileController, one write per reconcile, trackWrites(client)',
};
const BAR_LABELS: Record<OverheadVariant, string> = {
  'gate-open': 'gate trivially open',
  'gate-waited': 'gate waited',
  'writes-untracked': 'writes untracked',
  'writes-tracked': 'writes tracked',
};

/** Runs scenario 6. */
export async function runRuntimeOverhead(options: RuntimeOverheadOptions): Promise<ScenarioReport<RuntimeOverheadData>> {
  const results = new Map<OverheadVariant, OverheadResult[]>(VARIANTS.map((v) => [v, []]));
  for (let run = 0; run < options.runs; run++) {
    for (const variant of rotatedOrder(VARIANTS, run)) {
      const child = BenchChild.start(OVERHEAD_MAIN, { variant, events: options.events, keys: options.keys } satisfies OverheadInput, {
        timeoutMs: 300_000,
        label: `overhead ${variant}`,
        execArgv: options.execArgv,
      });
      const result = await child.result<OverheadResult>().finally(() => child.stop());
      options.log(`  run ${run + 1}/${options.runs} ${variant}: ${formatInt(result.events)} events, ${result.cpuSeconds.toFixed(2)} CPU-s`);
      results.get(variant)!.push(result);
    }
  }
  const perEvent = (v: OverheadVariant): number => median(results.get(v)!.map((r) => (r.cpuSeconds / r.events) * 1e6));
  const variants = VARIANTS.map((variant): OverheadFigures => {
    const runs = results.get(variant)!;
    const cpuMicrosPerEvent = perEvent(variant);
    return {
      variant,
      events: median(runs.map((r) => r.events)),
      cpuMicrosPerEvent,
      eventsPerCpuSecond: 1e6 / cpuMicrosPerEvent,
      vsBaseline: ratio(cpuMicrosPerEvent, perEvent(BASELINE[variant])),
      runs,
    };
  });
  return {
    id: 'runtime-overhead',
    title: '6. Runtime overhead: sync gate and write tracking',
    setup: `${formatInt(options.events)} update events over ${formatInt(options.keys)} keys pushed through one controller in process (no I/O), in rounds of one event per key; each variant in its own process; ${options.runs} rounds, the order rotated every round; median [min, max] of the rounds.`,
    columns: ['Variant', 'events', 'CPU us / event', 'events / CPU s', 'CPU vs its pair'],
    rows: variants.map((v) => [
      LABELS[v.variant],
      formatInt(v.events),
      formatSpread(spread(v.runs.map((r) => (r.cpuSeconds / r.events) * 1e6)), (n) => formatFixed(n, 2)),
      formatInt(v.eventsPerCpuSecond),
      formatRatio(v.vsBaseline),
    ]),
    notes: [],
    chart: {
      title: '6. Runtime overhead',
      subtitle: 'CPU microseconds per event, lower is better',
      bars: variants.map((v) => ({ label: BAR_LABELS[v.variant], value: v.cpuMicrosPerEvent, emphasis: v.variant === 'gate-waited' || v.variant === 'writes-tracked' })),
      format: (v) => `${v.toFixed(2)} us`,
    },
    data: { events: options.events, keys: options.keys, variants },
  };
}
