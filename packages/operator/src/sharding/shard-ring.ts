/**
 * A ring of operator replicas sharing the hash space of their objects (KEP-5866 ranges), with
 * hand-over that never gives one slot to two replicas at once.
 *
 * - Membership: each replica holds a member Lease of its own (`<ring>-member-<identity>`, labelled
 *   `kubeloop.dev/shard-ring: <ring>`) and renews it every `retryPeriodMs`. A member is live while
 *   its Lease was seen to change within `leaseDurationMs` of the local clock (as client-go judges a
 *   leader: by observed time, never by the timestamps others wrote); a deleted member Lease is gone.
 * - Assignment: `slots` equal ranges of the hash space, each slot meant for the member that
 *   rendezvous hashing picks (`slot-assignment.ts`): the same table on every replica.
 * - Ownership: one ring Lease (`<ring>-slots`) records each slot's owner in the annotation
 *   `kubeloop.dev/shard-slots`, changed only by compare-and-swap (an update with the resourceVersion
 *   read). A replica stops a slot (its participant drops the slot's objects and lets the handler calls
 *   on them finish) before it frees it there, and starts a slot only after it recorded itself there;
 *   it takes a slot whose recorded owner is no longer live only after that owner's Lease expired.
 * - Fence: a replica whose own Lease was not renewed for `renewDeadlineMs` (shorter than the lease
 *   duration) stops every slot without asking anyone, so that it has stopped before another replica
 *   may take its slots over. `admits(object)` says synchronously, before each handler call, whether
 *   the object is in a running slot and the own Lease is fresh.
 */
import { formatMicroTime, isAlreadyExists, isConflict, isNotFound, shardHash, shardHashSpaceEnd } from '@kubeloop/resource';
import type { Identifier, KubeObject, ShardField, ShardRange } from '@kubeloop/resource';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Metric } from 'prom-client';
import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { InvalidArgumentError } from '../errors.js';
import { whileHoldingProcessOpen } from '../keep-alive.js';
import { consoleLogger } from '../observability/logger.js';
import type { Logger } from '../observability/logger.js';
import type { LeaderLease, LeaseClient } from '../runtime/leader-elector.js';
import { assignSlots, slotRanges } from './slot-assignment.js';

/** The label that makes a Lease a member of a ring (its value: the ring's name). */
export const shardRingLabel = 'kubeloop.dev/shard-ring';
/** The ring Lease's annotation holding the slot table: a JSON array, one owner identity ('' = free) per slot. */
export const shardSlotsAnnotation = 'kubeloop.dev/shard-slots';

/** What a ring needs of a Lease client: the leader elector's get, create and update, plus list and delete. A `Client<Lease>` satisfies it. */
export interface ShardRingLeaseClient extends LeaseClient {
  list(namespace: string, options: { labelSelector: string; signal?: AbortSignal | undefined }): Promise<{ items: LeaderLease[] }>;
  delete(id: Identifier, options?: { signal?: AbortSignal | undefined }): Promise<unknown>;
}

/** What runs the slots a replica owns: the operator (its sharded informers and controllers). */
export interface ShardParticipant {
  /**
   * Runs exactly `slots` from now on. Resolves once slots no longer in the set have stopped (their
   * objects released, their handler calls finished or cancelled) and new ones have started.
   */
  apply(slots: ReadonlySet<number>): Promise<void>;
}

/** Options of {@link ShardRing}. */
export interface ShardRingOptions {
  /** The ring's name: names its Leases and labels its members. Required. */
  name: string;
  /** Namespace of the ring's Leases. Required. */
  namespace: string;
  /** This replica's identity, unique in the ring (e.g. the pod name); part of a Lease name. Required. */
  identity: string;
  /** The Lease client. Required. */
  client: ShardRingLeaseClient;
  /** How many equal slots the hash space is cut into; every replica of a ring must use the same. Default: 16. */
  slots?: number | undefined;
  /** What objects are hashed by: `uid` or `namespace` (a namespace's objects stay together). Default: 'uid'. */
  field?: ShardField | undefined;
  /** How long a member is live after its Lease was last seen to change. Default: 15000. */
  leaseDurationMs?: number | undefined;
  /** How long a replica runs its slots without a successful renewal before it fences itself. Default: 10000. */
  renewDeadlineMs?: number | undefined;
  /** How often the ring renews, reads the membership and hands slots over. Default: 2000. */
  retryPeriodMs?: number | undefined;
  /** Time source for every wait and every judgement of liveness. Default: `realClock`. */
  clock?: Clock | undefined;
  /** Where hand-overs and failures are told. Default: `consoleLogger`. */
  logger?: Logger | undefined;
}

/** Why a replica stopped running a slot, or took it over (the `reason` label of `shard_handovers_total`). */
export type HandOverReason = 'rebalance' | 'member_expired' | 'fenced' | 'shutdown';

/** The slot of `value`'s hash among `slotCount` equal slots. */
export function slotOf(value: string, slotCount: number): number {
  return Number((shardHash(value) * BigInt(slotCount)) / shardHashSpaceEnd);
}

interface Observed {
  readonly resourceVersion: string | undefined;
  readonly at: number;
}

/** A ring of replicas sharing the hash space (see the file comment). */
export class ShardRing {
  readonly name: string;
  readonly identity: string;
  readonly slotCount: number;
  readonly field: ShardField;
  readonly #options: ShardRingOptions;
  readonly #client: ShardRingLeaseClient;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  #participant: ShardParticipant | undefined;
  /** Slots running here. */
  #running = new Set<number>();
  /** When the own member Lease was last renewed (clock time); -Infinity before the first renewal. */
  #renewedAt = -Infinity;
  /** Each member Lease's last seen resourceVersion and when it was first seen so. */
  readonly #observed = new Map<string, Observed>();
  /** Since when each slot has been without a live owner, as seen here. */
  readonly #unownedSince = new Map<number, number>();
  #members: string[] = [];
  readonly #slotsOwned: Gauge<'ring'>;
  readonly #membersGauge: Gauge<'ring'>;
  readonly #handOvers: Counter<'ring' | 'reason'>;
  readonly #unowned: Histogram<'ring'>;

  constructor(options: ShardRingOptions) {
    if (!options.name) throw new InvalidArgumentError('ring name cannot be empty');
    if (!options.namespace) throw new InvalidArgumentError('ring namespace cannot be empty');
    if (!options.identity) throw new InvalidArgumentError('identity cannot be empty');
    if (!options.client) throw new InvalidArgumentError('client cannot be nil');
    this.#options = options;
    this.name = options.name;
    this.identity = options.identity;
    this.slotCount = options.slots ?? 16;
    this.field = options.field ?? 'uid';
    this.#client = options.client;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? consoleLogger;
    this.#leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!Number.isInteger(this.slotCount) || this.slotCount < 1 || this.slotCount > 4096) throw new InvalidArgumentError('slots must be an integer in [1, 4096]');
    if (!(this.#leaseDurationMs > this.#renewDeadlineMs)) throw new InvalidArgumentError('leaseDurationMs must be greater than renewDeadlineMs');
    if (!(this.#renewDeadlineMs > this.#retryPeriodMs)) throw new InvalidArgumentError('renewDeadlineMs must be greater than retryPeriodMs');
    const common = { labelNames: ['ring'] as const, registers: [] };
    this.#slotsOwned = new Gauge({ name: 'shard_slots_owned', help: 'Slots of the ring this replica runs.', ...common });
    this.#membersGauge = new Gauge({ name: 'shard_members', help: 'Live members of the ring, as this replica sees them.', ...common });
    this.#handOvers = new Counter({ name: 'shard_handovers_total', help: 'Slots this replica stopped or took over from a dead member, by reason.', labelNames: ['ring', 'reason'], registers: [] });
    this.#unowned = new Histogram({
      name: 'shard_slot_unowned_seconds',
      help: 'How long a slot this replica took had been without a live owner.',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 15, 30, 60],
      ...common,
    });
    this.#slotsOwned.set({ ring: this.name }, 0);
  }

  /** Sets what runs the owned slots. Call it before `run()`. */
  setParticipant(participant: ShardParticipant): void {
    this.#participant = participant;
  }

  /** The slots running here, ascending. */
  ownedSlots(): number[] {
    return [...this.#running].sort((a, b) => a - b);
  }

  /** The hash ranges of the running slots (adjacent ones merged); empty when none runs. */
  ownedRanges(): ShardRange[] {
    return slotRanges(this.#running, this.slotCount, this.field);
  }

  /** The hash range of one slot, as one element of an informer's shard. */
  slotRange(slot: number): ShardRange {
    return slotRanges([slot], this.slotCount, this.field)[0] as ShardRange;
  }

  /** The live members as last read, sorted. */
  members(): string[] {
    return [...this.#members];
  }

  /** The slot an object belongs to (by the ring's field). */
  slotOfObject(object: KubeObject): number {
    const value = this.field === 'uid' ? (object.metadata.uid ?? '') : (object.metadata.namespace ?? '');
    return slotOf(value, this.slotCount);
  }

  /** True when `object` is in a slot running here and this replica's Lease is fresh: checked before each handler call. */
  admits(object: KubeObject): boolean {
    return this.#fresh() && this.#running.has(this.slotOfObject(object));
  }

  /** Metrics: `shard_slots_owned`, `shard_members`, `shard_handovers_total`, `shard_slot_unowned_seconds` (label `ring`). */
  prometheusCollectors(): Metric[] {
    return [this.#slotsOwned, this.#membersGauge, this.#handOvers, this.#unowned];
  }

  /**
   * Takes part in the ring until `signal` aborts, then stops every slot, frees them and deletes the
   * member Lease, so that the others take over at once instead of after the lease duration.
   */
  run(signal: AbortSignal): Promise<void> {
    return whileHoldingProcessOpen(async () => {
      while (!signal.aborted) {
        try {
          await this.#round(signal);
        } catch (error) {
          if (signal.aborted) break;
          this.#logger.warn('shard ring: a round failed (it is retried)', { ring: this.name, error });
        }
        await this.#clock.sleep(this.#retryPeriodMs, signal).catch(() => undefined);
      }
      await this.#leave();
    });
  }

  #fresh(): boolean {
    return this.#clock.now() - this.#renewedAt <= this.#renewDeadlineMs;
  }

  get #memberLeaseName(): string {
    return `${this.name}-member-${this.identity}`;
  }

  get #ringLeaseName(): string {
    return `${this.name}-slots`;
  }

  /** One round: renew, read the membership and the table, stop what is not ours, claim what is. */
  async #round(signal: AbortSignal): Promise<void> {
    // Judged before renewing: a replica frozen past its deadline (SIGSTOP, a VM pause) may have lost its
    // slots meanwhile, and a renewal that succeeds on waking must not make it fresh while it still runs them.
    await this.#fenceIfStale();
    await this.#renew(signal).catch((error: unknown) => this.#logger.warn('shard ring: renewing the member Lease failed', { ring: this.name, error }));
    await this.#fenceIfStale();
    if (!this.#fresh()) return;
    const live = await this.#liveMembers(signal);
    const desired = assignSlots(this.name, this.slotCount, live);
    let ring = await this.#readRing(signal);
    let table = this.#tableOf(ring);
    this.#trackUnowned(table, live);

    // A slot recorded for another owner was taken over while this replica was presumed dead: stop it, there is nothing to free.
    const lost = [...this.#running].filter((slot) => table[slot] !== this.identity);
    if (lost.length > 0) await this.#runOnly(new Set([...this.#running].filter((slot) => !lost.includes(slot))), 'fenced');

    // Stop first, free after: no slot is ever run by two replicas.
    const leaving = new Set([...this.#running].filter((slot) => desired[slot] !== this.identity));
    const stale = table.flatMap((owner, slot) => (owner === this.identity && desired[slot] !== this.identity && !this.#running.has(slot) ? [slot] : []));
    if (leaving.size > 0) await this.#runOnly(new Set([...this.#running].filter((slot) => !leaving.has(slot))), 'rebalance');
    if (leaving.size > 0 || stale.length > 0) {
      const freed = new Set([...leaving, ...stale]);
      ring = await this.#swap(ring, table.map((owner, slot) => (freed.has(slot) && owner === this.identity ? '' : owner)), signal);
      table = this.#tableOf(ring);
    }

    const liveSet = new Set(live);
    const claimable = desired.flatMap((owner, slot) => (owner === this.identity && !this.#running.has(slot) && (table[slot] === '' || table[slot] === this.identity || !liveSet.has(table[slot] ?? '')) ? [slot] : []));
    if (claimable.length === 0) return;
    const takenFromDead = claimable.filter((slot) => table[slot] !== '' && table[slot] !== this.identity);
    await this.#swap(ring, table.map((owner, slot) => (claimable.includes(slot) ? this.identity : owner)), signal);
    const now = this.#clock.now();
    for (const slot of claimable) {
      this.#unowned.observe({ ring: this.name }, (now - (this.#unownedSince.get(slot) ?? now)) / 1000);
      this.#unownedSince.delete(slot);
    }
    if (takenFromDead.length > 0) this.#handOvers.inc({ ring: this.name, reason: 'member_expired' }, takenFromDead.length);
    this.#logger.info('shard ring: taking slots', { ring: this.name, identity: this.identity, slots: claimable.join(','), fromExpired: takenFromDead.join(',') || undefined });
    await this.#runOnly(new Set([...this.#running, ...claimable]), undefined);
  }

  /** Stops every slot, without asking anyone, when the own Lease was not renewed within the renew deadline. */
  async #fenceIfStale(): Promise<void> {
    if (this.#fresh() || this.#running.size === 0) return;
    this.#logger.warn('shard ring: the member Lease was not renewed in time: stopping every slot', { ring: this.name, slots: this.ownedSlots().join(',') });
    await this.#runOnly(new Set(), 'fenced');
  }

  /** Hands the participant its new set of slots; `reason` counts the slots that stop. */
  async #runOnly(slots: Set<number>, reason: HandOverReason | undefined): Promise<void> {
    const stopping = [...this.#running].filter((slot) => !slots.has(slot));
    if (stopping.length > 0) this.#logger.info('shard ring: stopping slots', { ring: this.name, identity: this.identity, slots: stopping.join(','), reason });
    if (reason !== undefined && stopping.length > 0) this.#handOvers.inc({ ring: this.name, reason }, stopping.length);
    // What stops is not admitted from now on, while the participant winds it down; what starts (already
    // recorded as ours in the table) is admitted at once, as its objects arrive while the participant lists them.
    this.#running = new Set(slots);
    this.#slotsOwned.set({ ring: this.name }, this.#running.size);
    try {
      await this.#participant?.apply(new Set(slots));
    } catch (error) {
      this.#logger.error('shard ring: the participant failed to apply the slots', { ring: this.name, error });
    }
    this.#running = new Set(slots);
    this.#slotsOwned.set({ ring: this.name }, this.#running.size);
  }

  async #renew(signal: AbortSignal): Promise<void> {
    const id = { namespace: this.#options.namespace, name: this.#memberLeaseName };
    const now = this.#clock.now();
    const spec = { holderIdentity: this.identity, leaseDurationSeconds: Math.ceil(this.#leaseDurationMs / 1000), renewTime: formatMicroTime(new Date(now)) };
    try {
      const current = await this.#client.get(id, { signal });
      await this.#client.update({ ...current, spec: { ...current.spec, ...spec } }, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const lease: LeaderLease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { ...id, labels: { [shardRingLabel]: this.name } },
        spec: { ...spec, acquireTime: spec.renewTime },
      };
      await this.#client.create(lease, { signal });
    }
    this.#renewedAt = now;
  }

  /** The members whose Lease changed within the lease duration (this replica included), sorted. */
  async #liveMembers(signal: AbortSignal): Promise<string[]> {
    const { items } = await this.#client.list(this.#options.namespace, { labelSelector: `${shardRingLabel}=${this.name}`, signal });
    const now = this.#clock.now();
    const seen = new Set<string>();
    const live: string[] = [];
    for (const lease of items) {
      const identity = lease.spec?.holderIdentity;
      if (!identity || lease.metadata.deletionTimestamp) continue;
      seen.add(identity);
      const before = this.#observed.get(identity);
      const rv = lease.metadata.resourceVersion;
      const observed = before !== undefined && before.resourceVersion === rv ? before : { resourceVersion: rv, at: now };
      this.#observed.set(identity, observed);
      if (identity === this.identity || now - observed.at < this.#leaseDurationMs) live.push(identity);
    }
    for (const identity of this.#observed.keys()) if (!seen.has(identity)) this.#observed.delete(identity);
    if (!live.includes(this.identity)) live.push(this.identity);
    this.#members = live.sort();
    this.#membersGauge.set({ ring: this.name }, this.#members.length);
    return this.#members;
  }

  async #readRing(signal: AbortSignal): Promise<LeaderLease> {
    const id = { namespace: this.#options.namespace, name: this.#ringLeaseName };
    try {
      return await this.#client.get(id, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const empty: LeaderLease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...id, annotations: { [shardSlotsAnnotation]: JSON.stringify(Array.from({ length: this.slotCount }, () => '')) } },
      spec: {},
    };
    try {
      return await this.#client.create(empty, { signal });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      return this.#client.get(id, { signal });
    }
  }

  /** The ring Lease's table; one of another size (another `slots` setting) is refused loudly. */
  #tableOf(ring: LeaderLease): string[] {
    const text = ring.metadata.annotations?.[shardSlotsAnnotation];
    const parsed: unknown = text === undefined ? [] : JSON.parse(text);
    const table = Array.isArray(parsed) ? parsed.map((o) => (typeof o === 'string' ? o : '')) : [];
    if (table.length === 0) return Array.from({ length: this.slotCount }, () => '');
    if (table.length !== this.slotCount) {
      throw new InvalidArgumentError(`ring ${this.name} has ${table.length} slots, this replica is configured with ${this.slotCount}: every replica must use the same slots`);
    }
    return table;
  }

  /** Writes the table by compare-and-swap; a conflict throws (the round is retried). */
  async #swap(ring: LeaderLease, table: string[], signal: AbortSignal): Promise<LeaderLease> {
    const next = { ...ring, metadata: { ...ring.metadata, annotations: { ...ring.metadata.annotations, [shardSlotsAnnotation]: JSON.stringify(table) } } };
    try {
      return await this.#client.update(next, { signal });
    } catch (error) {
      if (isConflict(error)) this.#logger.debug('shard ring: the slot table changed meanwhile; retrying', { ring: this.name });
      throw error;
    }
  }

  #trackUnowned(table: readonly string[], live: readonly string[]): void {
    const liveSet = new Set(live);
    const now = this.#clock.now();
    table.forEach((owner, slot) => {
      if (owner !== '' && liveSet.has(owner)) this.#unownedSince.delete(slot);
      else if (!this.#unownedSince.has(slot)) this.#unownedSince.set(slot, now);
    });
  }

  /** Stops every slot, frees them in the table and deletes the member Lease (best effort: the Lease expires anyway). */
  async #leave(): Promise<void> {
    if (this.#running.size > 0) await this.#runOnly(new Set(), 'shutdown');
    const timeout = new AbortController();
    const timer = this.#clock.setTimer(this.#renewDeadlineMs, () => timeout.abort(new Error('leaving the ring took too long')));
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          const ring = await this.#readRing(timeout.signal);
          const table = this.#tableOf(ring);
          if (table.includes(this.identity)) await this.#swap(ring, table.map((owner) => (owner === this.identity ? '' : owner)), timeout.signal);
          break;
        } catch (error) {
          if (!isConflict(error)) throw error;
        }
      }
      await this.#client.delete({ namespace: this.#options.namespace, name: this.#memberLeaseName }, { signal: timeout.signal });
    } catch (error) {
      this.#logger.warn('shard ring: leaving the ring failed; the member Lease will expire', { ring: this.name, error });
    } finally {
      timer.cancel();
    }
  }
}
