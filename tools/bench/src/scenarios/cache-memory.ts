/**
 * Scenario 2, initial list and cache memory: for each list size, each consumer child lists the objects and
 * reports heap after GC (outside the I/O callback that delivered the list) minus the heap of the same
 * process before the consumer started, per cached object; and the wall time and CPU of the list until the
 * consumer's cache is synced, side by side at the largest size (goal 2 of issue 14).
 */
import { BenchChild } from '../child-process.js';
import type { ConsumerName } from '../consumers/consumer.js';
import type { ConsumerResult } from '../consumers/consumer-main.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { formatBytes, formatFixed, formatInt, formatRatio, formatSpread } from '../report/format.js';
import type { ScenarioReport, ScenarioTable } from '../report/scenario-report.js';
import type { StreamServerInfo } from '../servers/stream-server.js';
import { ratio, spread, type Spread } from '../stats.js';
import { CONSUMER_LABELS, CONSUMER_SHORT, runRounds } from './consumer-runs.js';

const STREAM_SERVER = new URL('../servers/stream-server.js', import.meta.url);

/** Options of scenario 2. */
export interface CacheMemoryOptions {
  sizes: number[];
  runs: number;
  seed: number;
  log: (line: string) => void;
  /** Only these consumers. Default: all. */
  only?: readonly string[] | undefined;
}

/** Figures of one consumer at one size: min, median and max of the measured runs. */
export interface CacheFigures {
  consumer: ConsumerName;
  objects: number;
  bytesPerObject: Spread;
  /** The median bytesPerObject divided by the mean JSON size of an object. */
  jsonMultiple: number;
  /** Wall seconds from starting the consumer to its cache holding the whole list. */
  listSeconds: Spread;
  /** CPU seconds of the same stretch. */
  listCpuSeconds: Spread;
  runs: ConsumerResult[];
}

/** Machine-readable outcome of scenario 2. */
export interface CacheMemoryData {
  sizes: number[];
  meanObjectBytes: number;
  consumers: CacheFigures[];
}

const ALL_CONSUMERS: ConsumerName[] = ['raw', 'kubeloop', 'kubeloop-strip', 'client-node'];

/** Runs scenario 2. */
export async function runCacheMemory(options: CacheMemoryOptions): Promise<ScenarioReport<CacheMemoryData>> {
  const CONSUMERS = ALL_CONSUMERS.filter((c) => !options.only || options.only.includes(c));
  const figures: CacheFigures[] = [];
  let meanObjectBytes = NaN;
  for (const size of options.sizes) {
    const server = BenchChild.start(STREAM_SERVER, { objects: size, events: 0, seed: options.seed }, { timeoutMs: 60 * 60_000, label: 'stream server' });
    try {
      const info = await server.ready<StreamServerInfo>();
      meanObjectBytes = info.meanObjectBytes;
      options.log(`  list of ${formatInt(size)} objects, ${formatBytes(info.listBytes)}`);
      const kubeconfigPath = writeKubeconfig(info.url);
      const results = await runRounds({
        consumers: CONSUMERS,
        warmups: 0,
        runs: options.runs,
        timeoutMs: 120_000 + size * 2,
        log: options.log,
        input: (consumer) => ({ consumer, mode: 'cache', serverUrl: info.url, kubeconfigPath, markerResourceVersion: info.markerResourceVersion, objects: size }),
      });
      for (const consumer of CONSUMERS) {
        const runs = results.get(consumer)!;
        for (const r of runs) {
          if (r.cachedObjects !== size) throw new Error(`${consumer} cached ${r.cachedObjects} of ${size} objects`);
        }
        const bytesPerObject = spread(runs.map((r) => (r.heapAfterGcBytes - r.emptyHeapBytes) / r.cachedObjects));
        figures.push({
          consumer,
          objects: size,
          bytesPerObject,
          jsonMultiple: bytesPerObject.median / info.meanObjectBytes,
          listSeconds: spread(runs.map((r) => r.listSeconds)),
          listCpuSeconds: spread(runs.map((r) => r.listCpuSeconds)),
          runs,
        });
      }
    } finally {
      await server.stop();
    }
  }
  const at = (c: ConsumerName, n: number): CacheFigures | undefined => figures.find((f) => f.consumer === c && f.objects === n);
  const rows = figures.map((f) => [
    CONSUMER_LABELS[f.consumer],
    formatInt(f.objects),
    formatSpread(f.bytesPerObject, formatInt),
    formatFixed(f.jsonMultiple, 2),
    formatRatio(ratio(f.bytesPerObject.median, at('raw', f.objects)?.bytesPerObject.median)),
    formatRatio(ratio(f.bytesPerObject.median, at('client-node', f.objects)?.bytesPerObject.median)),
  ]);
  const largest = Math.max(...options.sizes);
  const seconds = (n: number): string => formatFixed(n, 2);
  const listAt = (c: ConsumerName): CacheFigures | undefined => at(c, largest);
  const listTable: ScenarioTable = {
    caption: `Initial list of ${formatInt(largest)} objects: wall and CPU seconds from starting the consumer until its cache holds every object (fresh process, so cold JIT, as at an operator's start); median [min, max] of ${options.runs} rounds, ratios of medians.`,
    columns: ['Consumer', 'list s', 'vs raw', 'vs client-node', 'list CPU s', 'CPU vs raw', 'CPU vs client-node'],
    rows: CONSUMERS.flatMap((c) => {
      const f = listAt(c);
      if (!f) return [];
      return [
        [
          CONSUMER_LABELS[c],
          formatSpread(f.listSeconds, seconds),
          formatRatio(ratio(f.listSeconds.median, listAt('raw')?.listSeconds.median)),
          formatRatio(ratio(f.listSeconds.median, listAt('client-node')?.listSeconds.median)),
          formatSpread(f.listCpuSeconds, seconds),
          formatRatio(ratio(f.listCpuSeconds.median, listAt('raw')?.listCpuSeconds.median)),
          formatRatio(ratio(f.listCpuSeconds.median, listAt('client-node')?.listCpuSeconds.median)),
        ],
      ];
    }),
  };
  return {
    id: 'cache-memory',
    title: '2. Initial list and cache memory',
    setup: `Lists of ${options.sizes.map(formatInt).join(' and ')} ConfigMaps of ${formatInt(meanObjectBytes)} B JSON; heap after GC minus the same process before the consumer started, per cached object; ${options.runs} rounds, the order rotated every round; median [min, max] of the rounds, ratios of medians.`,
    columns: ['Consumer', 'objects', 'heap B / object', 'x JSON size', 'vs raw Map', 'vs client-node'],
    rows,
    tables: [listTable],
    notes: cacheNotes(figures, largest),
    chart: {
      title: '2. Cache memory per object',
      subtitle: `heap bytes per cached object at ${formatInt(largest)} objects, lower is better (JSON: ${formatInt(meanObjectBytes)} B)`,
      bars: CONSUMERS.map((c) => ({ label: CONSUMER_SHORT[c], value: at(c, largest)?.bytesPerObject.median ?? NaN, emphasis: c.startsWith('kubeloop') })),
    },
    data: { sizes: options.sizes, meanObjectBytes, consumers: figures },
  };
}

function cacheNotes(figures: readonly CacheFigures[], objects: number): string[] {
  const at = (c: ConsumerName): number | undefined => figures.find((f) => f.consumer === c && f.objects === objects)?.bytesPerObject.median;
  const raw = at('raw');
  const ours = at('kubeloop');
  const stripped = at('kubeloop-strip');
  const notes: string[] = [];
  if (raw !== undefined && ours !== undefined) {
    notes.push(
      `At ${formatInt(objects)} objects kubeloop holds ${formatInt(ours - raw)} B per object more than the raw Map (keyed by name alone): ` +
        `list items arrive without apiVersion and kind and get both added (two more properties per object), and its store indexes by namespace, then name.`,
    );
  }
  if (ours !== undefined && stripped !== undefined) {
    notes.push(`Stripping managedFields saves ${formatInt(ours - stripped)} B per object (${formatFixed((1 - stripped / ours) * 100, 0)}%).`);
  }
  return notes;
}
