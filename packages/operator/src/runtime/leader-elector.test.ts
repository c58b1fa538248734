import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { Identifier } from '@kubeloop/resource';
import { VirtualClock } from '../clock.js';
import { LeaderElector } from './leader-elector.js';
import type { LeaderElectorOptions, LeaderLease, LeaseClient } from './leader-elector.js';

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** One Lease in memory with the server's resourceVersion check, and switches to make requests fail. */
class FakeLeases implements LeaseClient {
  lease: LeaderLease | undefined;
  private rv = 0;
  failAll = false;
  /** Answer the next create with 409 AlreadyExists (somebody else created it first). */
  conflictOnNextCreate = false;
  /** Make the next update conflict (somebody else wrote the lease in between). */
  conflictOnNextUpdate = false;
  requests: string[] = [];

  async get({ namespace, name }: Identifier): Promise<LeaderLease> {
    this.requests.push('get');
    if (this.failAll) throw new ApiError({ status: 503 });
    if (!this.lease || this.lease.metadata.name !== name || this.lease.metadata.namespace !== namespace) throw new ApiError({ status: 404 });
    return structuredClone(this.lease);
  }

  async create(object: LeaderLease): Promise<LeaderLease> {
    this.requests.push('create');
    if (this.failAll) throw new ApiError({ status: 503 });
    if (this.conflictOnNextCreate) {
      this.conflictOnNextCreate = false;
      this.put({ ...object, spec: { holderIdentity: 'racer', leaseDurationSeconds: 15 } });
      throw new ApiError({ status: 409, reason: 'AlreadyExists' });
    }
    if (this.lease) throw new ApiError({ status: 409, reason: 'AlreadyExists' });
    return this.put(object);
  }

  async update(object: LeaderLease): Promise<LeaderLease> {
    this.requests.push('update');
    if (this.failAll) throw new ApiError({ status: 503 });
    if (this.conflictOnNextUpdate) {
      this.conflictOnNextUpdate = false;
      this.put({ ...this.lease!, spec: { holderIdentity: 'racer', leaseDurationSeconds: 15 } });
      throw new ApiError({ status: 409, reason: 'Conflict' });
    }
    if (!this.lease) throw new ApiError({ status: 404 });
    if (object.metadata.resourceVersion !== this.lease.metadata.resourceVersion) throw new ApiError({ status: 409, reason: 'Conflict' });
    return this.put(object);
  }

  /** Writes as another client would (new resourceVersion). */
  put(object: LeaderLease): LeaderLease {
    this.lease = structuredClone({ ...object, metadata: { ...object.metadata, resourceVersion: String(++this.rv) } });
    return structuredClone(this.lease);
  }

  holder(): string {
    return this.lease?.spec?.holderIdentity ?? '';
  }
}

interface Harness {
  clock: VirtualClock;
  leases: FakeLeases;
  elector: LeaderElector;
  events: string[];
  leadingSignal: () => AbortSignal | undefined;
}

function harness(overrides: Partial<LeaderElectorOptions> = {}, shared?: { clock: VirtualClock; leases: FakeLeases }): Harness {
  const clock = shared?.clock ?? new VirtualClock(1_700_000_000_000);
  const leases = shared?.leases ?? new FakeLeases();
  const events: string[] = [];
  let leading: AbortSignal | undefined;
  const identity = overrides.identity ?? 'a';
  const elector = new LeaderElector({
    lease: { namespace: 'kube-system', name: 'demo' },
    identity,
    client: leases,
    clock,
    random: () => 0,
    onStartedLeading: (signal) => {
      leading = signal;
      events.push(`${identity}:started`);
    },
    onStoppedLeading: () => events.push(`${identity}:stopped`),
    onNewLeader: (id) => events.push(`${identity}:leader=${id}`),
    ...overrides,
  });
  return { clock, leases, elector, events, leadingSignal: () => leading };
}

/** Runs the elector; the leading work lasts until its signal aborts. */
function runUntilAborted(h: Harness, signal: AbortSignal): Promise<string> {
  return h.elector.run(signal);
}

describe('LeaderElector', () => {
  test('creates a missing lease, leads, and writes MicroTime with six fractional digits', async () => {
    const h = harness();
    const stop = new AbortController();
    const done = runUntilAborted(h, stop.signal);
    await h.clock.advance(0);
    assert.equal(h.elector.isLeader(), true);
    assert.equal(h.elector.getLeader(), 'a');
    assert.deepEqual(h.events, ['a:leader=a', 'a:started']);
    const spec = h.leases.lease!.spec!;
    assert.equal(spec.holderIdentity, 'a');
    assert.equal(spec.leaseDurationSeconds, 15);
    assert.match(spec.renewTime!, MICRO_TIME);
    assert.match(spec.acquireTime!, MICRO_TIME);
    assert.equal(spec.leaseTransitions, 0);
    const metrics = await h.elector.prometheusCollectors()[0]!.get();
    assert.equal(metrics.values[0]!.value, 1);
    stop.abort();
    assert.equal(await done, 'stopped');
  });

  test('renews every retry period without a GET while it leads', async () => {
    const h = harness();
    const stop = new AbortController();
    const done = runUntilAborted(h, stop.signal);
    await h.clock.advance(0);
    const firstRenew = h.leases.lease!.spec!.renewTime;
    h.leases.requests = [];
    await h.clock.advance(2_000);
    assert.deepEqual(h.leases.requests, ['update']);
    assert.notEqual(h.leases.lease!.spec!.renewTime, firstRenew);
    stop.abort();
    await done;
  });

  test('a follower waits while the lease is renewed and takes over one lease duration after it stopped changing', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const leases = new FakeLeases();
    // The holder's clock is far in the future: expiry must not be judged from its timestamps.
    leases.put({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'demo', namespace: 'kube-system' },
      spec: { holderIdentity: 'old', leaseDurationSeconds: 15, renewTime: '2099-01-01T00:00:00.000000Z', leaseTransitions: 3 },
    });
    const h = harness({ identity: 'b' }, { clock, leases });
    const stop = new AbortController();
    const done = runUntilAborted(h, stop.signal);
    await clock.advance(0);
    assert.equal(h.elector.isLeader(), false);
    assert.equal(h.elector.getLeader(), 'old');

    // The old holder keeps renewing for 20 s: no take-over.
    for (let t = 0; t < 10; t++) {
      await clock.advance(2_000);
      leases.put({ ...leases.lease!, spec: { ...leases.lease!.spec, renewTime: `2099-01-01T00:00:${String(10 + t)}.000000Z` } });
    }
    assert.equal(h.elector.isLeader(), false);

    // It stops renewing. The follower saw the last change at t=22 s (its poll after the write at
    // t=20 s), so it may take over from t=37 s: its polls at 36 s and 38 s tell.
    await clock.advance(16_000);
    assert.equal(clock.now() - 1_700_000_000_000, 36_000);
    assert.equal(h.elector.isLeader(), false);
    await clock.advance(2_000);
    assert.equal(h.elector.isLeader(), true);
    assert.equal(leases.holder(), 'b');
    assert.equal(leases.lease!.spec!.leaseTransitions, 4);
    assert.deepEqual(h.events, ['b:leader=old', 'b:leader=b', 'b:started']);
    stop.abort();
    await done;
  });

  test('a 409 on create is a lost race, not an error, and the winner is respected', async () => {
    const h = harness();
    h.leases.conflictOnNextCreate = true;
    const stop = new AbortController();
    const done = runUntilAborted(h, stop.signal);
    await h.clock.advance(0);
    assert.equal(h.elector.isLeader(), false);
    await h.clock.advance(2_000);
    assert.equal(h.elector.isLeader(), false);
    assert.equal(h.elector.getLeader(), 'racer');
    stop.abort();
    assert.equal(await done, 'stopped');
    assert.deepEqual(h.events, ['a:leader=racer']);
  });

  test('a 409 on the take-over PUT is a lost race', async () => {
    const h = harness();
    h.leases.put({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'demo', namespace: 'kube-system' }, spec: { holderIdentity: '' } });
    h.leases.conflictOnNextUpdate = true;
    const stop = new AbortController();
    const done = runUntilAborted(h, stop.signal);
    await h.clock.advance(0);
    assert.equal(h.elector.isLeader(), false);
    await h.clock.advance(2_000);
    assert.equal(h.elector.isLeader(), false, 'the racer now holds a fresh lease');
    assert.equal(h.leases.holder(), 'racer');
    stop.abort();
    await done;
  });

  test('a PUT with a stale resourceVersion is rejected by the fake, as by the server', async () => {
    const leases = new FakeLeases();
    const lease = leases.put({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'demo', namespace: 'kube-system' } });
    leases.put(lease);
    await assert.rejects(leases.update(lease), (err: ApiError) => err.status === 409);
  });

  test('a leader that cannot renew within the renew deadline stops leading and does not release', async () => {
    const h = harness();
    const stop = new AbortController();
    const done = runUntilAborted(h, stop.signal);
    await h.clock.advance(0);
    assert.equal(h.elector.isLeader(), true);
    h.leases.failAll = true;
    // Renew round starts at t=2 s; attempts at 2, 4, 6, 8, 10 s fail; the deadline is 12 s.
    await h.clock.advance(11_000);
    assert.equal(h.elector.isLeader(), true);
    assert.equal(h.leadingSignal()!.aborted, false);
    await h.clock.advance(1_500);
    assert.equal(h.elector.isLeader(), false);
    assert.equal(h.leadingSignal()!.aborted, true);
    assert.equal(await done, 'lost');
    assert.deepEqual(h.events, ['a:leader=a', 'a:started', 'a:stopped']);
    h.leases.failAll = false;
    assert.equal(h.leases.holder(), 'a', 'nothing was written once renewals failed');
    const metrics = await h.elector.prometheusCollectors()[0]!.get();
    assert.equal(metrics.values[0]!.value, 0);
  });

  test('a leader that sees another holder stops at once', async () => {
    const h = harness();
    const stop = new AbortController();
    const done = runUntilAborted(h, stop.signal);
    await h.clock.advance(0);
    h.leases.put({ ...h.leases.lease!, spec: { holderIdentity: 'usurper', leaseDurationSeconds: 15 } });
    await h.clock.advance(2_000);
    assert.equal(await done, 'lost');
    assert.equal(h.elector.getLeader(), 'usurper');
  });

  test('on cancel the lease is released only after the leading work has finished, and a follower takes over at once', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const leases = new FakeLeases();
    let finishWork!: () => void;
    const a = harness(
      {
        identity: 'a',
        onStartedLeading: (signal) =>
          new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => {
              finishWork = resolve;
            });
          }),
      },
      { clock, leases },
    );
    const b = harness({ identity: 'b' }, { clock, leases });
    const stopA = new AbortController();
    const stopB = new AbortController();
    const doneA = a.elector.run(stopA.signal);
    await clock.advance(0);
    const doneB = b.elector.run(stopB.signal);
    await clock.advance(0);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(b.elector.isLeader(), false);

    stopA.abort();
    // The work is winding down for 20 s: the lease stays held and renewed all along.
    await clock.advance(20_000);
    assert.equal(leases.holder(), 'a');
    assert.equal(b.elector.isLeader(), false);

    finishWork();
    assert.equal(await doneA, 'stopped');
    assert.equal(leases.holder(), '');
    assert.equal(leases.lease!.spec!.leaseDurationSeconds, 1);
    assert.match(leases.lease!.spec!.renewTime!, MICRO_TIME);
    await clock.advance(2_000);
    assert.equal(b.elector.isLeader(), true);
    assert.equal(leases.lease!.spec!.leaseTransitions, 1);
    stopB.abort();
    await doneB;
  });

  test('releaseOnCancel false leaves the lease to expire', async () => {
    const h = harness({ releaseOnCancel: false });
    const stop = new AbortController();
    const done = h.elector.run(stop.signal);
    await h.clock.advance(0);
    stop.abort();
    await done;
    assert.equal(h.leases.holder(), 'a');
  });

  test('a failing leading work ends leadership, releases the lease and rejects run()', async () => {
    const h = harness({
      onStartedLeading: async () => {
        throw new Error('controller crashed');
      },
    });
    await assert.rejects(h.elector.run(new AbortController().signal), /controller crashed/);
    assert.equal(h.leases.holder(), '');
    assert.equal(h.elector.isLeader(), false);
  });

  test('failed requests while campaigning are retried and reported', async () => {
    const errors: unknown[] = [];
    const h = harness({ onError: (e) => errors.push(e) });
    h.leases.failAll = true;
    const stop = new AbortController();
    const done = h.elector.run(stop.signal);
    await h.clock.advance(0);
    assert.equal(h.elector.leaderKnown(), false);
    assert.equal(errors.length, 1);
    h.leases.failAll = false;
    await h.clock.advance(2_000);
    assert.equal(h.elector.isLeader(), true);
    assert.equal(h.elector.lastError(), undefined);
    stop.abort();
    await done;
  });

  test('invalid durations are rejected at construction', () => {
    const base = { lease: { namespace: 'n', name: 'l' }, identity: 'a', client: new FakeLeases(), onStartedLeading: () => undefined };
    assert.throws(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /leaseDurationMs must be greater/);
    assert.throws(() => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }), /renewDeadlineMs must be greater/);
    assert.throws(() => new LeaderElector({ ...base, identity: '' }), /identity cannot be empty/);
  });
});
