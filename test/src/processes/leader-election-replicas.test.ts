/**
 * Three replicas of a leader-elected operator, each its own process (processes/replica-main.ts),
 * against an API server in another process:
 * - the leader SIGKILLed in the middle of a burst: a follower takes over within the lease bound and
 *   every object converges;
 * - the leader's Lease renewals failing with 503: it gives up (exit code 1, as client-go exits) and
 *   another replica leads;
 * in both, per object, no two replicas' calls ever overlap in time, and no follower exits while it waits.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ConfigMapKind, HttpTransport } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { NodeProcess } from '../support/node-process.js';
import { ServerProcess } from '../support/server-process.js';
import { TempDirs } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { overlaps, readCalls } from './replica-record.js';
import type { ReplicaCall, ReplicaOptions } from './replica-record.js';

const REPLICA = fileURLToPath(new URL('./replica-main.js', import.meta.url));
const TIMINGS = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };
/** A follower may take over this long after the leader stopped renewing: the lease, the acquire jitter (client-go's 1.2), and slack for a loaded machine. */
const TAKEOVER_BOUND_MS = TIMINGS.leaseDurationMs + TIMINGS.retryPeriodMs * 2.2 + 3000;
const LEADING = /became the leader: starting controllers/;

/** Three replicas, a server, and the test's ConfigMap client. */
class ReplicaSet {
  readonly replicas: NodeProcess[] = [];
  readonly killedAt = new Map<number, number>();
  readonly configMaps: Client<ConfigMap>;

  constructor(
    readonly server: ServerProcess,
    private readonly transport: HttpTransport,
    readonly record: string,
    private readonly kubeconfig: string,
    private readonly lease: string,
  ) {
    this.configMaps = new Client(ConfigMapKind, transport);
  }

  start(count: number): void {
    for (let i = 1; i <= count; i++) {
      const options: ReplicaOptions = { identity: `${this.lease}-${i}`, lease: this.lease, record: this.record, workDelayMs: 100, ...TIMINGS };
      this.replicas.push(new NodeProcess(REPLICA, [JSON.stringify(options)], { KUBECONFIG: this.kubeconfig }));
    }
  }

  /** The one replica that leads (waits for it). */
  async leader(among: readonly NodeProcess[] = this.replicas, timeoutMs = 30_000): Promise<NodeProcess> {
    return waitFor(() => among.find((r) => r.count(LEADING) > 0), { timeoutMs, what: 'a replica to lead' });
  }

  async createConfigMaps(names: readonly string[], value: string): Promise<void> {
    for (const name of names) {
      await this.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { app: 'replicas' } }, data: { value } });
    }
  }

  async updateConfigMaps(names: readonly string[], value: string): Promise<void> {
    for (const name of names) await this.configMaps.patch({ namespace: 'default', name }, { merge: { data: { value } } });
  }

  /** True once, for every ConfigMap, some call by a replica in `pids` ended on its current resourceVersion. */
  async converged(names: readonly string[], pids: ReadonlySet<number>): Promise<boolean> {
    const calls = await readCalls(this.record);
    const items = (await this.configMaps.list('default', { labelSelector: 'app=replicas' })).items;
    return names.every((name) => {
      const rv = items.find((i) => i.metadata.name === name)?.metadata.resourceVersion;
      return calls.some((c) => c.key === name && c.phase === 'end' && c.resourceVersion === rv && pids.has(c.pid));
    });
  }

  async overlaps(): Promise<string[]> {
    return overlaps(await readCalls(this.record), this.killedAt, Date.now());
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.dispose()));
    this.transport.close();
    await this.server.stop();
  }
}

describe('three operator replicas on one Lease, each its own process', () => {
  const temp = new TempDirs();
  const sets: ReplicaSet[] = [];
  after(async () => {
    for (const set of sets) await set.stop();
    await temp.removeAll();
  });

  async function replicaSet(lease: string): Promise<ReplicaSet> {
    const dir = await temp.make(lease);
    const kubeconfig = join(dir, 'kubeconfig');
    const server = await ServerProcess.start({ dataDir: join(dir, 'data'), kubeconfigPath: kubeconfig });
    const set = new ReplicaSet(server, new HttpTransport({ server: server.url }), join(dir, 'calls.jsonl'), kubeconfig, lease);
    sets.push(set);
    return set;
  }

  test('the leader SIGKILLed mid-burst: a follower takes over within the lease bound, every object converges, no object is ever handled by two replicas at once', { timeout: 120_000 }, async () => {
    const set = await replicaSet('replicas-kill');
    set.start(3);
    const leader = await set.leader();
    const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    await set.createConfigMaps(names, 'one');
    await waitFor(async () => (await readCalls(set.record)).filter((c) => c.pid === leader.pid && c.phase === 'end').length >= 3, { timeoutMs: 30_000, what: 'the leader to be busy with the burst' });

    leader.child.kill('SIGKILL');
    const killedAt = Date.now();
    set.killedAt.set(leader.pid, killedAt);
    await leader.exited;
    const followers = set.replicas.filter((r) => r !== leader);
    const successor = await set.leader(followers, TAKEOVER_BOUND_MS + 10_000);
    const firstCall = await waitFor(async () => (await readCalls(set.record)).find((c: ReplicaCall) => c.pid === successor.pid && c.phase === 'start'), {
      timeoutMs: TAKEOVER_BOUND_MS + 10_000,
      what: 'the new leader to reconcile',
    });
    assert.ok(firstCall.at - killedAt <= TAKEOVER_BOUND_MS, `the new leader started ${firstCall.at - killedAt} ms after the kill (bound ${TAKEOVER_BOUND_MS} ms)`);

    await set.updateConfigMaps(names, 'two');
    await waitFor(() => set.converged(names, new Set([successor.pid])), { timeoutMs: 60_000, intervalMs: 100, what: 'every ConfigMap reconciled at its latest resourceVersion by the new leader' });
    assert.deepEqual(await set.overlaps(), []);
    for (const follower of followers) assert.ok(follower.running, `a replica exited while following (${JSON.stringify(follower.exit)})\n${follower.transcript()}`);
    for (const follower of followers) assert.deepEqual(await follower.stop('SIGTERM', 20_000), { code: 0, signal: null }, follower.transcript());
  });

  test('the leader’s Lease renewals fail with 503: it gives up (exit code 1) and another replica leads; no object is ever handled by two replicas at once', { timeout: 120_000 }, async () => {
    const set = await replicaSet('replicas-renew');
    set.start(3);
    const leader = await set.leader();
    const names = Array.from({ length: 10 }, (_, i) => `renew-${i}`);
    await set.createConfigMaps(names, 'one');
    await waitFor(() => set.converged(names, new Set([leader.pid])), { timeoutMs: 30_000, intervalMs: 100, what: 'the leader to reconcile every ConfigMap' });

    // Every Lease update fails from now on: the leader's renewals, and any follower's attempt to take over.
    await set.server.fault({ op: 'failNext', rule: { verb: 'update', resource: 'leases', status: 503, count: 100_000 } });
    const failingSince = Date.now();
    const exit = await leader.waitForExit(TIMINGS.renewDeadlineMs + 15_000);
    assert.deepEqual(exit, { code: 1, signal: null }, leader.transcript());
    assert.equal(leader.count(/leader election lost: exiting so that a fresh process campaigns again/), 1, leader.transcript());
    assert.ok(Date.now() - failingSince >= TIMINGS.renewDeadlineMs - TIMINGS.retryPeriodMs, 'the leader kept trying until its renew deadline');
    await set.server.fault({ op: 'reset' });

    const followers = set.replicas.filter((r) => r !== leader);
    const successor = await set.leader(followers, TAKEOVER_BOUND_MS + 10_000);
    await set.updateConfigMaps(names, 'two');
    await waitFor(() => set.converged(names, new Set([successor.pid])), { timeoutMs: 60_000, intervalMs: 100, what: 'every ConfigMap reconciled at its latest resourceVersion by the new leader' });
    assert.deepEqual(await set.overlaps(), []);
    for (const follower of followers) assert.ok(follower.running, `a replica exited while following (${JSON.stringify(follower.exit)})\n${follower.transcript()}`);
    for (const follower of followers) assert.deepEqual(await follower.stop('SIGTERM', 20_000), { code: 0, signal: null }, follower.transcript());
  });

  test('the overlap check finds two replicas’ calls of one object that overlap, and a killed replica’s open call counts until its kill', () => {
    const call = (pid: number, key: string, phase: 'start' | 'end', at: number): ReplicaCall => ({ pid, key, phase, at, resourceVersion: '1' });
    const sequential = [call(1, 'a', 'start', 0), call(1, 'a', 'end', 10), call(2, 'a', 'start', 10), call(2, 'a', 'end', 20), call(2, 'b', 'start', 5), call(2, 'b', 'end', 6)];
    assert.deepEqual(overlaps(sequential, new Map(), 100), []);
    assert.equal(overlaps([...sequential, call(3, 'a', 'start', 15), call(3, 'a', 'end', 30)], new Map(), 100).length, 1);
    const killedMidCall = [call(1, 'a', 'start', 0), call(2, 'a', 'start', 40), call(2, 'a', 'end', 50)];
    assert.deepEqual(overlaps(killedMidCall, new Map([[1, 30]]), 100), []);
    assert.equal(overlaps(killedMidCall, new Map([[1, 45]]), 100).length, 1);
  });
});
