/**
 * Child process: writes ConfigMaps of the `bench` namespace of an API server over HTTP.
 * - `setup`: create the namespace and the objects (idempotent).
 * - `rate`: merge-patch one object per tick at a fixed rate (open loop, bounded in flight), stamping each
 *   write with its send time and sequence number, for the latency scenario.
 * - `max`: the same patches as fast as `concurrency` requests in flight allow, for the throughput scenario.
 */
import { Agent } from 'node:http';
import { BENCH_NAMESPACE, SENT_AT_ANNOTATION, SEQ_ANNOTATION, benchObjectName, makeBenchObject } from './bench-objects.js';
import { runChildMain } from './child-runtime.js';
import { expectStatus, sendJson } from './http-json.js';
import { epochMillis, nowSeconds } from './measure.js';
import { SeededRandom } from './seeded-random.js';
import { percentile } from './stats.js';

/** Input of the writer child. */
export interface WriterInput {
  url: string;
  mode: 'setup' | 'rate' | 'max';
  objects: number;
  /** Writes in total (`rate` and `max`). */
  writes: number;
  /** Writes per second (`rate`). */
  rate?: number | undefined;
  /** Requests in flight at most. Default: 16 (`max`), 64 (`rate`). */
  concurrency?: number | undefined;
  /** Stop writing after this many seconds whatever the count. Default: 120. */
  maxSeconds?: number | undefined;
  /** Untimed writes first, so that the server's JIT is warm when the timed ones start. Default: 0. */
  warmupWrites?: number | undefined;
}

/** What the writer reports. */
export interface WriterResult {
  /** Timed writes. */
  writes: number;
  /** Timed and warm-up writes: what a watcher attached throughout receives. */
  totalWrites: number;
  failures: number;
  seconds: number;
  writesPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Writes that could not be sent on time because `concurrency` requests were in flight (`rate`). */
  late: number;
}

function patchFor(seq: number): Record<string, unknown> {
  return { metadata: { annotations: { [SENT_AT_ANNOTATION]: epochMillis().toFixed(3), [SEQ_ANNOTATION]: String(seq) } } };
}

runChildMain<WriterInput>(async (input) => {
  const agent = new Agent({ keepAlive: true, maxSockets: input.concurrency ?? 64 });
  const base = `${input.url}/api/v1/namespaces/${BENCH_NAMESPACE}/configmaps`;
  if (input.mode === 'setup') {
    const ns = await sendJson(agent, `${input.url}/api/v1/namespaces`, 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } });
    expectStatus(ns, [201, 409], 'create namespace');
    const rng = new SeededRandom(7);
    for (let i = 0; i < input.objects; i++) {
      const obj = makeBenchObject(rng, i, 0);
      const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = obj.metadata;
      const created = await sendJson(agent, base, 'POST', { ...obj, metadata });
      expectStatus(created, [201, 409], `create ${metadata.name}`);
    }
    agent.destroy();
    return { writes: input.objects, totalWrites: input.objects, failures: 0, seconds: 0, writesPerSecond: 0, latencyP50Ms: NaN, latencyP99Ms: NaN, late: 0 } satisfies WriterResult;
  }

  const latencies: number[] = [];
  let failures = 0;
  let inFlight = 0;
  let late = 0;
  const deadline = nowSeconds() + (input.maxSeconds ?? 120);
  const write = async (seq: number): Promise<void> => {
    inFlight++;
    const started = nowSeconds();
    try {
      const answer = await sendJson(agent, `${base}/${benchObjectName(seq % input.objects)}`, 'PATCH', patchFor(seq), 'application/merge-patch+json');
      if (answer.status !== 200) failures++;
      else latencies.push((nowSeconds() - started) * 1000);
    } catch {
      failures++;
    } finally {
      inFlight--;
    }
  };

  let sent = 0;
  const warmup = input.warmupWrites ?? 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (sent < warmup) await write(sent++);
    }),
  );
  latencies.length = 0;
  sent = 0;
  const begin = nowSeconds();
  if (input.mode === 'rate') {
    const rate = input.rate ?? 100;
    const limit = input.concurrency ?? 64;
    const pending = new Set<Promise<void>>();
    while (sent < input.writes && nowSeconds() < deadline) {
      const due = begin + sent / rate;
      const wait = due - nowSeconds();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      if (inFlight >= limit) {
        late++;
        await Promise.race(pending);
        continue;
      }
      const p = write(sent++).finally(() => pending.delete(p));
      pending.add(p);
    }
    await Promise.all(pending);
  } else {
    const workers = Array.from({ length: input.concurrency ?? 16 }, async () => {
      while (sent < input.writes && nowSeconds() < deadline) await write(sent++);
    });
    await Promise.all(workers);
  }
  const seconds = nowSeconds() - begin;
  agent.destroy();
  return {
    writes: sent,
    totalWrites: sent + warmup,
    failures,
    seconds,
    writesPerSecond: latencies.length / seconds,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    late,
  } satisfies WriterResult;
});
