/**
 * Child process: runs ONE consumer against the stream server and measures it from inside the process
 * (CPU via process.cpuUsage, wall time, heap after GC outside the I/O callback). Modes:
 * - `ingest`: list (if the consumer lists), then consume the watch stream until the marker event.
 * - `cache`: list only; report heap per cached object against the same process before the consumer started.
 */
import { BENCH_NAMESPACE } from '../bench-objects.js';
import { runChildMain } from '../child-runtime.js';
import { heapAfterGc, mark, maxRssBytes, type Mark } from '../measure.js';
import type { ConsumerContext, ConsumerModule, ConsumerName } from './consumer.js';

/** Input of a consumer child. */
export interface ConsumerInput {
  consumer: ConsumerName;
  mode: 'ingest' | 'cache';
  serverUrl: string;
  kubeconfigPath: string;
  markerResourceVersion: string;
  /** Objects in the list (cache mode waits until this many are cached). */
  objects: number;
}

/** What a consumer child reports. */
export interface ConsumerResult {
  consumer: ConsumerName;
  mode: 'ingest' | 'cache';
  /** Handler calls during the watch phase (after sync). */
  handlerCalls: number;
  /** Wall and CPU seconds of the list, until synced. */
  listSeconds: number;
  listCpuSeconds: number;
  /** Wall and CPU seconds from synced to the marker event (ingest only, else 0). */
  watchSeconds: number;
  watchCpuSeconds: number;
  /** Heap after GC with the consumer's modules loaded and nothing started. */
  emptyHeapBytes: number;
  /** Heap after GC at the end (ingest: after the marker; cache: after sync), consumer still alive. */
  heapAfterGcBytes: number;
  cachedObjects: number;
  maxRssBytes: number;
  /** True when the consumer also received one ADDED per object before the events. */
  watchesFromScratch: boolean;
}

const MODULES: Record<ConsumerName, () => Promise<ConsumerModule>> = {
  raw: () => import('./raw-baseline.js'),
  kubeloop: () => import('./kubeloop-informer.js'),
  'kubeloop-strip': () => import('./kubeloop-informer-stripped.js'),
  'client-node': () => import('./client-node-informer.js'),
  'dot-i': () => import('./dot-i-operator.js'),
};

runChildMain<ConsumerInput>(async (input) => {
  const mod = await MODULES[input.consumer]();
  let handlerCalls = 0;
  let syncedAt: Mark | undefined;
  let markerAt: Mark | undefined;
  let resolveMarker!: () => void;
  const markerSeen = new Promise<void>((resolve) => (resolveMarker = resolve));
  const ctx: ConsumerContext = {
    serverUrl: input.serverUrl,
    kubeconfigPath: input.kubeconfigPath,
    namespace: BENCH_NAMESPACE,
    markerResourceVersion: input.markerResourceVersion,
    observe(rv) {
      if (syncedAt) handlerCalls++;
      if (rv === input.markerResourceVersion && !markerAt) {
        markerAt = mark();
        resolveMarker();
      }
    },
  };

  const prepared = mod.prepare(ctx);
  const emptyHeapBytes = await heapAfterGc();
  const begin = mark();
  const consumer = prepared.start();
  await consumer.synced;
  syncedAt = mark();
  if (input.mode === 'ingest') await markerSeen;
  const end = markerAt ?? syncedAt;
  const heapAfterGcBytes = await heapAfterGc();
  const cachedObjects = consumer.cachedObjects();
  await consumer.stop();
  return {
    consumer: input.consumer,
    mode: input.mode,
    handlerCalls,
    listSeconds: syncedAt.wall - begin.wall,
    listCpuSeconds: syncedAt.cpu - begin.cpu,
    watchSeconds: end.wall - syncedAt.wall,
    watchCpuSeconds: end.cpu - syncedAt.cpu,
    emptyHeapBytes,
    heapAfterGcBytes,
    cachedObjects,
    maxRssBytes: maxRssBytes(),
    watchesFromScratch: mod.watchesFromScratch === true,
  } satisfies ConsumerResult;
});
