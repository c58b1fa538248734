/**
 * An operator's process stays alive while the operator runs, even when all it does is wait (the API
 * server is down, a follower waits for the Lease), and nothing of ours holds it once stopped. The
 * process tests run real operators as child processes: inside the test process, the test runner
 * itself would keep the loop alive and hide the bug.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VirtualClock } from './clock.js';
import { holdProcessOpen, processHolds } from './keep-alive.js';
import { InformerController } from './controller/informer-controller.js';
import { Operator } from './controller/operator.js';
import { KubernetesBasedInformer } from './informer/kubernetes-based-informer.js';
import { LeaderElector } from './runtime/leader-elector.js';
import { runOperator } from './runtime/graceful-shutdown.js';
import { noopLogger } from './observability/logger.js';
import { FakeListWatchClient, page, widgetKind } from './testing/informer-fakes.test-helper.js';

/** The compiled package entry, for the child processes (same depth from src/ and dist/). */
const PACKAGE_ENTRY = new URL('./index.js', import.meta.url).href;
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** A running child process with its output collected line by line. */
class Child {
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: number }>;
  private readonly startedAt = Date.now();
  private readonly process;

  constructor(source: string, env: Record<string, string> = {}) {
    this.process = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd: PACKAGE_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let partial = '';
    const collect = (chunk: Buffer): void => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      this.lines.push(...parts);
    };
    this.process.stdout.on('data', collect);
    this.process.stderr.on('data', collect);
    this.exited = new Promise((resolve) => this.process.once('close', (code, signal) => resolve({ code, signal, afterMs: Date.now() - this.startedAt })));
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  count(pattern: RegExp): number {
    return this.lines.filter((l) => pattern.test(l)).length;
  }

  /** Polls until `pattern` has appeared `times` times; fails if the child exits first or after `timeoutMs`. */
  async awaitLines(pattern: RegExp, times: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(pattern) < times) {
      assert.ok(this.running, `the child exited by itself while waiting for ${pattern} (${this.count(pattern)} of ${times}); its output:\n${this.lines.join('\n')}`);
      assert.ok(Date.now() < deadline, `no ${times} x ${pattern} within ${timeoutMs} ms; output:\n${this.lines.join('\n')}`);
      await sleep(20); // polling the child's output, bounded by the deadline above
    }
  }

  /** SIGTERM, then the exit (SIGKILL past `timeoutMs`). */
  async terminate(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A kubeconfig whose server refuses every connection (port 1 of the loopback). */
const UNREACHABLE_KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'http://127.0.0.1:1' } }]
users: [{ name: u, user: {} }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

const tempDirs: string[] = [];
after(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** Writes the unreachable kubeconfig into a fresh temporary directory (removed after the tests); its path. */
async function unreachableKubeconfig(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloop-keep-alive-'));
  tempDirs.push(dir);
  const path = join(dir, 'kubeconfig');
  await writeFile(path, UNREACHABLE_KUBECONFIG);
  return path;
}

/** The README's controller in a few lines (loadKubeConfig from KUBECONFIG), its server unreachable, backoff capped at 1 s. */
const UNREACHABLE_OPERATOR = `
import { createClient, defineKindFor, loadKubeConfig } from '@kubeloop/resource';
const { InformerController, JitteredExponentialBackoff, KubernetesBasedInformer, Operator, SimpleReconciler, shutdownSignal } = await import('${PACKAGE_ENTRY}');
const kc = loadKubeConfig();
const WidgetKind = defineKindFor({ group: 'example.com', version: 'v1', kind: 'Widget' });
const controller = new InformerController();
const backoff = new JitteredExponentialBackoff({ initialMs: 100, maxMs: 1000 });
controller.addInformer(new KubernetesBasedInformer(WidgetKind, createClient(WidgetKind, kc), 'default', { backoff }), 'widgets');
controller.addReconciler(new SimpleReconciler({ reconcileFunc: async () => ({}) }), 'widgets');
const operator = new Operator();
operator.addController(controller);
const stop = shutdownSignal();
await operator.run(stop.signal);
stop.dispose();
console.log('operator stopped');
`;

/** A follower: runOperator with leader election, the Lease held and renewed by another process (a fake Lease client). */
const FOLLOWER = `
const { runOperator } = await import('${PACKAGE_ENTRY}');
let renewals = 0;
const lease = () => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'default', resourceVersion: String(++renewals) },
  spec: { holderIdentity: 'the-leader', leaseDurationSeconds: 15, renewTime: new Date().toISOString() } });
const client = {
  get: async () => { console.log('lease read: held by the-leader'); return lease(); },
  create: async () => { throw new Error('unexpected create'); },
  update: async () => { throw new Error('unexpected update'); },
};
const operator = { run: async () => { console.log('LEADING (unexpected)'); } };
const { exitCode } = await runOperator({ operator, leaderElection: { client, lease: { namespace: 'default', name: 'l' }, identity: 'follower', retryPeriodMs: 100, renewDeadlineMs: 1000, leaseDurationMs: 15000 } });
console.log('runOperator resolved ' + exitCode);
`;

describe('the process stays alive while an operator runs', () => {
  test('holds nest: the handle goes with the last release, and a second release of one hold does nothing', () => {
    const before = processHolds();
    const a = holdProcessOpen();
    const b = holdProcessOpen();
    assert.equal(processHolds(), before + 2);
    a();
    a();
    assert.equal(processHolds(), before + 1);
    b();
    assert.equal(processHolds(), before);
  });

  test('an informer, a controller, an Operator, a leader elector and runOperator hold the process while they run, and release it when stopped', async () => {
    const clock = new VirtualClock();
    const client = new FakeListWatchClient();
    client.replyList(page([], '1')).replyWatch();
    const controller = new InformerController({ clock, logger: noopLogger });
    controller.addInformer(new KubernetesBasedInformer(widgetKind, client, 'default', { clock, logger: noopLogger }), 'widgets');
    const operator = new Operator();
    operator.addController(controller);
    const before = processHolds();
    const abort = new AbortController();
    const running = operator.run(abort.signal);
    await clock.advance(0);
    assert.equal(processHolds(), before + 3, 'Operator.run, the controller run and the informer run each hold');
    abort.abort();
    await running;
    assert.equal(processHolds(), before);

    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'default', resourceVersion: '1' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 15 } };
    const leases = { get: async () => lease, create: async () => lease, update: async () => lease };
    const elector = new LeaderElector({ client: leases, lease: { namespace: 'default', name: 'l' }, identity: 'me', clock, onStartedLeading: () => undefined, random: () => 0 });
    const following = new AbortController();
    const campaign = elector.run(following.signal);
    await clock.advance(0);
    assert.equal(processHolds(), before + 1, 'a follower waiting for the lease holds');
    following.abort();
    await campaign;
    assert.equal(processHolds(), before);

    const stopping = new AbortController();
    const result = runOperator({ operator: { run: (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())) }, signal: stopping.signal, logger: noopLogger, clock });
    await clock.advance(0);
    assert.equal(processHolds(), before + 1, 'runOperator holds from its start');
    stopping.abort();
    assert.equal((await result).exitCode, 0);
    assert.equal(processHolds(), before);
  });

  test('the README operator as its own process, its API server unreachable: it waits (logging the outage) until SIGTERM, then exits 0', { timeout: 30_000 }, async () => {
    const child = new Child(UNREACHABLE_OPERATOR, { KUBECONFIG: await unreachableKubeconfig() });
    try {
      // The WARN comes once the outage outlasted the 1 s backoff cap; then several more refused attempts.
      await child.awaitLines(/WARN cannot reach the API server for \d+\.\d s \(\d+ attempts\); still retrying .*ECONNREFUSED/, 1, 15_000);
      const waitsBefore = child.count(/waiting before the next request after an error/);
      await child.awaitLines(/waiting before the next request after an error/, waitsBefore + 3, 15_000);
      const exit = await child.terminate(10_000);
      assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, child.lines.join('\n'));
      assert.ok(child.lines.includes('operator stopped'), child.lines.join('\n'));
    } finally {
      await child.terminate(1000);
    }
  });

  test('a leader-election follower as its own process waits for the Lease, reading it again and again, until SIGTERM, then exits 0', { timeout: 30_000 }, async () => {
    const child = new Child(FOLLOWER);
    try {
      await child.awaitLines(/^lease read: held by the-leader$/, 10, 15_000);
      assert.equal(child.count(/LEADING/), 0);
      const exit = await child.terminate(10_000);
      assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, child.lines.join('\n'));
      assert.ok(child.lines.includes('runOperator resolved 0'), child.lines.join('\n'));
    } finally {
      await child.terminate(1000);
    }
  });

  test('a script that runs an operator and stops it exits by itself at once: nothing of ours holds the process afterwards', { timeout: 30_000 }, async () => {
    const source = UNREACHABLE_OPERATOR.replace('const stop = shutdownSignal();', 'const stop = { signal: AbortSignal.timeout(300), dispose() {} };');
    const child = new Child(source, { KUBECONFIG: await unreachableKubeconfig() });
    const exit = await child.exited;
    assert.equal(exit.code, 0, child.lines.join('\n'));
    assert.ok(child.lines.includes('operator stopped'), child.lines.join('\n'));
    assert.ok(exit.afterMs < 10_000, `exited ${exit.afterMs} ms after its start`);
  });
});
