/**
 * Scenario 4, end-to-end latency: a writer child merge-patches ConfigMaps of the embedded API server at a
 * fixed rate, stamping each write with its send time; a consumer child (kubeloop or client-node's informer,
 * one at a time, same server, same write schedule) records how long each object took to reach its handler.
 * Many short rounds, the order rotated every round, so that a burst of load from elsewhere lands on both
 * consumers; each round's p99 is one repetition, reported as min, median and max, and the ratio against
 * client-node is taken within each round as well as between the medians.
 */
import { BenchChild } from '../child-process.js';
import type { ConsumerName } from '../consumers/consumer.js';
import type { ConsumerResult, FinishCommand } from '../consumers/consumer-main.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { formatFixed, formatInt, formatMillis, formatRatio, formatSpread } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import type { ApiServerChildInput, ApiServerServing } from '../servers/apiserver-main.js';
import { median, ratio, rotatedOrder, spread, type Spread } from '../stats.js';
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

/** Figures of one consumer: min, median and max of the rounds' figures. */
export interface LatencyFigures {
  consumer: ConsumerName;
  p50Ms: Spread;
  p99Ms: Spread;
  maxMs: Spread;
  /** This consumer's p99 divided by client-node's p99 of the same round, per round. */
  p99VsClientNode: Spread;
  /** Rounds in which this consumer's p99 was below client-node's. */
  roundsBelowClientNode: number;
  /** Handler calls that carried a write of this run, per write sent; median. */
  seenPerWrite: number;
  /** Consumer CPU milliseconds per write during the run. */
  cpuMsPerWrite: Spread;
  runs: ConsumerResult[];
}

/** Machine-readable outcome of scenario 4. */
export interface LatencyData {
  rate: number;
  seconds: number;
  writes: number;
  runs: number;
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
      for (const consumer of rotatedOrder(CONSUMERS, round)) {
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

    const p99s = (consumer: ConsumerName): number[] => results.get(consumer)!.map((r) => r.latency!.p99Ms);
    const consumers = CONSUMERS.map((consumer): LatencyFigures => {
      const runs = results.get(consumer)!;
      const paired = p99s(consumer).map((p99, round) => ratio(p99, p99s('client-node')[round]));
      return {
        consumer,
        p50Ms: spread(runs.map((r) => r.latency!.p50Ms)),
        p99Ms: spread(runs.map((r) => r.latency!.p99Ms)),
        maxMs: spread(runs.map((r) => r.latency!.maxMs)),
        p99VsClientNode: spread(paired),
        roundsBelowClientNode: paired.filter((x) => x < 1).length,
        seenPerWrite: median(runs.map((r) => r.latency!.samples / writes)),
        cpuMsPerWrite: spread(runs.map((r) => (r.watchCpuSeconds * 1000) / writes)),
        runs,
      };
    });
    const cn = consumers.find((c) => c.consumer === 'client-node');
    const kubeloop = consumers.find((c) => c.consumer === 'kubeloop');
    const writeP50Ms = median(writerRuns.map((w) => w.latencyP50Ms));
    const writeP99Ms = median(writerRuns.map((w) => w.latencyP99Ms));
    return {
      id: 'latency',
      title: '4. End-to-end latency',
      setup:
        `${formatInt(writes)} merge patches per round at ${formatInt(options.rate)} writes/s over ${OBJECTS} ConfigMaps of the embedded API server; time from sending the PATCH to the handler call; ` +
        `${options.runs} measured rounds after ${options.warmups} warm-up round(s), one consumer at a time, the order rotated every round; each figure is median [min, max] of the rounds' figures ` +
        `(the server's own PATCH round trip: p50 ${formatMillis(writeP50Ms)}, p99 ${formatMillis(writeP99Ms)}).`,
      columns: ['Consumer', 'p50', 'p99', 'max', 'p99 vs client-node, medians', 'same round', 'rounds with the lower p99', 'writes seen', 'consumer CPU ms / write'],
      rows: consumers.map((c) => [
        CONSUMER_LABELS[c.consumer],
        formatSpread(c.p50Ms, formatMillis),
        formatSpread(c.p99Ms, formatMillis),
        formatSpread(c.maxMs, formatMillis),
        formatRatio(ratio(c.p99Ms.median, cn?.p99Ms.median)),
        formatSpread(c.p99VsClientNode, formatRatio),
        c.consumer === 'client-node' ? formatInt(options.runs - (kubeloop?.roundsBelowClientNode ?? 0)) : formatInt(c.roundsBelowClientNode),
        `${formatFixed(c.seenPerWrite * 100, 1)}%`,
        formatSpread(c.cpuMsPerWrite, (n) => formatFixed(n, 3)),
      ]),
      notes: consumers.filter((c) => c.seenPerWrite < 0.999).map((c) => `${CONSUMER_SHORT[c.consumer]} saw ${formatFixed(c.seenPerWrite * 100, 1)}% of the writes (the rest were coalesced or missed).`),
      chart: {
        title: '4. End-to-end latency (p99)',
        subtitle: `write -> handler milliseconds, median of ${options.runs} rounds, at ${formatInt(options.rate)} writes/s, lower is better`,
        bars: consumers.flatMap((c) => [
          { label: `${CONSUMER_SHORT[c.consumer]} p50`, value: c.p50Ms.median, emphasis: c.consumer === 'kubeloop' },
          { label: `${CONSUMER_SHORT[c.consumer]} p99`, value: c.p99Ms.median, emphasis: c.consumer === 'kubeloop' },
        ]),
        format: (v) => formatMillis(v),
      },
      data: { rate: options.rate, seconds: options.seconds, writes, runs: options.runs, writeP50Ms, writeP99Ms, consumers },
    };
  } finally {
    await server.stop();
  }
}
