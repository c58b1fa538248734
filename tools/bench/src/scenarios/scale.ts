/**
 * Scenario 7, scale: a large cache under a steady stream (goal 3 of issue 14). The stream server holds
 * `objects` ConfigMaps and, once a consumer has listed them all and its handler has seen every one, sends
 * MODIFIED events over them at a fixed rate, each stamped with the time it was written. kubeloop (informer
 * -> controller, managedFields stripped) and client-node's makeInformer, one at a time, the order rotated
 * every round, on the same pre-generated stream: heap after GC (after the list, after the stream), CPU per
 * event, event-to-handler latency.
 */
import { BenchChild } from '../child-process.js';
import type { ConsumerName } from '../consumers/consumer.js';
import type { ConsumerResult } from '../consumers/consumer-main.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { formatBytes, formatFixed, formatInt, formatMillis, formatRatio, formatSpread } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import type { PacedStreamStats, StreamServerCommand, StreamServerInfo, StreamServerInput, StreamServerStats } from '../servers/stream-server.js';
import { median, ratio, rotatedOrder, spread, type Spread } from '../stats.js';
import { CONSUMER_LABELS, CONSUMER_SHORT, runConsumerUntilReady } from './consumer-runs.js';

const STREAM_SERVER = new URL('../servers/stream-server.js', import.meta.url);

/** Options of scenario 7. */
export interface ScaleOptions {
  /** Objects in the cache. */
  objects: number;
  /** Events per second. */
  rate: number;
  /** Seconds of events. */
  seconds: number;
  runs: number;
  seed: number;
  log: (line: string) => void;
  /** Extra node flags for the consumer children. Default: none. */
  execArgv?: readonly string[] | undefined;
}

/** Figures of one consumer: min, median and max of the rounds. */
export interface ScaleFigures {
  consumer: ConsumerName;
  /** Heap after GC minus the empty process, once the list is cached and handled. */
  heapHeldAfterListBytes: Spread;
  /** The same at the end of the stream. */
  heapHeldAfterStreamBytes: Spread;
  maxRssBytes: Spread;
  /** CPU microseconds per event, from the first event's start to the last event's handler call. */
  cpuMicrosPerEvent: Spread;
  /** Percent of one core used during the stream. */
  corePercent: Spread;
  p50Ms: Spread;
  p99Ms: Spread;
  maxMs: Spread;
  /** This consumer's p99 over client-node's p99 of the same round, per round. */
  p99VsClientNode: Spread;
  /** Rounds in which this consumer's p99 was below client-node's. */
  roundsBelowClientNode: number;
  /** Handler calls with a stamped event, per event sent; median. */
  seenPerEvent: number;
  runs: ConsumerResult[];
}

/** Machine-readable outcome of scenario 7. */
export interface ScaleData {
  objects: number;
  rate: number;
  seconds: number;
  events: number;
  runs: number;
  meanObjectBytes: number;
  consumers: ScaleFigures[];
  /** The server's own lateness against the schedule, per run. */
  server: PacedStreamStats[];
}

const CONSUMERS: ConsumerName[] = ['kubeloop-strip', 'client-node'];

/** Runs scenario 7. */
export async function runScale(options: ScaleOptions): Promise<ScenarioReport<ScaleData>> {
  const { objects, rate, seconds, log } = options;
  const events = Math.round(rate * seconds);
  const input: StreamServerInput = { objects, events, seed: options.seed, sentAtPlaceholder: true, pacedRate: rate };
  const server = BenchChild.start(STREAM_SERVER, input, { timeoutMs: 60 * 60_000, label: 'stream server (paced)' });
  try {
    const info = await server.ready<StreamServerInfo>();
    log(`  ${formatInt(objects)} objects of ${formatInt(info.meanObjectBytes)} B (list ${formatBytes(info.listBytes)}), ${formatInt(events)} events at ${formatInt(rate)}/s, generated in ${info.generateSeconds.toFixed(1)} s`);
    const kubeconfigPath = writeKubeconfig(info.url);
    const results = new Map<ConsumerName, ConsumerResult[]>(CONSUMERS.map((c) => [c, []]));
    const paced: PacedStreamStats[] = [];
    for (let round = 0; round < options.runs; round++) {
      for (const consumer of rotatedOrder(CONSUMERS, round)) {
        const result = await runConsumerUntilReady(
          { consumer, mode: 'scale', serverUrl: info.url, kubeconfigPath, markerResourceVersion: info.markerResourceVersion, objects },
          { timeoutMs: 600_000 + seconds * 3000, execArgv: options.execArgv, whenReady: () => server.command<undefined>('start' satisfies StreamServerCommand) },
        );
        const stats = await server.command<StreamServerStats>('stats' satisfies StreamServerCommand);
        if (stats.paced) paced.push(stats.paced);
        results.get(consumer)!.push(result);
        log(
          `  run ${round + 1}/${options.runs} ${consumer}: list ${result.listSeconds.toFixed(1)} s, ${((result.watchCpuSeconds / events) * 1e6).toFixed(1)} CPU us/event, ` +
            `p99 ${formatMillis(result.latency!.p99Ms)}, heap held ${formatBytes(result.heapAfterGcBytes - result.emptyHeapBytes)}`,
        );
      }
    }

    const p99s = (c: ConsumerName): number[] => results.get(c)!.map((r) => r.latency!.p99Ms);
    const consumers = CONSUMERS.map((consumer): ScaleFigures => {
      const runs = results.get(consumer)!;
      const paired = p99s(consumer).map((p99, round) => ratio(p99, p99s('client-node')[round]));
      return {
        consumer,
        heapHeldAfterListBytes: spread(runs.map((r) => (r.syncedHeapAfterGcBytes ?? NaN) - r.emptyHeapBytes)),
        heapHeldAfterStreamBytes: spread(runs.map((r) => r.heapAfterGcBytes - r.emptyHeapBytes)),
        maxRssBytes: spread(runs.map((r) => r.maxRssBytes)),
        cpuMicrosPerEvent: spread(runs.map((r) => (r.watchCpuSeconds / events) * 1e6)),
        corePercent: spread(runs.map((r) => (r.watchCpuSeconds / r.watchSeconds) * 100)),
        p50Ms: spread(runs.map((r) => r.latency!.p50Ms)),
        p99Ms: spread(p99s(consumer)),
        maxMs: spread(runs.map((r) => r.latency!.maxMs)),
        p99VsClientNode: spread(paired),
        roundsBelowClientNode: paired.filter((x) => x < 1).length,
        seenPerEvent: median(runs.map((r) => r.latency!.samples / events)),
        runs,
      };
    });
    const cn = consumers.find((c) => c.consumer === 'client-node');
    const ms = (s: Spread): string => formatSpread(s, formatMillis);
    const notes = [
      `client-node's informer has no transform hook, so it caches the objects as received, managedFields included; kubeloop strips them (\`transform: stripManagedFields\`), as the issue's scenario asks. The heap columns compare what each caches as its users would run it.`,
      `CPU per event counts everything the consumer process did while the stream ran (timers, garbage collection of the ${formatInt(objects)}-object heap), divided by the events sent.`,
    ];
    for (const c of consumers) {
      if (c.seenPerEvent < 0.999) notes.push(`${CONSUMER_SHORT[c.consumer]} handled ${formatFixed(c.seenPerEvent * 100, 1)}% of the events (the rest were coalesced).`);
    }
    if (paced.length > 0) {
      notes.push(
        `The server's own delay against the schedule: p99 ${formatMillis(median(paced.map((p) => p.lateP99Ms)))} (median of the runs), max ${formatMillis(Math.max(...paced.map((p) => p.lateMaxMs)))}; ` +
          `at most ${formatBytes(Math.max(...paced.map((p) => p.maxBufferedBytes)))} waited in a socket buffer (a consumer falling behind would show here). Latency is measured from the moment a line was written, so server delay is not counted.`,
      );
    }
    return {
      id: 'scale',
      title: '7. Scale: a large cache under a steady stream',
      setup:
        `${formatInt(objects)} cached ConfigMaps of ${formatInt(info.meanObjectBytes)} B, then ${formatInt(events)} MODIFIED events at ${formatInt(rate)} events/s for ${formatInt(seconds)} s from the paced stream server, ` +
        `each stamped when written; ${options.runs} round(s), one consumer at a time, the order rotated every round; median [min, max] of the rounds.`,
      columns: ['Consumer', 'heap held after list', 'heap held after stream', 'vs client-node', 'peak RSS', 'CPU us / event', 'CPU vs client-node', '% of a core', 'p50', 'p99', 'p99 vs client-node, medians', 'same round', 'max'],
      rows: consumers.map((c) => [
        CONSUMER_LABELS[c.consumer],
        formatSpread(c.heapHeldAfterListBytes, formatBytes),
        formatSpread(c.heapHeldAfterStreamBytes, formatBytes),
        formatRatio(ratio(c.heapHeldAfterStreamBytes.median, cn?.heapHeldAfterStreamBytes.median)),
        formatSpread(c.maxRssBytes, formatBytes),
        formatSpread(c.cpuMicrosPerEvent, (n) => formatFixed(n, 1)),
        formatRatio(ratio(c.cpuMicrosPerEvent.median, cn?.cpuMicrosPerEvent.median)),
        formatSpread(c.corePercent, (n) => formatFixed(n, 1)),
        ms(c.p50Ms),
        ms(c.p99Ms),
        formatRatio(ratio(c.p99Ms.median, cn?.p99Ms.median)),
        formatSpread(c.p99VsClientNode, formatRatio),
        ms(c.maxMs),
      ]),
      notes,
      chart: {
        title: '7. Scale: CPU per event with a large cache',
        subtitle: `CPU microseconds per event, ${formatInt(objects)} cached objects, ${formatInt(rate)} events/s, lower is better`,
        bars: consumers.map((c) => ({ label: CONSUMER_SHORT[c.consumer], value: c.cpuMicrosPerEvent.median, emphasis: c.consumer !== 'client-node' })),
        format: (v) => `${v.toFixed(1)} us`,
      },
      data: { objects, rate, seconds, events, runs: options.runs, meanObjectBytes: info.meanObjectBytes, consumers, server: paced },
    };
  } finally {
    await server.stop();
  }
}
