/**
 * Scenario 5, the embedded API server: start-up time (import, `startApiServer()` to listening, first
 * request answered; a fresh process each time), and writes/s of merge patches with 16 requests in flight,
 * with no watcher and with N plain watchers attached (each must receive every event).
 */
import { BenchChild } from '../child-process.js';
import { formatFixed, formatInt, formatMillis, formatRatio, formatSpread } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import type { ApiServerChildInput, ApiServerServing, ApiServerStartup } from '../servers/apiserver-main.js';
import { median, rotatedOrder, spread } from '../stats.js';
import type { AwaitEvents, WatchersInput, WatchersResult } from '../watchers-main.js';
import type { WriterInput, WriterResult } from '../writer-main.js';

const APISERVER_MAIN = new URL('../servers/apiserver-main.js', import.meta.url);
const WRITER_MAIN = new URL('../writer-main.js', import.meta.url);
const WATCHERS_MAIN = new URL('../watchers-main.js', import.meta.url);
const OBJECTS = 100;
const CONCURRENCY = 16;

/** Options of scenario 5. */
export interface ApiServerBenchOptions {
  starts: number;
  writes: number;
  watchers: number;
  runs: number;
  log: (line: string) => void;
}

/** Throughput with a number of watchers attached (medians). */
export interface ApiServerThroughput {
  watchers: number;
  writesPerSecond: number;
  writeP50Ms: number;
  writeP99Ms: number;
  /** The fewest events any watcher received, per write. */
  deliveredPerWrite: number;
  /** CPU microseconds the server process spent per write (warm-up writes included): steadier than writes/s on a shared machine. */
  serverCpuMicrosPerWrite: number;
  runs: WriterResult[];
}

/** Machine-readable outcome of scenario 5. */
export interface ApiServerData {
  startup: { importMs: number; startMs: number; firstRequestMs: number; runs: ApiServerStartup[] };
  throughput: ApiServerThroughput[];
}

/** Runs scenario 5. */
export async function runApiServerBench(options: ApiServerBenchOptions): Promise<ScenarioReport<ApiServerData>> {
  const startups: ApiServerStartup[] = [];
  for (let i = 0; i < options.starts; i++) {
    const child = BenchChild.start(APISERVER_MAIN, { mode: 'startup' } satisfies ApiServerChildInput, { timeoutMs: 60_000, label: 'apiserver start-up' });
    startups.push(await child.result<ApiServerStartup>().finally(() => child.stop()));
  }
  const startup = {
    importMs: median(startups.map((s) => s.importMs)),
    startMs: median(startups.map((s) => s.startMs)),
    firstRequestMs: median(startups.map((s) => s.firstRequestMs)),
    runs: startups,
  };
  options.log(`  start-up: import ${formatMillis(startup.importMs)}, start ${formatMillis(startup.startMs)}, first request ${formatMillis(startup.firstRequestMs)}`);

  const server = BenchChild.start(APISERVER_MAIN, { mode: 'serve' } satisfies ApiServerChildInput, { timeoutMs: 60 * 60_000, label: 'apiserver' });
  const throughput: ApiServerThroughput[] = [];
  try {
    const info = await server.ready<ApiServerServing>();
    const setup = BenchChild.start(WRITER_MAIN, { url: info.url, mode: 'setup', objects: OBJECTS, writes: 0 } satisfies WriterInput, { timeoutMs: 120_000, label: 'writer setup' });
    await setup.result<WriterResult>().finally(() => setup.stop());
    // The two configurations alternate round by round (rotated order), so that load from elsewhere hits both.
    const configurations = [0, options.watchers];
    const measured = new Map(configurations.map((w) => [w, { runs: [] as WriterResult[], delivered: [] as number[], serverCpu: [] as number[] }]));
    for (let run = 0; run < options.runs; run++) {
      for (const watchers of rotatedOrder(configurations, run)) {
        const m = measured.get(watchers)!;
        const watching = watchers > 0 ? BenchChild.start(WATCHERS_MAIN, { url: info.url, watchers } satisfies WatchersInput, { timeoutMs: 600_000, label: 'watchers' }) : undefined;
        try {
          await watching?.ready();
          const cpuBefore = await server.command<number>('cpu');
          const writer = BenchChild.start(WRITER_MAIN, { url: info.url, mode: 'max', objects: OBJECTS, writes: options.writes, concurrency: CONCURRENCY, maxSeconds: 120, warmupWrites: Math.min(2000, options.writes) } satisfies WriterInput, {
            timeoutMs: 300_000,
            label: 'writer',
          });
          const written = await writer.result<WriterResult>().finally(() => writer.stop());
          if (written.failures > 0) throw new Error(`writer: ${written.failures} of ${written.writes} writes failed`);
          m.runs.push(written);
          if (watching) {
            const counts = await watching.command<WatchersResult>({ events: written.totalWrites, timeoutMs: 30_000 } satisfies AwaitEvents);
            m.delivered.push(Math.min(...counts.events) / written.totalWrites);
          }
          m.serverCpu.push((((await server.command<number>('cpu')) - cpuBefore) / written.totalWrites) * 1e6);
          options.log(`  ${watchers} watchers, run ${run + 1}/${options.runs}: ${formatInt(written.writesPerSecond)} writes/s`);
        } finally {
          await watching?.stop();
        }
      }
    }
    for (const watchers of configurations) {
      const { runs, delivered, serverCpu } = measured.get(watchers)!;
      throughput.push({
        watchers,
        writesPerSecond: median(runs.map((r) => r.writesPerSecond)),
        writeP50Ms: median(runs.map((r) => r.latencyP50Ms)),
        writeP99Ms: median(runs.map((r) => r.latencyP99Ms)),
        deliveredPerWrite: watchers > 0 ? median(delivered) : NaN,
        serverCpuMicrosPerWrite: median(serverCpu),
        runs,
      });
    }
  } finally {
    await server.stop();
  }
  const alone = throughput.find((t) => t.watchers === 0);
  const notes: string[] = [
    'The writer, the watchers and the server are three processes on the same cores: with watchers attached, part of the drop in writes/s is the watchers\' own CPU. The server CPU per write is its own cost.',
  ];
  for (const t of throughput) {
    if (t.watchers > 0 && t.deliveredPerWrite < 1) notes.push(`With ${t.watchers} watchers, the slowest watcher received ${formatFixed(t.deliveredPerWrite * 100, 1)}% of the events within 30 s.`);
  }
  return {
    id: 'apiserver',
    title: '5. Embedded API server',
    setup: `Start-up: median of ${options.starts} fresh processes (import, startApiServer() until listening, first list answered: import ${formatMillis(startup.importMs)}, start ${formatMillis(startup.startMs)}, first request ${formatMillis(startup.firstRequestMs)}). Throughput: ${formatInt(options.writes)} merge patches of ~1 KB ConfigMaps, ${CONCURRENCY} in flight, from another process, after as many (at most 2,000) untimed warm-up writes; ${options.runs} rounds, with and without watchers alternating; median [min, max] of the rounds.`,
    columns: ['Watchers attached', 'writes/s', 'vs no watcher', 'write p50', 'write p99', 'server CPU us / write', 'events delivered / write'],
    rows: throughput.map((t) => [
      String(t.watchers),
      formatSpread(spread(t.runs.map((r) => r.writesPerSecond)), formatInt),
      formatRatio(t.writesPerSecond / (alone?.writesPerSecond ?? NaN)),
      formatMillis(t.writeP50Ms),
      formatSpread(spread(t.runs.map((r) => r.latencyP99Ms)), formatMillis),
      formatInt(t.serverCpuMicrosPerWrite),
      t.watchers > 0 ? formatFixed(t.deliveredPerWrite, 3) : '',
    ]),
    notes,
    chart: {
      title: '5. Embedded API server',
      subtitle: `merge patches per second, ${CONCURRENCY} in flight; start-up ${formatMillis(startup.importMs + startup.startMs)} (import + start)`,
      bars: throughput.map((t) => ({ label: `${t.watchers} watchers`, value: t.writesPerSecond, emphasis: true })),
    },
    data: { startup, throughput },
  };
}
