/** Command-line options of `npm run bench` and the sizes each mode uses. */
import type { ScenarioId } from './report/scenario-report.js';

/** Every scenario, in report order. */
export const ALL_SCENARIOS: readonly ScenarioId[] = ['watch-ingest', 'cache-memory', 'retry-scheduler', 'latency', 'apiserver', 'runtime-overhead', 'scale', 'dev-loop', 'sharding'];

/** Sizes of one benchmark run. */
export interface BenchSizes {
  /** Scenario 1: watch events and objects. */
  ingestEvents: number;
  ingestObjects: number;
  /** Scenario 2: list sizes. */
  cacheObjects: number[];
  /** Scenario 3: failing objects and how long they keep failing (real clock). */
  retryObjects: number;
  retrySeconds: number;
  /** Scenario 4: writes per second, seconds of writing per round, and measured rounds (short rounds, many of them: the p99 of each is one repetition). */
  latencyRate: number;
  latencySeconds: number;
  latencyRuns: number;
  /** Scenario 5: start-ups to time; writes with 10 watchers attached. */
  apiserverStarts: number;
  apiserverWrites: number;
  apiserverWatchers: number;
  /** Scenario 6: update events pushed through one controller, and keys they spread over. */
  overheadEvents: number;
  overheadKeys: number;
  /** Scenario 7: cached objects, events per second, seconds of events, measured rounds. */
  scaleObjects: number;
  scaleRate: number;
  scaleSeconds: number;
  scaleRuns: number;
  /** Scenario 8: fresh `kubeloop dev` processes, and saved edits in each. */
  devStarts: number;
  devEdits: number;
  /** Scenario 9: objects, updates of the event burst, replica counts, and how long each reconcile waits (ms). */
  shardingObjects: number;
  shardingWrites: number;
  shardingReplicas: number[];
  shardingWorkMs: number;
  /** Measured runs per consumer of the other scenarios (median reported) and discarded warm-up rounds. */
  runs: number;
  warmups: number;
}

/** Full sizes: the figures docs/benchmarks.md publishes. */
export const FULL_SIZES: BenchSizes = {
  ingestEvents: 200_000,
  ingestObjects: 1_000,
  cacheObjects: [10_000, 50_000],
  retryObjects: 100_000,
  retrySeconds: 10,
  latencyRate: 200,
  latencySeconds: 8,
  latencyRuns: 7,
  apiserverStarts: 5,
  apiserverWrites: 10_000,
  apiserverWatchers: 10,
  overheadEvents: 200_000,
  overheadKeys: 1_000,
  scaleObjects: 100_000,
  scaleRate: 1_000,
  scaleSeconds: 30,
  scaleRuns: 3,
  devStarts: 3,
  devEdits: 5,
  shardingObjects: 2_000,
  shardingWrites: 10_000,
  shardingReplicas: [1, 2, 4],
  shardingWorkMs: 20,
  runs: 3,
  warmups: 1,
};

/** `--quick`: every scenario at tiny sizes, a smoke test for CI (well under 2 minutes). */
export const QUICK_SIZES: BenchSizes = {
  ingestEvents: 5_000,
  ingestObjects: 200,
  cacheObjects: [1_000, 2_000],
  retryObjects: 2_000,
  retrySeconds: 1,
  latencyRate: 50,
  latencySeconds: 2,
  latencyRuns: 2,
  apiserverStarts: 1,
  apiserverWrites: 500,
  apiserverWatchers: 10,
  overheadEvents: 20_000,
  overheadKeys: 500,
  scaleObjects: 2_000,
  scaleRate: 200,
  scaleSeconds: 3,
  scaleRuns: 1,
  devStarts: 1,
  devEdits: 2,
  shardingObjects: 300,
  shardingWrites: 1_000,
  shardingReplicas: [1, 2],
  shardingWorkMs: 20,
  runs: 1,
  warmups: 0,
};

/** Parsed command line. */
export interface BenchOptions {
  quick: boolean;
  scenarios: ScenarioId[];
  sizes: BenchSizes;
  /** Write bench/results.json, docs/benchmarks.md and docs/bench/*.svg. Default: true. */
  write: boolean;
  /** Run consumer children with `--cpu-prof` into bench/raw/profiles. Default: false. */
  cpuProf: boolean;
  seed: number;
  /** Only these consumers (debugging, profiling). Default: all. */
  consumers: string[] | undefined;
}

const USAGE = `usage: npm run bench -- [--quick] [--only=watch-ingest,cache-memory,retry-scheduler,latency,apiserver,runtime-overhead,scale,dev-loop,sharding]
                      [--runs=N] [--events=N] [--no-write] [--cpu-prof] [--seed=N] [--consumers=raw,kubeloop,...]`;

/** Parses `argv` (without node and script). Throws a usage error for anything it does not know. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  let quick = false;
  let scenarios: ScenarioId[] = [...ALL_SCENARIOS];
  let write = true;
  let cpuProf = false;
  let seed = 42;
  let runs: number | undefined;
  let events: number | undefined;
  let consumers: string[] | undefined;
  for (const arg of argv) {
    const [name, value] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    switch (name) {
      case '--quick':
        quick = true;
        break;
      case '--no-write':
        write = false;
        break;
      case '--cpu-prof':
        cpuProf = true;
        break;
      case '--only': {
        const ids = (value ?? '').split(',').filter(Boolean);
        const unknown = ids.filter((id) => !ALL_SCENARIOS.includes(id as ScenarioId));
        if (ids.length === 0 || unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(',') || '(none)'}\n${USAGE}`);
        scenarios = ALL_SCENARIOS.filter((s) => ids.includes(s));
        break;
      }
      case '--runs':
        runs = positiveInt(name, value);
        break;
      case '--events':
        events = positiveInt(name, value);
        break;
      case '--consumers':
        consumers = (value ?? '').split(',').filter(Boolean);
        break;
      case '--seed':
        seed = positiveInt(name, value);
        break;
      default:
        throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  const sizes = { ...(quick ? QUICK_SIZES : FULL_SIZES) };
  if (runs !== undefined) {
    sizes.runs = runs;
    sizes.latencyRuns = runs;
    sizes.scaleRuns = runs;
  }
  if (events !== undefined) sizes.ingestEvents = events;
  return { quick, scenarios, sizes, write, cpuProf, seed, consumers };
}

function positiveInt(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} needs a positive integer, got ${value ?? 'nothing'}\n${USAGE}`);
  return n;
}
