/**
 * Scenario 1, watch ingest: one stream server child serves N MODIFIED events over 1k objects; each consumer
 * child lists, then consumes the watch until the last event. Events/s, CPU seconds per 100k events and heap
 * after GC, medians of the measured runs, as ratios against the raw baseline and client-node.
 */
import { createRequire } from 'node:module';
import { BenchChild } from '../child-process.js';
import type { ConsumerName } from '../consumers/consumer.js';
import type { ConsumerResult } from '../consumers/consumer-main.js';
import type { JsonParseOnlyResult } from '../consumers/json-parse-only-main.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { formatBytes, formatFixed, formatInt, formatRatio } from '../report/format.js';
import type { ScenarioReport } from '../report/scenario-report.js';
import type { StreamServerInfo, StreamServerStats } from '../servers/stream-server.js';
import { median, ratio } from '../stats.js';
import { CONSUMER_LABELS, CONSUMER_SHORT, runRounds } from './consumer-runs.js';

const STREAM_SERVER = new URL('../servers/stream-server.js', import.meta.url);
const JSON_PARSE_ONLY = new URL('../consumers/json-parse-only-main.js', import.meta.url);
/** Consumers that measure one stage of kubeloop's path: in the table, not in the chart. */
const STAGES = new Set<ConsumerName>(['kubeloop-watch', 'kubeloop-informer']);

/** Options of scenario 1. */
export interface WatchIngestOptions {
  events: number;
  objects: number;
  warmups: number;
  runs: number;
  seed: number;
  log: (line: string) => void;
  /** Extra node flags for consumer children. Default: none. */
  execArgv?: readonly string[] | undefined;
  /** Only these consumers. Default: all. */
  only?: readonly string[] | undefined;
}

/** Median figures of one consumer. */
export interface IngestFigures {
  consumer: ConsumerName;
  available: boolean;
  /** Why the consumer could not be driven. */
  unavailableReason?: string | undefined;
  eventsPerSecond: number;
  cpuSecondsPer100k: number;
  heapAfterGcBytes: number;
  /** Heap after GC minus the same process before the consumer started (libraries loaded): what the consumer holds. */
  heapHeldBytes: number;
  maxRssBytes: number;
  /** Handler calls per stream event (below 1 when a consumer coalesces queued updates). */
  handlerCallsPerEvent: number;
  runs: ConsumerResult[];
}

/** Machine-readable outcome of scenario 1. */
export interface WatchIngestData {
  events: number;
  objects: number;
  meanObjectBytes: number;
  runs: number;
  warmups: number;
  consumers: IngestFigures[];
  jsonParseOnly: { eventsPerSecond: number; cpuSecondsPer100k: number } | undefined;
  server: StreamServerStats;
}

/** Why a consumer cannot be run at all on this machine, or undefined when it can. */
function unavailable(consumer: ConsumerName): string | undefined {
  if (consumer !== 'dot-i') return undefined;
  try {
    createRequire(import.meta.url).resolve('@dot-i/k8s-operator');
    return undefined;
  } catch {
    return '@dot-i/k8s-operator is not installed (npm install -w tools/bench)';
  }
}

function figures(consumer: ConsumerName, runs: ConsumerResult[], events: number, objects: number): IngestFigures {
  const per = runs.map((r) => {
    const consumed = events + (r.watchesFromScratch ? objects : 0);
    return {
      eps: consumed / r.watchSeconds,
      cpu: (r.watchCpuSeconds / consumed) * 1e5,
      heap: r.heapAfterGcBytes,
      held: r.heapAfterGcBytes - r.emptyHeapBytes,
      rss: r.maxRssBytes,
      calls: r.handlerCalls / consumed,
    };
  });
  return {
    consumer,
    available: true,
    eventsPerSecond: median(per.map((p) => p.eps)),
    cpuSecondsPer100k: median(per.map((p) => p.cpu)),
    heapAfterGcBytes: median(per.map((p) => p.heap)),
    heapHeldBytes: median(per.map((p) => p.held)),
    maxRssBytes: median(per.map((p) => p.rss)),
    handlerCallsPerEvent: median(per.map((p) => p.calls)),
    runs,
  };
}

/** Runs scenario 1. */
export async function runWatchIngest(options: WatchIngestOptions): Promise<ScenarioReport<WatchIngestData>> {
  const { events, objects, log } = options;
  const consumers = (['raw', 'kubeloop', 'kubeloop-watch', 'kubeloop-informer', 'client-node', 'dot-i'] as const).filter((c) => !options.only || options.only.includes(c));
  const server = BenchChild.start(STREAM_SERVER, { objects, events, seed: options.seed }, { timeoutMs: 60 * 60_000, label: 'stream server' });
  try {
    const info = await server.ready<StreamServerInfo>();
    log(`  stream: ${formatInt(events)} events, ${formatInt(objects)} objects of ${formatInt(info.meanObjectBytes)} B, generated in ${info.generateSeconds.toFixed(1)} s`);
    const kubeconfigPath = writeKubeconfig(info.url);
    const runnable = consumers.filter((c) => unavailable(c) === undefined);
    const results = await runRounds({
      consumers: runnable,
      warmups: options.warmups,
      runs: options.runs,
      timeoutMs: 60_000 + events, // at least 1,000 events/s
      log,
      execArgv: options.execArgv,
      input: (consumer) => ({
        consumer,
        mode: 'ingest',
        serverUrl: info.url,
        kubeconfigPath,
        markerResourceVersion: info.markerResourceVersion,
        objects,
      }),
    });
    const stats = await server.command<StreamServerStats>('stats');

    const parseChild = BenchChild.start(JSON_PARSE_ONLY, { objects, events, seed: options.seed }, { timeoutMs: 10 * 60_000, label: 'JSON.parse only' });
    const parsed = await parseChild.result<JsonParseOnlyResult>();
    await parseChild.stop();

    const all = consumers.map((c): IngestFigures => {
      const reason = unavailable(c);
      if (reason !== undefined) {
        return { consumer: c, available: false, unavailableReason: reason, eventsPerSecond: NaN, cpuSecondsPer100k: NaN, heapAfterGcBytes: NaN, heapHeldBytes: NaN, maxRssBytes: NaN, handlerCallsPerEvent: NaN, runs: [] };
      }
      return figures(c, results.get(c)!, events, objects);
    });
    const raw = all.find((f) => f.consumer === 'raw');
    const cn = all.find((f) => f.consumer === 'client-node');
    const rows = all.map((f) => [
      CONSUMER_LABELS[f.consumer],
      f.available ? formatInt(f.eventsPerSecond) : `not run: ${f.unavailableReason}`,
      formatRatio(ratio(f.eventsPerSecond, raw?.eventsPerSecond)),
      formatRatio(ratio(f.eventsPerSecond, cn?.eventsPerSecond)),
      formatFixed(f.cpuSecondsPer100k, 2),
      formatRatio(ratio(f.cpuSecondsPer100k, raw?.cpuSecondsPer100k)),
      formatBytes(f.heapAfterGcBytes),
      formatBytes(f.heapHeldBytes),
      formatBytes(f.maxRssBytes),
      formatFixed(f.handlerCallsPerEvent, 2),
    ]);
    const jsonParseOnly = { eventsPerSecond: parsed.events / parsed.seconds, cpuSecondsPer100k: (parsed.cpuSeconds / parsed.events) * 1e5 };
    rows.push([
      'JSON.parse alone, no I/O (ceiling)',
      formatInt(jsonParseOnly.eventsPerSecond),
      formatRatio(ratio(jsonParseOnly.eventsPerSecond, raw?.eventsPerSecond)),
      formatRatio(ratio(jsonParseOnly.eventsPerSecond, cn?.eventsPerSecond)),
      formatFixed(jsonParseOnly.cpuSecondsPer100k, 2),
      formatRatio(ratio(jsonParseOnly.cpuSecondsPer100k, raw?.cpuSecondsPer100k)),
      '',
      '',
      '',
      '',
    ]);
    const notes: string[] = [];
    const expectedWatches = runnable.length * (options.warmups + options.runs);
    if (stats.watches !== expectedWatches) notes.push(`The server saw ${stats.watches} watch requests for ${expectedWatches} consumer runs: some consumer reconnected.`);
    if (all.some((f) => f.consumer === 'dot-i' && f.available)) {
      notes.push(`@dot-i/k8s-operator cannot list or resume: it watches from resourceVersion '' and so first receives ${formatInt(objects)} ADDED events; they are counted in its events/s.`);
    }
    const stage = (c: ConsumerName): IngestFigures | undefined => all.find((f) => f.consumer === c && f.available);
    const watchOnly = stage('kubeloop-watch');
    const informerOnly = stage('kubeloop-informer');
    const full = stage('kubeloop');
    if (watchOnly && informerOnly && full && raw) {
      const us = (cpu: number): string => formatFixed(cpu * 10, 1); // CPU-s per 100k events -> microseconds per event
      notes.push(
        `Where kubeloop's CPU goes, per event: Client.watch (HTTP, line split, JSON.parse, async iteration) ${us(watchOnly.cpuSecondsPer100k)} us ` +
          `(raw baseline ${us(raw.cpuSecondsPer100k)} us), the informer adds ${us(informerOnly.cpuSecondsPer100k - watchOnly.cpuSecondsPer100k)} us, ` +
          `the InformerController (per-object queue, metrics, spans, async handler calls) adds ${us(full.cpuSecondsPer100k - informerOnly.cpuSecondsPer100k)} us.`,
      );
    }
    for (const f of all) {
      if (f.available && f.handlerCallsPerEvent < 0.99) {
        notes.push(`${CONSUMER_SHORT[f.consumer]} called its handler ${formatFixed(f.handlerCallsPerEvent, 2)} times per event: queued updates of one object were coalesced.`);
      }
    }
    return {
      id: 'watch-ingest',
      title: '1. Watch ingest',
      setup: `${formatInt(events)} MODIFIED events over ${formatInt(objects)} ConfigMaps of ${formatInt(info.meanObjectBytes)} B (with managedFields), one HTTP chunk per event; median of ${options.runs} runs after ${options.warmups} warm-up round(s); each consumer in its own process.`,
      columns: ['Consumer', 'events/s', 'vs raw', 'vs client-node', 'CPU s / 100k events', 'CPU vs raw', 'heap after GC', 'of which held', 'peak RSS', 'handler calls / event'],
      rows,
      notes,
      chart: {
        title: '1. Watch ingest throughput',
        subtitle: `events per second, higher is better (${formatInt(events)} events, ${formatInt(info.meanObjectBytes)} B objects)`,
        bars: [
          ...all.filter((f) => !STAGES.has(f.consumer)).map((f) => ({ label: CONSUMER_SHORT[f.consumer], value: f.eventsPerSecond, emphasis: f.consumer === 'kubeloop' })),
          { label: 'JSON.parse alone', value: jsonParseOnly.eventsPerSecond },
        ],
      },
      data: { events, objects, meanObjectBytes: info.meanObjectBytes, runs: options.runs, warmups: options.warmups, consumers: all, jsonParseOnly, server: stats },
    };
  } finally {
    await server.stop();
  }
}
