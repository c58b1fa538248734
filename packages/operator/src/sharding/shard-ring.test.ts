import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, Client, HttpTransport, LeaseKind } from '@kubeloop/resource';
import type { Identifier } from '@kubeloop/resource';
import { startApiServer } from '@kubeloop/apiserver';
import { waitFor } from '@kubeloop/apiserver/testing';
import { VirtualClock } from '../clock.js';
import type { Clock, Timer } from '../clock.js';
import type { LeaderLease } from '../runtime/leader-elector.js';
import { assignSlots } from './slot-assignment.js';
import { ShardRing, shardRingLabel, shardSlotsAnnotation } from './shard-ring.js';
import type { ShardParticipant, ShardRingLeaseClient } from './shard-ring.js';

/** Leases in memory with the server's resourceVersion check; one client per replica, each of which can be made to fail. */
class LeaseStore {
  readonly leases = new Map<string, LeaderLease>();
  #rv = 0;

  clientFor(failing: () => boolean): ShardRingLeaseClient {
    const check = (): void => {
      if (failing()) throw new ApiError({ status: 503 });
    };
    return {
      get: async ({ name }: Identifier) => {
        check();
        const lease = this.leases.get(name);
        if (!lease) throw new ApiError({ status: 404 });
        return structuredClone(lease);
      },
      create: async (object: LeaderLease) => {
        check();
        if (this.leases.has(object.metadata.name)) throw new ApiError({ status: 409, reason: 'AlreadyExists' });
        return this.#put(object);
      },
      update: async (object: LeaderLease) => {
        check();
        const current = this.leases.get(object.metadata.name);
        if (!current) throw new ApiError({ status: 404 });
        if (object.metadata.resourceVersion !== current.metadata.resourceVersion) throw new ApiError({ status: 409, reason: 'Conflict' });
        return this.#put(object);
      },
      list: async (_namespace: string, { labelSelector }: { labelSelector: string }) => {
        check();
        const [key, value] = labelSelector.split('=');
        return { items: [...this.leases.values()].filter((l) => l.metadata.labels?.[key ?? ''] === value).map((l) => structuredClone(l)) };
      },
      delete: async ({ name }: Identifier) => {
        check();
        this.leases.delete(name);
        return undefined;
      },
    };
  }

  table(ring: string): string[] {
    return JSON.parse(this.leases.get(`${ring}-slots`)?.metadata.annotations?.[shardSlotsAnnotation] ?? '[]') as string[];
  }

  #put(object: LeaderLease): LeaderLease {
    const stored = structuredClone({ ...object, metadata: { ...object.metadata, resourceVersion: String(++this.#rv) } });
    this.leases.set(object.metadata.name, stored);
    return structuredClone(stored);
  }
}

/**
 * Every replica's participant records when slots start and stop running; `check()` fails when a slot
 * ran in two replicas at once. A stopping slot runs until its replica's `apply` resolved.
 */
class Timeline {
  readonly running = new Map<string, Set<number>>();
  readonly violations: string[] = [];

  participant(identity: string): ShardParticipant {
    this.running.set(identity, new Set());
    return {
      apply: async (slots) => {
        const mine = this.running.get(identity) as Set<number>;
        for (const slot of slots) {
          for (const [other, theirs] of this.running) {
            if (other !== identity && theirs.has(slot)) this.violations.push(`slot ${slot} started in ${identity} while running in ${other}`);
          }
          mine.add(slot);
        }
        // The hand-over of a stopping slot takes a while (handler calls finish).
        await new Promise((resolve) => setImmediate(resolve));
        for (const slot of [...mine]) if (!slots.has(slot)) mine.delete(slot);
      },
    };
  }

  slotsOf(identity: string): number[] {
    return [...(this.running.get(identity) ?? [])].sort((a, b) => a - b);
  }
}

/**
 * A replica's view of a shared virtual clock that can be frozen as SIGSTOP freezes a process: while
 * frozen its timers do not fire (they are held), and on thaw they fire late, reading the late time.
 */
class FreezableClock implements Clock {
  #frozen = false;
  readonly #held: (() => void)[] = [];

  constructor(private readonly inner: VirtualClock) {}

  now(): number {
    return this.inner.now();
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    return this.inner.setTimer(delayMs, () => (this.#frozen ? this.#held.push(fn) : fn()));
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        timer.cancel();
        reject(signal?.reason as Error);
      };
      const timer = this.setTimer(delayMs, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  freeze(): void {
    this.#frozen = true;
  }

  thaw(): void {
    this.#frozen = false;
    for (const fn of this.#held.splice(0)) fn();
  }
}

const probe = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', uid: 'u' } };
const slotsOwnedBy = (table: readonly string[], identity: string): number[] => table.flatMap((owner, slot) => (owner === identity ? [slot] : []));

interface Replica {
  readonly ring: ShardRing;
  readonly stop: AbortController;
  readonly done: Promise<void>;
  failing: boolean;
}

function fleet(options: { slots?: number } = {}) {
  const clock = new VirtualClock(1_000_000);
  const store = new LeaseStore();
  const timeline = new Timeline();
  const replicas = new Map<string, Replica>();
  const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  return {
    clock,
    store,
    timeline,
    replicas,
    start(identity: string, ownClock: Clock = clock): Replica {
      const replica: Replica = { failing: false } as Replica;
      const ring = new ShardRing({ name: 'web', namespace: 'ops', identity, client: store.clientFor(() => replica.failing), slots: options.slots ?? 12, clock: ownClock, logger: quiet, ...timings });
      ring.setParticipant(timeline.participant(identity));
      const stop = new AbortController();
      Object.assign(replica, { ring, stop, done: ring.run(stop.signal) });
      replicas.set(identity, replica);
      return replica;
    },
    /** Moves the virtual clock in steps of the retry period, letting each round's requests finish. */
    async advance(ms: number): Promise<void> {
      for (let elapsed = 0; elapsed < ms; elapsed += 250) {
        await clock.advance(250);
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

describe('ShardRing', () => {
  test('1 -> 3 -> 2 members: the slot table follows rendezvous hashing, and no slot ever runs in two replicas', async () => {
    const f = fleet();
    f.start('a');
    await f.advance(2_000);
    assert.deepEqual(f.timeline.slotsOf('a'), Array.from({ length: 12 }, (_, i) => i), 'a lone member runs every slot');
    f.start('b');
    f.start('c');
    await f.advance(4_000);
    const three = assignSlots('web', 12, ['a', 'b', 'c']);
    assert.deepEqual(f.store.table('web'), three);
    for (const id of ['a', 'b', 'c']) assert.deepEqual(f.timeline.slotsOf(id), slotsOwnedBy(three, id), id);
    assert.deepEqual(f.replicas.get('b')?.ring.ownedSlots(), slotsOwnedBy(three, 'b'));

    // c leaves gracefully: it frees its slots and deletes its Lease, so a and b take them within a round or two, not a lease duration.
    const c = f.replicas.get('c') as Replica;
    c.stop.abort();
    await f.advance(250);
    await c.done;
    assert.equal(f.store.leases.has('web-member-c'), false);
    await f.advance(1_000);
    const two = assignSlots('web', 12, ['a', 'b']);
    assert.deepEqual(f.store.table('web'), two);
    assert.deepEqual(f.timeline.slotsOf('a'), slotsOwnedBy(two, 'a'));
    assert.deepEqual(f.timeline.slotsOf('c'), []);
    assert.deepEqual(f.timeline.violations, []);
    for (const r of f.replicas.values()) r.stop.abort();
    await f.advance(500);
  });

  test('a member that cannot renew fences itself before its slots may be taken; the others take them only after its Lease expired', async () => {
    const f = fleet();
    const a = f.start('a');
    f.start('b');
    await f.advance(3_000);
    const aSlots = f.timeline.slotsOf('a');
    assert.ok(aSlots.length > 0 && f.timeline.slotsOf('b').length > 0);
    assert.equal(a.ring.admits(probe), a.ring.ownedSlots().includes(a.ring.slotOfObject(probe)));

    // a's API calls fail from now on (a partition): it renews no more.
    a.failing = true;
    const cut = f.clock.now();
    let fencedAt: number | undefined;
    let takenAt: number | undefined;
    while (f.clock.now() - cut < 6_000) {
      await f.advance(250);
      if (fencedAt === undefined && f.timeline.slotsOf('a').length === 0) fencedAt = f.clock.now() - cut;
      if (takenAt === undefined && aSlots.every((slot) => f.timeline.slotsOf('b').includes(slot))) takenAt = f.clock.now() - cut;
    }
    assert.ok(fencedAt !== undefined && fencedAt <= 2_750, `a stopped its slots ${fencedAt} ms after its last renewal (renew deadline 2000 ms)`);
    assert.ok(takenAt !== undefined && takenAt >= 3_000, `b took a's slots ${takenAt} ms after a's last renewal (lease duration 3000 ms)`);
    assert.ok(fencedAt < takenAt);
    assert.equal(a.ring.admits(probe), false, 'a fenced replica admits nothing');
    assert.deepEqual(f.timeline.violations, []);

    // a comes back: it rejoins and gets its share again, through the table.
    a.failing = false;
    await f.advance(4_000);
    assert.deepEqual(f.store.table('web'), assignSlots('web', 12, ['a', 'b']));
    assert.deepEqual(f.timeline.slotsOf('a'), aSlots);
    assert.deepEqual(f.timeline.violations, []);
    for (const r of f.replicas.values()) r.stop.abort();
    await f.advance(500);
  });

  test('a member frozen past its lease (SIGSTOP) whose slots were taken over stops them when it wakes, before its renewal makes it fresh again', async () => {
    const f = fleet();
    const frozen = new FreezableClock(f.clock);
    const a = f.start('a', frozen);
    f.start('b');
    await f.advance(3_000);
    const aSlots = f.timeline.slotsOf('a');
    assert.ok(aSlots.length > 0);
    const inASlot = Array.from({ length: 200 }, (_, i) => ({ ...probe, metadata: { name: `x${i}`, uid: `u${i}` } })).find((o) => aSlots.includes(a.ring.slotOfObject(o)))!;

    try {
      frozen.freeze();
      await f.advance(6_000);
      assert.deepEqual(slotsOwnedBy(f.store.table('web'), 'b').length, 12, 'b took every slot once a’s Lease expired');

      // a wakes: its timers fire late. Its first round must stop the slots b now runs, not renew and go on with them.
      frozen.thaw();
      assert.equal(a.ring.admits(inASlot), false, 'a admits nothing the moment it wakes');
      await f.advance(250);
      const both = f.timeline.slotsOf('a').filter((slot) => f.timeline.slotsOf('b').includes(slot));
      assert.deepEqual(both, [], 'no slot runs in a and b after a woke');
      assert.equal(a.ring.admits(inASlot), f.timeline.slotsOf('a').includes(a.ring.slotOfObject(inASlot)));

      // Then a gets its share back through the table.
      await f.advance(4_000);
      assert.deepEqual(f.store.table('web'), assignSlots('web', 12, ['a', 'b']));
      assert.deepEqual(f.timeline.slotsOf('a'), aSlots);
    } finally {
      // Stopped on failure too: a ring left running holds the process open.
      frozen.thaw();
      for (const r of f.replicas.values()) r.stop.abort();
      await f.advance(500);
    }
  });

  test('replicas configured with different slot counts refuse to share a ring', async () => {
    const f = fleet();
    f.start('a');
    await f.advance(1_000);
    const warnings: string[] = [];
    const odd = new ShardRing({
      name: 'web',
      namespace: 'ops',
      identity: 'odd',
      client: f.store.clientFor(() => false),
      slots: 8,
      clock: f.clock,
      leaseDurationMs: 3_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 500,
      logger: { debug: () => undefined, info: () => undefined, warn: (m, a) => warnings.push(`${m} ${String(a?.['error'])}`), error: () => undefined },
    });
    const stop = new AbortController();
    const done = odd.run(stop.signal);
    await f.advance(1_000);
    assert.deepEqual(odd.ownedSlots(), []);
    assert.ok(warnings.some((w) => /ring web has 12 slots, this replica is configured with 8/.test(w)), warnings.join('\n'));
    stop.abort();
    for (const r of f.replicas.values()) r.stop.abort();
    await f.advance(500);
    await done;
  });
});

describe('ShardRing on the embedded API server', () => {
  const servers: { stop(): Promise<void> }[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
  });

  test('a Client<Lease> is a ring client: member Leases labelled, the slot table written, both gone or freed on leave', async () => {
    const server = await startApiServer();
    servers.push(server);
    const transport = new HttpTransport({ server: server.url });
    const client = new Client(LeaseKind, transport);
    const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    const rings = ['a', 'b'].map((identity) => new ShardRing({ name: 'web', namespace: 'default', identity, client, slots: 8, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 100, logger: quiet }));
    const stop = new AbortController();
    const runs = rings.map((ring) => ring.run(stop.signal));
    const expected = assignSlots('web', 8, ['a', 'b']);
    await waitFor(() => JSON.stringify(rings.map((r) => r.ownedSlots())) === JSON.stringify(['a', 'b'].map((id) => slotsOwnedBy(expected, id))), { what: 'both rings own their slots' });
    assert.deepEqual(rings.map((r) => r.ownedSlots()), ['a', 'b'].map((id) => slotsOwnedBy(expected, id)));
    const members = await client.list('default', { labelSelector: `${shardRingLabel}=web` });
    assert.deepEqual(members.items.map((l) => l.metadata.name).sort(), ['web-member-a', 'web-member-b']);
    stop.abort();
    await Promise.all(runs);
    assert.deepEqual((await client.list('default', { labelSelector: `${shardRingLabel}=web` })).items, []);
    const ring = await client.get({ namespace: 'default', name: 'web-slots' });
    assert.deepEqual(JSON.parse(ring.metadata.annotations?.[shardSlotsAnnotation] ?? ''), Array.from({ length: 8 }, () => ''));
    transport.close();
  });
});
