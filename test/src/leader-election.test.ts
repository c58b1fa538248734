import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '@kubeloop/apiserver';
import { Client, HttpTransport, LeaseKind, isConflict, isMicroTime, loadKubeConfig } from '@kubeloop/resource';
import type { Lease } from '@kubeloop/resource';
import { LeaderElector } from '@kubeloop/operator';
import { waitFor } from './support/wait-for.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Short timings keep the test quick; their ratios are client-go's.
const TIMINGS = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };

describe('LeaderElector against the embedded API server', () => {
  let server: Awaited<ReturnType<typeof startApiServer>>;
  let transport: HttpTransport;
  let leases: Client<Lease>;
  let dir: string;
  const stops: AbortController[] = [];

  before(async () => {
    server = await startApiServer();
    dir = await mkdtemp(join(tmpdir(), 'kubeloop-le-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    transport = HttpTransport.fromKubeConfig(loadKubeConfig({ kubeconfigPath: join(dir, 'kubeconfig') }));
    leases = new Client(LeaseKind, transport);
  });

  after(async () => {
    for (const s of stops) s.abort();
    transport.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function elector(name: string, identity: string, extra: Partial<ConstructorParameters<typeof LeaderElector>[0]> = {}): { elector: LeaderElector; leading: string[] } {
    const leading: string[] = [];
    const e = new LeaderElector({
      client: leases,
      lease: { namespace: 'default', name },
      identity,
      ...TIMINGS,
      onStartedLeading: () => {
        leading.push(identity);
      },
      ...extra,
    });
    return { elector: e, leading };
  }

  test('one of two candidates leads, the lease carries MicroTime with six digits, and the other follows', { timeout: 30_000 }, async () => {
    const a = elector('pair', 'a');
    const b = elector('pair', 'b');
    const stopA = new AbortController();
    const stopB = new AbortController();
    stops.push(stopA, stopB);
    const runA = a.elector.run(stopA.signal);
    const runB = b.elector.run(stopB.signal);
    await waitFor(() => a.elector.isLeader() || b.elector.isLeader(), { timeoutMs: 10_000, what: 'a leader' });
    // Two lease renewals later (observed on the server, not slept for), still exactly one leader.
    let lastRenew = (await leases.get({ namespace: 'default', name: 'pair' })).spec?.renewTime;
    let renewals = 0;
    await waitFor(
      async () => {
        const renewTime = (await leases.get({ namespace: 'default', name: 'pair' })).spec?.renewTime;
        if (renewTime !== lastRenew) {
          renewals++;
          lastRenew = renewTime;
        }
        return renewals >= 2;
      },
      { timeoutMs: 10_000, what: 'two renewals of the lease' },
    );
    assert.equal(Number(a.elector.isLeader()) + Number(b.elector.isLeader()), 1);
    const leader = a.elector.isLeader() ? 'a' : 'b';
    assert.equal((leader === 'a' ? a : b).elector.getLeader(), leader);
    // The follower learns who leads at its next attempt, which a jittered retry period (up to 2.2 of them) may still hold back.
    const follower = leader === 'a' ? b : a;
    await waitFor(() => follower.elector.getLeader() === leader, { timeoutMs: 10_000, what: 'the follower to observe the leader' });

    const lease = await leases.get({ namespace: 'default', name: 'pair' });
    assert.equal(lease.spec?.holderIdentity, leader);
    assert.equal(lease.spec?.leaseDurationSeconds, 2);
    assert.ok(isMicroTime(lease.spec?.renewTime ?? ''), `renewTime ${lease.spec?.renewTime}`);
    assert.ok(isMicroTime(lease.spec?.acquireTime ?? ''), `acquireTime ${lease.spec?.acquireTime}`);

    // The leader stops: it releases the lease, and the follower takes over well before the lease duration.
    const [leaderStop, followerElector] = leader === 'a' ? [stopA, b.elector] : [stopB, a.elector];
    const stoppedAt = Date.now();
    leaderStop.abort();
    assert.equal(await (leader === 'a' ? runA : runB), 'stopped');
    await waitFor(() => followerElector.isLeader(), { timeoutMs: 5_000, what: 'the follower to take over' });
    assert.ok(Date.now() - stoppedAt < TIMINGS.leaseDurationMs, 'a released lease is taken at once');
    const after = await leases.get({ namespace: 'default', name: 'pair' });
    assert.equal(after.spec?.leaseTransitions, 1);
    (leader === 'a' ? stopB : stopA).abort();
    await Promise.all([runA, runB]);
  });

  test('a leader that vanishes without releasing is replaced after the lease duration, not before', { timeout: 30_000 }, async () => {
    const a = elector('vanish', 'a', { releaseOnCancel: false });
    const stopA = new AbortController();
    stops.push(stopA);
    const runA = a.elector.run(stopA.signal);
    await waitFor(() => a.elector.isLeader(), { timeoutMs: 10_000, what: 'a to lead' });
    stopA.abort();
    await runA;
    const diedAt = Date.now();

    const b = elector('vanish', 'b');
    const stopB = new AbortController();
    stops.push(stopB);
    const runB = b.elector.run(stopB.signal);
    await waitFor(() => b.elector.isLeader(), { timeoutMs: 10_000, what: 'b to take over' });
    const tookOver = Date.now() - diedAt;
    assert.ok(tookOver >= TIMINGS.leaseDurationMs - 300, `took over after ${tookOver} ms, before the lease could expire`);
    assert.ok(tookOver < TIMINGS.leaseDurationMs * 3, `took over after ${tookOver} ms`);
    stopB.abort();
    await runB;
  });

  test('a write with a stale resourceVersion is refused with 409: the invariant the election rests on', { timeout: 30_000 }, async () => {
    const created = await leases.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'race', namespace: 'default' },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 15 },
    });
    await leases.update({ ...created, spec: { ...created.spec, holderIdentity: 'y' } });
    await assert.rejects(leases.update({ ...created, spec: { ...created.spec, holderIdentity: 'z' } }), (error: unknown) => isConflict(error));
  });
});
