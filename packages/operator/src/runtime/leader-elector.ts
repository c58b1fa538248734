import { formatMicroTime, isAlreadyExists, isConflict, isNotFound } from '@kubeloop/resource';
import type { Identifier, KubeObject } from '@kubeloop/resource';
import { Gauge } from 'prom-client';
import type { Metric } from 'prom-client';
import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { InvalidArgumentError } from '../errors.js';
import { whileHoldingProcessOpen } from '../keep-alive.js';

/** The fields of a coordination.k8s.io/v1 `LeaseSpec` that leader election reads and writes. */
export interface LeaderLeaseSpec {
  holderIdentity?: string | null | undefined;
  leaseDurationSeconds?: number | null | undefined;
  /** MicroTime: RFC 3339 with exactly 6 fractional digits. */
  acquireTime?: string | null | undefined;
  /** MicroTime: RFC 3339 with exactly 6 fractional digits. */
  renewTime?: string | null | undefined;
  leaseTransitions?: number | null | undefined;
}

/** A coordination.k8s.io/v1 Lease, as far as leader election is concerned. */
export type LeaderLease = KubeObject<LeaderLeaseSpec>;

/**
 * What the elector needs from a Lease client: get, create and a full update (PUT) that fails with
 * a 409 when the resourceVersion is stale. A `Client<Lease>` from @kubeloop/resource satisfies it.
 */
export interface LeaseClient<L extends LeaderLease = LeaderLease> {
  get(id: Identifier, options?: { signal?: AbortSignal | undefined }): Promise<L>;
  create(object: L, options?: { signal?: AbortSignal | undefined }): Promise<L>;
  update(object: L, options?: { signal?: AbortSignal | undefined }): Promise<L>;
}

/** Options of {@link LeaderElector}. Durations follow client-go's defaults. */
export interface LeaderElectorOptions {
  /** The Lease object that is the lock. Created if missing. */
  lease: { namespace: string; name: string };
  /** Who we are; unique per process (e.g. the pod name plus a random suffix). Required. */
  identity: string;
  /** The Lease client (a `Client<Lease>` works). */
  client: LeaseClient;
  /**
   * How long a follower waits after the last observed change of the lease before taking it over.
   * Written to the lease as `leaseDurationSeconds`, rounded up to whole seconds. Default: 15000.
   */
  leaseDurationMs?: number | undefined;
  /** How long the leader keeps retrying a failed renewal before it gives up leadership. Default: 10000. */
  renewDeadlineMs?: number | undefined;
  /** Time between attempts to acquire or renew. Default: 2000. */
  retryPeriodMs?: number | undefined;
  /** Time source for every wait. Default: `realClock`. */
  clock?: Clock | undefined;
  /**
   * Called once leadership is acquired. The signal aborts when leadership ends (lost, or the run
   * signal aborted). If it returns a promise, the lease is renewed (and only then released) until
   * the promise settles, so work that winds down gracefully never overlaps with the next leader;
   * a promise that settles earlier ends leadership, and a rejection makes `run()` reject with it.
   * If it returns nothing, leadership lasts until the signal aborts.
   */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called after leadership ended (and the lease was released, if it was). Default: nothing. */
  onStoppedLeading?: (() => void) | undefined;
  /** Called when a different holder (possibly us) is observed; never with ''. Default: nothing. */
  onNewLeader?: ((identity: string) => void) | undefined;
  /** Give the lease up (holder '', duration 1 s, as client-go) when stopping while leading. Default: true. */
  releaseOnCancel?: boolean | undefined;
  /** Told about failed lease requests (they are retried). Default: nothing (the error is kept in `lastError()`). */
  onError?: ((error: unknown) => void) | undefined;
  /** Random source in [0, 1) for the acquire jitter. Default: `Math.random`. */
  random?: (() => number) | undefined;
  /** Prefix of the metric name, as the operator's other metrics. Default: '' (no prefix). */
  metricsNamespace?: string | undefined;
}

/** How a `run()` ended: `stopped` after its signal aborted (or the leading work ended); `lost` when renewal failed. */
export type LeaderElectionOutcome = 'stopped' | 'lost';

/** client-go's JitterFactor for acquire retries: wait retryPeriod * (1 + random * 1.2). */
const ACQUIRE_JITTER = 1.2;

/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's algorithm.
 *
 * Flow: GET the lease; 404 -> POST it (409 = somebody else won). Held by another holder whose
 * last change we observed less than its `leaseDurationSeconds` ago -> wait and retry. Expired,
 * free or ours -> PUT with the resourceVersion we read (409 = we lost the race). The leader renews
 * every `retryPeriodMs`; if a renewal does not succeed within `renewDeadlineMs`, it stops leading.
 *
 * Guarantees: expiry is judged by the local time at which we observed the lease change, never by
 * the timestamps the holder wrote, so clock skew between machines does not matter (only the rate
 * of clocks). The renew deadline is shorter than the lease duration, so a leader that cannot renew
 * stops before a follower may take over. Timestamps are written as MicroTime (6 fractional digits).
 *
 * Caveats: a leader that loses the lease is only told (signal aborted, outcome `lost`); work that
 * ignores its signal keeps running. Like client-go, run the elector once per process and exit
 * when it returns `lost`.
 */
export class LeaderElector {
  private readonly client: LeaseClient;
  private readonly namespace: string;
  private readonly name: string;
  private readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly releaseOnCancel: boolean;
  private readonly random: () => number;
  private readonly options: LeaderElectorOptions;
  private readonly statusGauge: Gauge<'name'>;

  private observed: LeaderLease | undefined;
  private observedTime = 0;
  private reportedLeader = '';
  private leading = false;
  private error: unknown;
  private running = false;

  constructor(options: LeaderElectorOptions) {
    if (!options.client) throw new InvalidArgumentError('client cannot be nil');
    if (!options.identity) throw new InvalidArgumentError('identity cannot be empty');
    if (!options.lease?.name || !options.lease.namespace) throw new InvalidArgumentError('lease namespace and name cannot be empty');
    if (typeof options.onStartedLeading !== 'function') throw new InvalidArgumentError('onStartedLeading cannot be nil');
    this.options = options;
    this.client = options.client;
    this.namespace = options.lease.namespace;
    this.name = options.lease.name;
    this.identity = options.identity;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.clock = options.clock ?? realClock;
    this.releaseOnCancel = options.releaseOnCancel ?? true;
    this.random = options.random ?? Math.random;
    if (!(this.retryPeriodMs > 0)) throw new InvalidArgumentError('retryPeriodMs must be greater than zero');
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) throw new InvalidArgumentError('leaseDurationMs must be greater than renewDeadlineMs');
    if (!(this.renewDeadlineMs > this.retryPeriodMs * ACQUIRE_JITTER)) {
      throw new InvalidArgumentError('renewDeadlineMs must be greater than retryPeriodMs * 1.2');
    }
    const prefix = options.metricsNamespace ? `${options.metricsNamespace}_` : '';
    this.statusGauge = new Gauge({
      name: `${prefix}leader_election_status`,
      help: '1 while this process holds the leader lease, 0 otherwise.',
      labelNames: ['name'],
      registers: [],
    });
    this.statusGauge.set({ name: this.name }, 0);
  }

  /** True while this process holds the lease and runs the leading work. */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed on the lease ('' if none or not yet known). */
  getLeader(): string {
    return this.observed?.spec?.holderIdentity ?? '';
  }

  /** True once the lease has been read or written at least once (we know who leads, if anybody). */
  leaderKnown(): boolean {
    return this.observed !== undefined;
  }

  /** This elector's identity. */
  getIdentity(): string {
    return this.identity;
  }

  /** The last failed lease request, if the last attempt failed. */
  lastError(): unknown {
    return this.error;
  }

  /** The `leader_election_status` gauge (label `name`: the lease name), for a metrics registry. */
  prometheusCollectors(): Metric[] {
    return [this.statusGauge];
  }

  /**
   * Campaigns for the lease until the signal aborts; when acquired, calls `onStartedLeading` and
   * renews until leadership ends. Resolves `stopped` or `lost`; rejects with the leading work's error.
   */
  async run(signal: AbortSignal): Promise<LeaderElectionOutcome> {
    if (this.running) throw new InvalidArgumentError('LeaderElector.run() is already running');
    this.running = true;
    try {
      // A follower's only pending work is a sleep between Lease reads: the hold keeps it in the race.
      return await whileHoldingProcessOpen(() => this.campaign(signal));
    } finally {
      this.running = false;
    }
  }

  private async campaign(signal: AbortSignal): Promise<LeaderElectionOutcome> {
    if (!(await this.acquire(signal))) return 'stopped';

    const leadingController = new AbortController();
    const onAbort = (): void => leadingController.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();

    // Settles when the leading work has finished; wakes the renew loop's sleeps.
    const workDone = new AbortController();
    let workError: { error: unknown } | undefined;
    this.leading = true;
    this.statusGauge.set({ name: this.name }, 1);
    const work = (async () => {
      try {
        const result = this.options.onStartedLeading(leadingController.signal);
        // Work that returns nothing leads until the signal aborts; a promise holds the lease until it settles.
        await (isPromiseLike(result) ? result : abortedPromise(leadingController.signal));
      } catch (error) {
        workError = { error };
      } finally {
        workDone.abort();
      }
    })();

    const outcome = await this.renewUntil(workDone.signal);
    signal.removeEventListener('abort', onAbort);
    this.leading = false;
    this.statusGauge.set({ name: this.name }, 0);
    leadingController.abort(outcome === 'lost' ? new Error('leader election lost') : signal.reason);
    await work;
    if (outcome !== 'lost' && this.releaseOnCancel) await this.release();
    this.options.onStoppedLeading?.();
    if (workError) throw workError.error;
    return outcome;
  }

  /** Tries until acquired (true) or the signal aborts (false; the lease is given back if we just won it). */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      if (await this.tryAcquireOrRenew(this.renewDeadlineMs)) {
        if (!signal.aborted) return true;
        if (this.releaseOnCancel) await this.release();
        return false;
      }
      const delay = this.retryPeriodMs * (1 + this.random() * ACQUIRE_JITTER);
      try {
        await this.clock.sleep(delay, signal);
      } catch {
        return false;
      }
    }
  }

  /**
   * Renews every retry period until `done` aborts (`stopped`) or a renewal round fails to
   * succeed within the renew deadline (`lost`).
   */
  private async renewUntil(done: AbortSignal): Promise<LeaderElectionOutcome> {
    for (;;) {
      if (!(await this.sleepUnless(this.retryPeriodMs, done))) return 'stopped';
      const deadline = this.clock.now() + this.renewDeadlineMs;
      for (;;) {
        const remaining = deadline - this.clock.now();
        if (remaining <= 0) return 'lost';
        if (await this.tryAcquireOrRenew(remaining)) break;
        // We may have seen another holder: then we are no longer the leader, whatever the deadline.
        if (this.observed && this.observed.spec?.holderIdentity !== this.identity) return 'lost';
        const wait = Math.min(this.retryPeriodMs, deadline - this.clock.now());
        if (wait <= 0) return 'lost';
        if (!(await this.sleepUnless(wait, done))) return 'stopped';
      }
    }
  }

  /** Sleeps; false if `done` aborted first. */
  private async sleepUnless(ms: number, done: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, done);
      return true;
    } catch {
      return false;
    }
  }

  /** One attempt, client-go's `tryAcquireOrRenew`; requests are bounded by `timeoutMs`. */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const abort = new AbortController();
    const timer = this.clock.setTimer(timeoutMs, () => abort.abort(new Error(`lease request timed out after ${timeoutMs} ms`)));
    try {
      return await this.attempt(abort.signal);
    } catch (error) {
      this.error = error;
      this.options.onError?.(error);
      return false;
    } finally {
      timer.cancel();
    }
  }

  private async attempt(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const desired: LeaderLeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: formatMicroTime(new Date(now)),
      renewTime: formatMicroTime(new Date(now)),
      leaseTransitions: 0,
    };

    // Fast path: the leader renews from the lease it wrote last, without a GET.
    if (this.leading && this.observed && this.observedHolder() === this.identity) {
      try {
        await this.write(this.observed, { ...desired, acquireTime: this.observed.spec?.acquireTime ?? desired.acquireTime, leaseTransitions: this.observed.spec?.leaseTransitions ?? 0 }, signal);
        return true;
      } catch (error) {
        // A conflict means somebody else wrote the lease: re-read it below. Anything else is a failed attempt.
        if (!isConflict(error)) throw error;
      }
    }

    let current: LeaderLease;
    try {
      current = await this.client.get({ namespace: this.namespace, name: this.name }, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        const created = await this.client.create(
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.name, namespace: this.namespace },
            spec: desired,
          },
          { signal },
        );
        this.observe(created, this.clock.now());
        this.error = undefined;
        return true;
      } catch (createError) {
        if (isAlreadyExists(createError) || isConflict(createError)) {
          this.error = createError;
          return false;
        }
        throw createError;
      }
    }

    this.observe(current, now);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const durationMs = (spec.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
    if (holder !== '' && holder !== this.identity && this.observedTime + durationMs > now) {
      this.error = undefined;
      return false;
    }
    const transitions = spec.leaseTransitions ?? 0;
    const next: LeaderLeaseSpec =
      holder === this.identity
        ? { ...desired, acquireTime: spec.acquireTime ?? desired.acquireTime, leaseTransitions: transitions }
        : { ...desired, leaseTransitions: transitions + 1 };
    try {
      await this.write(current, next, signal);
      return true;
    } catch (error) {
      if (isConflict(error)) {
        this.error = error;
        return false;
      }
      throw error;
    }
  }

  /** PUTs `spec` onto `base` (carrying its resourceVersion) and records the result as observed. */
  private async write(base: LeaderLease, spec: LeaderLeaseSpec, signal: AbortSignal): Promise<void> {
    const updated = await this.client.update({ ...base, metadata: { ...base.metadata }, spec: { ...base.spec, ...spec } }, { signal });
    this.observe(updated, this.clock.now());
    this.error = undefined;
  }

  /** Records a lease read or written; the observed time moves only when the lease's content changed. */
  private observe(lease: LeaderLease, at: number): void {
    if (!this.observed || !sameRecord(this.observed.spec, lease.spec)) this.observedTime = at;
    this.observed = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== '' && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.options.onNewLeader?.(holder);
    }
  }

  private observedHolder(): string {
    return this.observed?.spec?.holderIdentity ?? '';
  }

  /** Gives the lease up if we still hold it: holder '' and a 1 s duration, so followers take over at once. */
  private async release(): Promise<void> {
    if (!this.observed || this.observedHolder() !== this.identity) return;
    const now = formatMicroTime(new Date(this.clock.now()));
    const abort = new AbortController();
    const timer = this.clock.setTimer(this.renewDeadlineMs, () => abort.abort(new Error('lease release timed out')));
    try {
      await this.write(
        this.observed,
        { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: this.observed.spec?.leaseTransitions ?? 0 },
        abort.signal,
      );
    } catch (error) {
      // Not fatal: the lease simply expires after its duration.
      this.error = error;
      this.options.onError?.(error);
    } finally {
      timer.cancel();
    }
  }
}

function sameRecord(a: LeaderLeaseSpec | undefined, b: LeaderLeaseSpec | undefined): boolean {
  return (
    (a?.holderIdentity ?? '') === (b?.holderIdentity ?? '') &&
    (a?.leaseDurationSeconds ?? 0) === (b?.leaseDurationSeconds ?? 0) &&
    (a?.acquireTime ?? '') === (b?.acquireTime ?? '') &&
    (a?.renewTime ?? '') === (b?.renewTime ?? '') &&
    (a?.leaseTransitions ?? 0) === (b?.leaseTransitions ?? 0)
  );
}

function isPromiseLike(value: unknown): value is PromiseLike<void> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
