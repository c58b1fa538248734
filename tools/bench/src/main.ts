/**
 * `npm run bench`: every scenario of the benchmark, side by side in one run. Prints a table per scenario
 * and the verdict on each goal of the issue, writes bench/results.json, docs/benchmarks.md and one SVG chart
 * per scenario in docs/bench/. `--quick` runs tiny sizes as a smoke test and writes under bench/raw/quick/
 * instead, so that it never replaces the published figures. Exits non-zero if any consumer or server fails.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadAverage, machineInfo, sampleLoad, type LoadFigures } from './machine.js';
import { ALL_SCENARIOS, parseBenchOptions, type BenchOptions } from './options.js';
import { handWrittenPart, renderBenchmarksMarkdown } from './report/benchmarks-markdown.js';
import { formatLoad } from './report/format.js';
import { judgeGoals, type QuickRunSummary } from './report/goals.js';
import type { GoalVerdict, ScenarioId, ScenarioReport } from './report/scenario-report.js';
import { renderBarChartSvg } from './report/svg-bar-chart.js';
import { renderTextTable } from './report/text-table.js';
import { runApiServerBench } from './scenarios/apiserver.js';
import { runCacheMemory } from './scenarios/cache-memory.js';
import { runLatency } from './scenarios/latency.js';
import { runRetryScheduler } from './scenarios/retry-scheduler.js';
import { runRuntimeOverhead } from './scenarios/runtime-overhead.js';
import { runScale } from './scenarios/scale.js';
import { runSharding } from './scenarios/sharding.js';
import { runDevLoopBench } from './scenarios/dev-loop.js';
import { runWatchIngest } from './scenarios/watch-ingest.js';
import { nowSeconds } from './measure.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** The whole of bench/results.json. */
export interface BenchResults {
  command: string;
  quick: boolean;
  startedAt: string;
  durationSeconds: number;
  machine: ReturnType<typeof machineInfo>;
  /** 1-minute load average at the start and end of the run and its highest sample (2 cores: above 2, something else was running). */
  loadAverage: LoadFigures;
  sizes: BenchOptions['sizes'];
  scenarios: ScenarioReport[];
  goals: GoalVerdict[];
  failures: { scenario: ScenarioId; error: string }[];
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function runScenario(id: ScenarioId, options: BenchOptions): Promise<ScenarioReport> {
  const s = options.sizes;
  const execArgv = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench/raw/profiles')}`] : undefined;
  switch (id) {
    case 'watch-ingest':
      return runWatchIngest({ events: s.ingestEvents, objects: s.ingestObjects, runs: s.runs, warmups: s.warmups, seed: options.seed, log, execArgv, only: options.consumers });
    case 'cache-memory':
      return runCacheMemory({ sizes: s.cacheObjects, runs: s.runs, seed: options.seed, log, only: options.consumers });
    case 'retry-scheduler':
      return runRetryScheduler({ objects: s.retryObjects, seconds: s.retrySeconds, runs: s.runs, log, execArgv });
    case 'latency':
      return runLatency({ rate: s.latencyRate, seconds: s.latencySeconds, runs: s.latencyRuns, warmups: s.warmups, log, execArgv });
    case 'apiserver':
      return runApiServerBench({ starts: s.apiserverStarts, writes: s.apiserverWrites, watchers: s.apiserverWatchers, runs: s.runs, log });
    case 'runtime-overhead':
      return runRuntimeOverhead({ events: s.overheadEvents, keys: s.overheadKeys, runs: s.runs, log, execArgv });
    case 'dev-loop':
      return runDevLoopBench({ starts: s.devStarts, edits: s.devEdits, log });
    case 'scale':
      return runScale({ objects: s.scaleObjects, rate: s.scaleRate, seconds: s.scaleSeconds, runs: s.scaleRuns, seed: options.seed, log, execArgv });
    case 'sharding':
      return runSharding({ objects: s.shardingObjects, writes: s.shardingWrites, replicas: s.shardingReplicas, workMs: s.shardingWorkMs, log });
  }
}

/** The latest `--quick` run's duration, from its results file, for goal 5; undefined when there is none. */
function latestQuickRun(path: string): QuickRunSummary | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const quick = JSON.parse(readFileSync(path, 'utf8')) as Partial<BenchResults>;
    if (typeof quick.durationSeconds !== 'number' || typeof quick.startedAt !== 'string' || quick.quick !== true) return undefined;
    if (!ALL_SCENARIOS.every((id) => quick.scenarios?.some((r) => r.id === id) || quick.failures?.some((f) => f.scenario === id))) return undefined; // an --only run
    return { durationSeconds: quick.durationSeconds, startedAt: quick.startedAt, loadAtStart: quick.loadAverage?.start ?? Number.NaN };
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const started = nowSeconds();
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const loadAtStart = loadAverage();
  const runLoad = sampleLoad();
  const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  log(`kubeloop bench${options.quick ? ' (quick)' : ''}: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, load average ${loadAtStart}`);
  if (loadAtStart > machine.cores) log(`  warning: the load average (${loadAtStart}) exceeds the ${machine.cores} cores: other processes will disturb the figures`);

  const reports: ScenarioReport[] = [];
  const failures: BenchResults['failures'] = [];
  for (const id of options.scenarios) {
    log(`\n== ${id} (load average ${loadAverage()})`);
    const scenarioLoad = sampleLoad();
    try {
      const report = await runScenario(id, options);
      report.load = scenarioLoad.stop();
      reports.push(report);
      log(`\n${report.title}: ${report.setup}\n`);
      log(`  (${formatLoad(report.load, machine.cores)})\n`);
      log(renderTextTable(report.columns, report.rows));
      for (const table of report.tables ?? []) log(`\n${table.caption}\n\n${renderTextTable(table.columns, table.rows)}`);
      for (const note of report.notes) log(`  note: ${note}`);
    } catch (err) {
      scenarioLoad.stop();
      const text = err instanceof Error ? err.message : String(err);
      failures.push({ scenario: id, error: text });
      log(`!! ${id} failed: ${text}`);
    }
  }

  const load = runLoad.stop();
  const durationSeconds = Math.round(nowSeconds() - started);
  const quickResults = join(ROOT, 'bench/raw/quick/results.json');
  const everyScenario = options.scenarios.length === ALL_SCENARIOS.length;
  const quickRun = options.quick && everyScenario ? { durationSeconds, startedAt, loadAtStart } : latestQuickRun(quickResults);
  const goals = judgeGoals(reports, { cores: machine.cores, load, quickRun });
  if (goals.length > 0) {
    log(`\nGoals of issue 14 (reported, never asserted; ${formatLoad(load, machine.cores)}):`);
    log(
      renderTextTable(
        ['Goal', 'Measured', 'Verdict'],
        goals.map((g) => [g.goal, g.measured, g.met === undefined ? `not measured: ${g.margin}` : `${g.met ? 'met' : 'MISSED'} (${g.margin})`]),
      ),
    );
  }

  const results: BenchResults = {
    command,
    quick: options.quick,
    startedAt,
    durationSeconds,
    machine,
    loadAverage: load,
    sizes: options.sizes,
    scenarios: reports,
    goals,
    failures,
  };
  if (options.write) {
    const benchDir = options.quick ? dirname(quickResults) : join(ROOT, 'bench');
    const docsDir = options.quick ? join(ROOT, 'bench/raw/quick/docs') : join(ROOT, 'docs');
    mkdirSync(join(docsDir, 'bench'), { recursive: true });
    mkdirSync(benchDir, { recursive: true });
    writeFileSync(join(benchDir, 'results.json'), `${JSON.stringify(results, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`);
    for (const report of reports) writeFileSync(join(docsDir, 'bench', `${report.id}.svg`), renderBarChartSvg(report.chart));
    const page = join(docsDir, 'benchmarks.md');
    writeFileSync(page, renderBenchmarksMarkdown(results, existsSync(page) ? handWrittenPart(readFileSync(page, 'utf8')) : ''));
    log(`\nwrote ${join(benchDir, 'results.json')}, ${join(docsDir, 'benchmarks.md')} and ${reports.length} chart(s) in ${join(docsDir, 'bench')}`);
  }
  log(`\ndone in ${results.durationSeconds} s${failures.length > 0 ? `, ${failures.length} scenario(s) FAILED` : ''}`);
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
