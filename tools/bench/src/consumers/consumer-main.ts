/**
 * Child process: runs ONE consumer and measures it from inside the process (CPU via process.cpuUsage,
 * wall time, heap after GC outside the I/O callback). Modes:
 * - `ingest`: list (if the consumer lists), then consume the watch stream until the marker event.
 * - `cache`: list only; report heap per cached object against the same process before the consumer started.
 * - `latency`: list, report `ready`, then record, for every object handed to the handler, how long ago the
 *   writer stamped it (`bench.kubeloop.dev/sent-at`), until the parent's `finish` command.
 * - `scale`: list, wait until the handler has seen every listed object, take the heap after GC, report
 *   `ready` (the parent then starts the paced stream); record how long ago the server stamped each event
 *   (`bench.kubeloop.dev/sent-at`) until the marker event, as in `ingest`.
 */
import { BENCH_NAMESPACE, SENT_AT_ANNOTATION, SEQ_ANNOTATION } from '../bench-objects.js';
import { onCommand, runChildMain, sendReady } from '../child-runtime.js';
import { epochMillis, heapAfterGc, mark, maxRssBytes, type Mark } from '../measure.js';
import { percentile } from '../stats.js';
import type { ConsumerContext, ConsumerModule, ConsumerName } from './consumer.js';

/** Input of a consumer child. */
export interface ConsumerInput {
  consumer: ConsumerName;
  mode: 'ingest' | 'cache' | 'latency' | 'scale';
  serverUrl: string;
  kubeconfigPath: string;
  /** Ingest: the resourceVersion of the last event. */
  markerResourceVersion: string;
  /** Objects in the list (cache mode checks that this many are cached). */
  objects: number;
}

/** The `finish` command of latency mode: wait for the write with this sequence number (or the timeout). */
export interface FinishCommand {
  lastSeq: number;
  timeoutMs: number;
}

/** What a consumer child reports. */
export interface ConsumerResult {
  consumer: ConsumerName;
  mode: ConsumerInput['mode'];
  /** Handler calls during the watch phase (after sync). */
  handlerCalls: number;
  /** Wall and CPU seconds of the list, until synced. */
  listSeconds: number;
  listCpuSeconds: number;
  /** Wall and CPU seconds from synced to the marker event (ingest) or to `finish` (latency). */
  watchSeconds: number;
  watchCpuSeconds: number;
  /** Heap after GC with the consumer's modules loaded and configured, nothing started. */
  emptyHeapBytes: number;
  /** Heap after GC at the end (ingest, scale: after the marker; cache: after sync), consumer still alive. */
  heapAfterGcBytes: number;
  /** Scale mode: heap after GC once the handler had seen every listed object, before the stream started. */
  syncedHeapAfterGcBytes?: number | undefined;
  cachedObjects: number;
  maxRssBytes: number;
  /** True when the consumer also received one ADDED per object before the events. */
  watchesFromScratch: boolean;
  /** Latency and scale modes: send-to-handler milliseconds, and how many stamped writes were seen. */
  latency?: { samples: number; p50Ms: number; p99Ms: number; maxMs: number; lastSeqSeen: number } | undefined;
}

const MODULES: Record<ConsumerName, () => Promise<ConsumerModule>> = {
  raw: () => import('./raw-baseline.js'),
  kubeloop: () => import('./kubeloop-informer.js'),
  'kubeloop-strip': () => import('./kubeloop-informer-stripped.js'),
  'kubeloop-watch': () => import('./kubeloop-watch-only.js'),
  'kubeloop-informer': () => import('./kubeloop-informer-only.js'),
  'client-node': () => import('./client-node-informer.js'),
  'dot-i': () => import('./dot-i-operator.js'),
};

runChildMain<ConsumerInput>(async (input) => {
  const mod = await MODULES[input.consumer]();
  let handlerCalls = 0;
  let syncedAt: Mark | undefined = undefined;
  let markerAt: Mark | undefined;
  let resolveMarker!: () => void;
  const markerSeen = new Promise<void>((resolve) => (resolveMarker = resolve));
  const latencies: number[] = [];
  let lastSeqSeen = -1;
  let seqWaiter: { seq: number; resolve: () => void } | undefined;
  let writesSince = Infinity;
  // Scale mode: every handler call, the list's included, to know when the whole list has been handed out.
  let allCalls = 0;
  let resolveListHandled!: () => void;
  const listHandled = new Promise<void>((resolve) => (resolveListHandled = resolve));

  const ctx: ConsumerContext = {
    serverUrl: input.serverUrl,
    kubeconfigPath: input.kubeconfigPath,
    namespace: BENCH_NAMESPACE,
    markerResourceVersion: input.markerResourceVersion,
    observe:
      input.mode === 'scale'
        ? (metadata) => {
            if (++allCalls === input.objects) resolveListHandled();
            if (!syncedAt) return;
            handlerCalls++;
            const sentAt = Number(metadata?.annotations?.[SENT_AT_ANNOTATION]);
            if (sentAt > 0) latencies.push(epochMillis() - sentAt);
            if (metadata?.resourceVersion === input.markerResourceVersion && !markerAt) {
              markerAt = mark();
              resolveMarker();
            }
          }
        : input.mode === 'latency'
        ? (metadata) => {
            if (!syncedAt) return;
            handlerCalls++;
            const annotations = metadata?.annotations;
            const sentAt = Number(annotations?.[SENT_AT_ANNOTATION]);
            if (!(sentAt >= writesSince)) return; // written before this consumer started
            latencies.push(epochMillis() - sentAt);
            const seq = Number(annotations?.[SEQ_ANNOTATION]);
            if (seq > lastSeqSeen) lastSeqSeen = seq;
            if (seqWaiter && lastSeqSeen >= seqWaiter.seq) seqWaiter.resolve();
          }
        : (metadata) => {
            if (syncedAt) handlerCalls++;
            if (metadata?.resourceVersion === input.markerResourceVersion && !markerAt) {
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
  let syncedHeapAfterGcBytes: number | undefined;
  if (input.mode === 'scale') {
    // An informer can report synced before its handler has seen the list: charge none of that to the stream.
    if (input.objects > 0) await listHandled;
    syncedHeapAfterGcBytes = await heapAfterGc();
  }
  syncedAt = mark();
  if (input.mode === 'ingest') await markerSeen;
  if (input.mode === 'scale') {
    await sendReady({ consumer: input.consumer });
    await markerSeen;
  }
  if (input.mode === 'latency') {
    writesSince = epochMillis();
    const finished = new Promise<void>((resolve) => {
      onCommand(async (value) => {
        const { lastSeq, timeoutMs } = value as FinishCommand;
        if (lastSeqSeen < lastSeq) {
          await new Promise<void>((seen) => {
            const timer = setTimeout(seen, timeoutMs);
            seqWaiter = { seq: lastSeq, resolve: () => (clearTimeout(timer), seen()) };
          });
        }
        markerAt = mark();
        resolve();
        return lastSeqSeen;
      });
    });
    await sendReady({ consumer: input.consumer });
    await finished;
  }
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
    syncedHeapAfterGcBytes,
    cachedObjects,
    maxRssBytes: maxRssBytes(),
    watchesFromScratch: mod.watchesFromScratch === true,
    latency:
      input.mode === 'latency' || input.mode === 'scale'
        ? {
            samples: latencies.length,
            p50Ms: percentile(latencies, 50),
            p99Ms: percentile(latencies, 99),
            maxMs: latencies.length > 0 ? Math.max(...latencies) : NaN,
            lastSeqSeen,
          }
        : undefined,
  } satisfies ConsumerResult;
});
