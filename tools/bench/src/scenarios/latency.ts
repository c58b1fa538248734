/**
 * Scenario 4, end-to-end latency: a writer child merge-patches ConfigMaps of the embedded API server at a
 * fixed rate, stamping each write with its send time; a consumer child (kubeloop or client-node's informer,
 * one at a time, same server, same writes) records how long each object took to reach its handler.
 */
import { BenchChild } from '../child-process.js';
import type { ConsumerName } from '../consumers/consumer.js';
import type { ConsumerResult, FinishCommand } from '../consumers/consumer-main.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { formatFixed, formatInt, formatMillis, formatRatio } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import type { ApiServerChildInput, ApiServerServing } from '../servers/apiserver-main.js';
import { median, ratio } from '../stats.js';
import type { WriterInput, WriterResult } from '../writer-main.js';
import { CONSUMER_LABELS, CONSUMER_SHORT } from './consumer-runs.js';

const APISERVER_MAIN = new URL('../servers/apiserver-main.js', import.meta.url);
const CONSUMER_MAIN = new URL('../consumers/consumer-main.js', import.meta.url);
const WRITER_MAIN = new URL('../writer-main.js', import.meta.url);

/** Objects the writer cycles through. */
const OBJECTS = 100;

/** Options of scenario 4. */
export interface LatencyOptions {
  rate: number;
  seconds: number;
  runs: number;
  /** Discarded rounds before the measured ones. */
  warmups: number;
  log: (line: string) => void;
  /** Extra node flags for the consumer children. Default: none. */
  execArgv?: readonly string[] | undefined;
}

/** Median figures of one consumer. */
export interface LatencyFigures {
  consumer: ConsumerName;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Handler calls that carried a write of this run, per write sent. */
  seenPerWrite: number;
  /** Consumer CPU milliseconds per write during the run. */
  cpuMsPerWrite: number;
  runs: ConsumerResult[];
}

/** Machine-readable outcome of scenario 4. */
export interface LatencyData {
  rate: number;
  seconds: number;
  writes: number;
  /** Median server round trip of the writes (PATCH sent -> 200 received). */
  writeP50Ms: number;
  writeP99Ms: number;
  consumers: LatencyFigures[];
}

const CONSUMERS: ConsumerName[] = ['kubeloop', 'client-node'];

/** Runs scenario 4. */
export async function runLatency(options: LatencyOptions): Promise<ScenarioReport<LatencyData>> {
  const server = BenchChild.start(APISERVER_MAIN, { mode: 'serve' } satisfies ApiServerChildInput, { timeoutMs: 60 * 60_000, label: 'apiserver' });
  try {
    const info = await server.ready<ApiServerServing>();
    const kubeconfigPath = writeKubeconfig(info.url);
    // Objects, then a burst of writes nobody watches, so that the server is warm for the first consumer.
    const setup = BenchChild.start(WRITER_MAIN, { url: info.url, mode: 'setup', objects: OBJECTS, writes: 0 } satisfies WriterInput, { timeoutMs: 120_000, label: 'writer setup' });
    await setup.result<WriterResult>().finally(() => setup.stop());
    const warm = BenchChild.start(WRITER_MAIN, { url: info.url, mode: 'max', objects: OBJECTS, writes: 1000 } satisfies WriterInput, { timeoutMs: 300_000, label: 'writer warm-up' });
    await warm.result<WriterResult>().finally(() => warm.stop());

    const writes = Math.round(options.rate * options.seconds);
    const results = new Map<ConsumerName, ConsumerResult[]>(CONSUMERS.map((c) => [c, []]));
    const writerRuns: WriterResult[] = [];
    for (let round = 0; round < options.warmups + options.runs; round++) {
      const run = round - options.warmups;
      for (const consumer of round % 2 === 0 ? CONSUMERS : [...CONSUMERS].reverse()) {
        const child = BenchChild.start(
          CONSUMER_MAIN,
          { consumer, mode: 'latency', serverUrl: info.url, kubeconfigPath, markerResourceVersion: '', objects: OBJECTS },
          { timeoutMs: options.seconds * 1000 + 120_000, label: `consumer ${consumer} (latency)`, execArgv: options.execArgv },
        );
        try {
          await child.ready();
          const writer = BenchChild.start(WRITER_MAIN, { url: info.url, mode: 'rate', objects: OBJECTS, writes, rate: options.rate, maxSeconds: options.seconds * 3 } satisfies WriterInput, {
            timeoutMs: options.seconds * 3000 + 60_000,
            label: 'writer',
          });
          const written = await writer.result<WriterResult>().finally(() => writer.stop());
          if (written.failures > 0) throw new Error(`writer: ${written.failures} of ${written.writes} writes failed`);
          await child.command<number>({ lastSeq: written.writes - 1, timeoutMs: 10_000 } satisfies FinishCommand);
          const result = await child.result<ConsumerResult>();
          if (run >= 0) {
            writerRuns.push(written);
            results.get(consumer)!.push(result);
          }
          options.log(`  ${run < 0 ? 'warm-up' : `run ${run + 1}/${options.runs}`} ${consumer}: p50 ${formatMillis(result.latency!.p50Ms)}, p99 ${formatMillis(result.latency!.p99Ms)}, ${result.latency!.samples} of ${written.writes} writes seen`);
        } finally {
          await child.stop();
        }
      }
    }

    const consumers = CONSUMERS.map((consumer): LatencyFigures => {
      const runs = results.get(consumer)!;
      return {
        consumer,
        p50Ms: median(runs.map((r) => r.latency!.p50Ms)),
        p99Ms: median(runs.map((r) => r.latency!.p99Ms)),
        maxMs: median(runs.map((r) => r.latency!.maxMs)),
        seenPerWrite: median(runs.map((r) => r.latency!.samples / writes)),
        cpuMsPerWrite: median(runs.map((r) => (r.watchCpuSeconds * 1000) / writes)),
        runs,
      };
    });
    const cn = consumers.find((c) => c.consumer === 'client-node');
    const writeP50Ms = median(writerRuns.map((w) => w.latencyP50Ms));
    const writeP99Ms = median(writerRuns.map((w) => w.latencyP99Ms));
    return {
      id: 'latency',
      title: '4. End-to-end latency',
      setup: `${formatInt(writes)} merge patches at ${formatInt(options.rate)} writes/s over ${OBJECTS} ConfigMaps of the embedded API server; time from sending the PATCH to the handler call; median of ${options.runs} runs per consumer after ${options.warmups} warm-up round(s) (the server's own PATCH round trip: p50 ${formatMillis(writeP50Ms)}, p99 ${formatMillis(writeP99Ms)}).`,
      columns: ['Consumer', 'p50', 'p99', 'max', 'p99 vs client-node', 'writes seen', 'consumer CPU ms / write'],
      rows: consumers.map((c) => [
        CONSUMER_LABELS[c.consumer],
        formatMillis(c.p50Ms),
        formatMillis(c.p99Ms),
        formatMillis(c.maxMs),
        formatRatio(ratio(c.p99Ms, cn?.p99Ms)),
        `${formatFixed(c.seenPerWrite * 100, 1)}%`,
        formatFixed(c.cpuMsPerWrite, 3),
      ]),
      notes: consumers.filter((c) => c.seenPerWrite < 0.999).map((c) => `${CONSUMER_SHORT[c.consumer]} saw ${formatFixed(c.seenPerWrite * 100, 1)}% of the writes (the rest were coalesced or missed).`),
      chart: {
        title: '4. End-to-end latency (p99)',
        subtitle: `write -> handler, p99 milliseconds at ${formatInt(options.rate)} writes/s, lower is better`,
        bars: consumers.flatMap((c) => [
          { label: `${CONSUMER_SHORT[c.consumer]} p50`, value: c.p50Ms, emphasis: c.consumer === 'kubeloop' },
          { label: `${CONSUMER_SHORT[c.consumer]} p99`, value: c.p99Ms, emphasis: c.consumer === 'kubeloop' },
        ]),
        format: (v) => formatMillis(v),
      },
      data: { rate: options.rate, seconds: options.seconds, writes, writeP50Ms, writeP99Ms, consumers },
    };
  } finally {
    await server.stop();
  }
}
