import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEnv } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';
import { Client, ConfigMapKind, HttpTransport, LeaseKind, loadKubeConfig } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import {
  InformerController,
  InformerMetrics,
  KubernetesBasedInformer,
  Operator,
  OperatorServer,
  SimpleReconciler,
  noopLogger,
  runOperator,
} from '@kubeloop/operator';
import type { RunOperatorResult } from '@kubeloop/operator';
import { waitFor } from './support/wait-for.js';

/** One sample of the Prometheus text format: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (what /metrics serves); throws on a malformed line. */
function parsePrometheusText(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      else assert.match(line, /^# HELP \S+ /, `comment line: ${line}`);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    assert.ok(m, `malformed sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    // Go's ParseFloat, which Prometheus uses, takes NaN and Inf in any case (prom-client writes `Nan`).
    const raw = m[3]!.toLowerCase();
    const value = raw === '+inf' || raw === 'inf' ? Infinity : raw === '-inf' ? -Infinity : Number(raw);
    assert.ok(!Number.isNaN(value) || raw === 'nan', `bad value in ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { samples, types };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.length === 0 ? undefined : found.reduce((sum, s) => sum + s.value, 0);
}

describe('/metrics of a running operator', () => {
  let env: TestEnv;
  let transport: HttpTransport;
  const stop = new AbortController();
  let running: Promise<RunOperatorResult> | undefined;
  let metricsServer: OperatorServer;
  let reconciled = 0;

  before(async () => {
    env = await startTestEnv();
    // The operator reads the kubeconfig file, as its main does.
    transport = HttpTransport.fromKubeConfig(loadKubeConfig({ kubeconfigPath: env.kubeconfigPath }));

    const configMaps = new Client(ConfigMapKind, transport);
    const informerMetrics = new InformerMetrics();
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, configMaps, 'default', { metrics: informerMetrics });
    const controller = new InformerController({ logger: noopLogger });
    controller.addInformer(informer, 'ConfigMap');
    controller.addReconciler(
      new SimpleReconciler({
        reconcileFunc: async () => {
          reconciled++;
          return {};
        },
      }),
      'ConfigMap',
    );
    const operator = new Operator();
    operator.addController(controller);
    metricsServer = new OperatorServer({ host: '127.0.0.1', port: 0, collectors: informerMetrics.collectors() });
    running = runOperator({
      operator,
      server: metricsServer,
      hasSynced: () => informer.hasSynced(),
      signal: stop.signal,
      logger: noopLogger,
      leaderElection: { client: new Client(LeaseKind, transport), lease: { namespace: 'default', name: 'metrics-test' }, identity: 'scraped' },
    });
    await waitFor(() => metricsServer.isListening(), { timeoutMs: 10_000, what: 'the metrics server' });
  });

  after(async () => {
    stop.abort();
    await running;
    transport.close();
    await env.stop();
  });

  async function scrape(): Promise<ReturnType<typeof parsePrometheusText>> {
    const res = await fetch(`${metricsServer.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await res.text());
  }

  test('serves the operator, informer, leader election and process metrics, and readiness once synced and leading', { timeout: 30_000 }, async () => {
    await waitFor(async () => (await fetch(`${metricsServer.url}/readyz`)).status === 200, { timeoutMs: 15_000, what: '/readyz to pass' });
    const verbose = await (await fetch(`${metricsServer.url}/readyz?verbose`)).text();
    assert.match(verbose, /\[\+\]leader-election ok/);
    assert.match(verbose, /\[\+\]informers-synced ok/);
    assert.equal((await fetch(`${metricsServer.url}/healthz`)).status, 200);

    const { samples, types } = await scrape();
    const expected: Record<string, string> = {
      informer_events_total: 'counter',
      informer_reconcile_duration_seconds: 'histogram',
      reconciler_process_duration_seconds: 'histogram',
      watcher_process_duration_seconds: 'histogram',
      ongoing_reconcile_processes: 'gauge',
      ongoing_reconcile_events: 'gauge',
      controller_queue_depth: 'gauge',
      controller_pending_retries: 'gauge',
      informer_watch_connects_total: 'counter',
      informer_last_sync_timestamp_seconds: 'gauge',
      leader_election_status: 'gauge',
      process_cpu_user_seconds_total: 'counter',
      process_resident_memory_bytes: 'gauge',
    };
    for (const [name, type] of Object.entries(expected)) assert.equal(types.get(name), type, `${name} is a ${type}`);
    assert.equal(value(samples, 'leader_election_status', { name: 'metrics-test' }), 1);
    assert.ok((value(samples, 'informer_watch_connects_total', { kind: 'ConfigMap' }) ?? 0) >= 1);
    assert.ok((value(samples, 'informer_last_sync_timestamp_seconds', { kind: 'ConfigMap' }) ?? 0) > Date.now() / 1000 - 60);
  });

  test('counters and histograms move as objects are reconciled', { timeout: 30_000 }, async () => {
    const before = (await scrape()).samples;
    const createsBefore = value(before, 'informer_events_total', { kind: 'ConfigMap', event_type: 'CREATE' }) ?? 0;
    const reconcilesBefore = value(before, 'reconciler_process_duration_seconds_count', { kind: 'ConfigMap' }) ?? 0;

    const configMaps = new Client(ConfigMapKind, transport);
    for (let i = 0; i < 3; i++) {
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { i: String(i) } });
    }
    await waitFor(() => reconciled >= 3, { timeoutMs: 15_000, what: 'three reconciles' });
    const afterSamples = await waitFor(
      async () => {
        const s = (await scrape()).samples;
        return (value(s, 'informer_events_total', { kind: 'ConfigMap', event_type: 'CREATE' }) ?? 0) >= createsBefore + 3 ? s : undefined;
      },
      { timeoutMs: 10_000, what: 'informer_events_total to count the creates' },
    );
    assert.ok((value(afterSamples, 'reconciler_process_duration_seconds_count', { kind: 'ConfigMap' }) ?? 0) >= reconcilesBefore + 3);
    assert.ok((value(afterSamples, 'informer_reconcile_duration_seconds_bucket', { kind: 'ConfigMap', le: '+Inf' }) ?? 0) >= 3);
    assert.equal(value(afterSamples, 'ongoing_reconcile_events', { kind: 'ConfigMap' }) ?? 0, 0);
  });
});
