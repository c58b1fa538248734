import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEnv } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';
import { Client, HttpTransport, LeaseKind, isConflict, isMicroTime, loadKubeConfig } from '@kubeloop/resource';
import type { Lease } from '@kubeloop/resource';
import { LeaderElector } from '@kubeloop/operator';
import { waitFor } from './support/wait-for.js';

// Short timings keep the test quick; their ratios are client-go's.
const TIMINGS = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };
// A lease that would take 10 s to expire: a release taken "at once" stays far from it, whatever the load.
const LONG_LEASE = { leaseDurationMs: 10_000, renewDeadlineMs: 6000 };

describe('LeaderElector against the embedded API server', () => {
  let env: TestEnv;
  let transport: HttpTransport;
  let leases: Client<Lease>;
  const stops: AbortController[] = [];

  before(async () => {
    env = await startTestEnv();
    // The electors' client reads the kubeconfig file, as an operator's main does.
    transport = HttpTransport.fromKubeConfig(loadKubeConfig({ kubeconfigPath: env.kubeconfigPath }));
    leases = new Client(LeaseKind, transport);
  });

  after(async () => {
    for (const s of stops) s.abort();
    transport.close();
    await env.stop();
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
    const a = elector('pair', 'a', LONG_LEASE);
    const b = elector('pair', 'b', LONG_LEASE);
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
    const [leaderElector, follower] = leader === 'a' ? [a.elector, b.elector] : [b.elector, a.elector];
    assert.equal(leaderElector.getLeader(), leader);
    // The follower knows the leader from its own last read of the lease, one retry period after its lost
    // create at the latest, and under load that read can still be on its way: wait for it, then check it.
    await waitFor(() => follower.getLeader() !== '', { timeoutMs: 5_000, what: 'the follower to read the lease' });
    assert.equal(follower.getLeader(), leader);
    assert.equal(Number(a.elector.isLeader()) + Number(b.elector.isLeader()), 1);

    const lease = await leases.get({ namespace: 'default', name: 'pair' });
    assert.equal(lease.spec?.holderIdentity, leader);
    assert.equal(lease.spec?.leaseDurationSeconds, 10);
    assert.ok(isMicroTime(lease.spec?.renewTime ?? ''), `renewTime ${lease.spec?.renewTime}`);
    assert.ok(isMicroTime(lease.spec?.acquireTime ?? ''), `acquireTime ${lease.spec?.acquireTime}`);

    // The leader stops: it releases the lease, and the follower takes over well before the lease duration.
    const leaderStop = leader === 'a' ? stopA : stopB;
    const stoppedAt = Date.now();
    leaderStop.abort();
    assert.equal(await (leader === 'a' ? runA : runB), 'stopped');
    await waitFor(() => follower.isLeader(), { timeoutMs: LONG_LEASE.leaseDurationMs / 2, what: 'the follower to take over' });
    assert.ok(Date.now() - stoppedAt < LONG_LEASE.leaseDurationMs / 2, 'a released lease is taken at once, not after the lease duration');
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
