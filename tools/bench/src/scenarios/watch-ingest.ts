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
import { formatBytes, formatFixed, formatInt, formatRatio, formatSpread } from '../report/format.js';
import type { ScenarioReport, ScenarioTable } from '../report/scenario-report.js';
import type { StreamServerInfo, StreamServerStats } from '../servers/stream-server.js';
import { median, ratio, scaleSpread, spread, type Spread } from '../stats.js';
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

/** Figures of one consumer: min, median and max of the measured runs. */
export interface IngestFigures {
  consumer: ConsumerName;
  available: boolean;
  /** Why the consumer could not be driven. */
  unavailableReason?: string | undefined;
  eventsPerSecond: Spread;
  cpuSecondsPer100k: Spread;
  heapAfterGcBytes: Spread;
  /** Heap after GC minus the same process before the consumer started (libraries loaded): what the consumer holds. */
  heapHeldBytes: Spread;
  maxRssBytes: Spread;
  /** Handler calls per stream event (below 1 when a consumer coalesces queued updates); median. */
  handlerCallsPerEvent: number;
  /** CPU seconds per 100k events of each measured run, in round order (index i of every consumer: the same round). */
  cpuPerRun: number[];
  runs: ConsumerResult[];
}

/** One stage of kubeloop's path in the "where the CPU goes" table. */
export interface StageCost {
  /** The consumer that runs kubeloop's path up to this stage. */
  consumer: ConsumerName;
  stage: string;
  /** CPU microseconds per event of the whole path up to this stage. */
  cumulativeMicros: Spread;
  /** What this stage adds to the one before it, per round (the rounds are interleaved, so paired). */
  addedMicros: Spread;
}

/** Machine-readable outcome of scenario 1. */
export interface WatchIngestData {
  events: number;
  objects: number;
  meanObjectBytes: number;
  runs: number;
  warmups: number;
  consumers: IngestFigures[];
  /** Where kubeloop's CPU goes, when the three stages ran. */
  stages: StageCost[];
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
    eventsPerSecond: spread(per.map((p) => p.eps)),
    cpuSecondsPer100k: spread(per.map((p) => p.cpu)),
    heapAfterGcBytes: spread(per.map((p) => p.heap)),
    heapHeldBytes: spread(per.map((p) => p.held)),
    maxRssBytes: spread(per.map((p) => p.rss)),
    handlerCallsPerEvent: median(per.map((p) => p.calls)),
    cpuPerRun: per.map((p) => p.cpu),
    runs,
  };
}

const NOT_MEASURED: Spread = { min: NaN, median: NaN, max: NaN };

/**
 * Where kubeloop's CPU goes: each stage's CPU per event and what it adds to the stage before, the
 * difference taken round by round (each round ran every stage once, interleaved) before the spread.
 */
function stageCosts(all: readonly IngestFigures[]): StageCost[] {
  const chain: [ConsumerName, string][] = [
    ['kubeloop-watch', 'Client.watch (HTTP, line split, JSON.parse, async iteration)'],
    ['kubeloop-informer', 'informer (store, event dispatch to a handler)'],
    ['kubeloop', 'InformerController (per-object queue, metrics, spans, handler calls)'],
  ];
  const found = chain.map(([c]) => all.find((f) => f.consumer === c && f.available));
  if (found.some((f) => f === undefined)) return [];
  const micros = (f: IngestFigures): number[] => f.cpuPerRun.map((cpu) => cpu * 10); // CPU-s per 100k events -> us per event
  return chain.map(([consumer, stage], i) => {
    const here = micros(found[i]!);
    const before = i === 0 ? here.map(() => 0) : micros(found[i - 1]!);
    return { consumer, stage, cumulativeMicros: spread(here), addedMicros: spread(here.map((us, r) => us - before[r]!)) };
  });
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
        return {
          consumer: c,
          available: false,
          unavailableReason: reason,
          eventsPerSecond: NOT_MEASURED,
          cpuSecondsPer100k: NOT_MEASURED,
          heapAfterGcBytes: NOT_MEASURED,
          heapHeldBytes: NOT_MEASURED,
          maxRssBytes: NOT_MEASURED,
          handlerCallsPerEvent: NaN,
          cpuPerRun: [],
          runs: [],
        };
      }
      return figures(c, results.get(c)!, events, objects);
    });
    const raw = all.find((f) => f.consumer === 'raw');
    const cn = all.find((f) => f.consumer === 'client-node');
    const rows = all.map((f) => [
      CONSUMER_LABELS[f.consumer],
      f.available ? formatSpread(f.eventsPerSecond, formatInt) : `not run: ${f.unavailableReason}`,
      formatRatio(ratio(f.eventsPerSecond.median, raw?.eventsPerSecond.median)),
      formatSpread(f.cpuSecondsPer100k, (n) => formatFixed(n, 2)),
      formatRatio(ratio(f.cpuSecondsPer100k.median, raw?.cpuSecondsPer100k.median)),
      formatRatio(ratio(f.cpuSecondsPer100k.median, cn?.cpuSecondsPer100k.median)),
      formatBytes(f.heapAfterGcBytes.median),
      formatSpread(f.heapHeldBytes, formatBytes),
      formatBytes(f.maxRssBytes.median),
      formatFixed(f.handlerCallsPerEvent, 2),
    ]);
    const jsonParseOnly = { eventsPerSecond: parsed.events / parsed.seconds, cpuSecondsPer100k: (parsed.cpuSeconds / parsed.events) * 1e5 };
    rows.push([
      'JSON.parse alone, no I/O (ceiling)',
      formatInt(jsonParseOnly.eventsPerSecond),
      formatRatio(ratio(jsonParseOnly.eventsPerSecond, raw?.eventsPerSecond.median)),
      formatFixed(jsonParseOnly.cpuSecondsPer100k, 2),
      formatRatio(ratio(jsonParseOnly.cpuSecondsPer100k, raw?.cpuSecondsPer100k.median)),
      formatRatio(ratio(jsonParseOnly.cpuSecondsPer100k, cn?.cpuSecondsPer100k.median)),
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
    const stages = stageCosts(all);
    const us = (n: number): string => formatFixed(n, 1);
    const stageRow = (label: string, f: IngestFigures | undefined): string[] =>
      f ? [label, formatSpread(scaleSpread(f.cpuSecondsPer100k, 10), us), '', formatRatio(ratio(f.cpuSecondsPer100k.median, cn?.cpuSecondsPer100k.median))] : [];
    const stageTable: ScenarioTable[] =
      stages.length === 0
        ? []
        : [
            {
              caption: `Where kubeloop's CPU goes: CPU microseconds per event of its path up to each stage, and what each stage adds (the difference taken within each round, then min/median/max over the ${options.runs} rounds).`,
              columns: ['Stage', 'CPU us / event, path so far', 'added by this stage', 'vs client-node'],
              rows: [
                ...stages.map((s) => [s.stage, formatSpread(s.cumulativeMicros, us), formatSpread(s.addedMicros, us), formatRatio(ratio(s.cumulativeMicros.median, cn ? cn.cpuSecondsPer100k.median * 10 : undefined))]),
                stageRow('for reference: @kubernetes/client-node makeInformer', cn),
                stageRow('for reference: raw baseline', raw),
              ].filter((r) => r.length > 0),
            },
          ];
    for (const f of all) {
      if (f.available && f.handlerCallsPerEvent < 0.99) {
        notes.push(`${CONSUMER_SHORT[f.consumer]} called its handler ${formatFixed(f.handlerCallsPerEvent, 2)} times per event: queued updates of one object were coalesced.`);
      }
    }
    return {
      id: 'watch-ingest',
      title: '1. Watch ingest',
      setup: `${formatInt(events)} MODIFIED events over ${formatInt(objects)} ConfigMaps of ${formatInt(info.meanObjectBytes)} B (with managedFields), one HTTP chunk per event; each consumer in its own process; ${options.runs} measured rounds after ${options.warmups} warm-up round(s), the order rotated every round; figures are median [min, max] of the rounds, ratios are of medians.`,
      columns: ['Consumer', 'events/s', 'vs raw', 'CPU s / 100k events', 'CPU vs raw', 'CPU vs client-node', 'heap after GC', 'of which held', 'peak RSS', 'handler calls / event'],
      rows,
      tables: stageTable,
      notes,
      chart: {
        title: '1. Watch ingest throughput',
        subtitle: `events per second, higher is better (${formatInt(events)} events, ${formatInt(info.meanObjectBytes)} B objects)`,
        bars: [
          ...all.filter((f) => !STAGES.has(f.consumer)).map((f) => ({ label: CONSUMER_SHORT[f.consumer], value: f.eventsPerSecond.median, emphasis: f.consumer === 'kubeloop' })),
          { label: 'JSON.parse alone', value: jsonParseOnly.eventsPerSecond },
        ],
      },
      data: { events, objects, meanObjectBytes: info.meanObjectBytes, runs: options.runs, warmups: options.warmups, consumers: all, stages, jsonParseOnly, server: stats },
    };
  } finally {
    await server.stop();
  }
}
