/**
 * Fault injection for reliability tests (ours and our users'): cut watches, fail the next
 * requests with a chosen status, forget watch history, add latency, write garbage into watches;
 * with the cluster simulation's kubelet, workload faults (image pulls failing, crash loops, Pods
 * never Ready, slow starts, Nodes NotReady: `simulation/kubelet/workload-faults.ts`).
 */
import { reasonForHttpStatus } from '@kubeloop/resource';
import { faultStatus } from './status-error.js';
import type { StatusError } from './status-error.js';
import type { CrashLoopOptions, NodeNotReadyOptions, PodSelector, SlowStartOptions, WorkloadFault, WorkloadFaults } from '../simulation/kubelet/workload-faults.js';

/** The verbs a failure rule can target. */
export type FaultVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/** A rule of {@link Faults.failNext}. */
export interface FailNextRule {
  /** Only requests with this verb. Default: any. */
  verb?: FaultVerb;
  /** Only requests for this resource (plural, e.g. `configmaps`). Default: any. */
  resource?: string;
  /** The HTTP status to answer (500, 503, 429...). */
  status: number;
  /** How many matching requests fail. Default 1. */
  count?: number;
  /** Sets `Retry-After` and `details.retryAfterSeconds`. Default: none. */
  retryAfterSeconds?: number;
  /** The Status message. Default: `injected fault: <status> <reason>`. */
  message?: string;
}

/** Fault injection controls of a running server. */
export interface Faults {
  /**
   * Destroys every open watch connection (`midLine`: writes half an event line first; `graceful`:
   * ends each stream cleanly instead, as a server-side timeout does). Returns how many.
   */
  dropWatches(options?: { midLine?: boolean; graceful?: boolean }): number;
  /** Fails the next matching requests (resource requests only, not discovery). */
  failNext(rule: FailNextRule): void;
  /**
   * Writes `lines` as they are (each followed by a newline) into every open watch, or only into the
   * watches of `resource` (plural, e.g. `configmaps`): malformed JSON, events without an object or
   * metadata, unknown event types, for testing clients' decoders. The streams go on afterwards.
   * Returns how many watches got them.
   */
  injectWatchLines(lines: readonly string[], options?: { resource?: string }): number;
  /** Forgets watch history: resuming from any older resourceVersion gets 410. */
  compact(): void;
  /** Adds `ms` before every response (0 = off). */
  latency(ms: number): void;
  /** Clears all faults (pending failures, latency and workload faults). */
  reset(): void;

  // Workload faults: they need `simulate` with its kubelet (they throw otherwise) and hold until cleared.

  /** Pulls of the matching containers' images fail: `ErrImagePull`, then `ImagePullBackOff`; the Pod stays Pending, never Ready. */
  imagePullFailure(pods?: PodSelector): WorkloadFault;
  /** The matching containers crash after each start (`runMs`, default 1 s; `exitCode`, default 1): `CrashLoopBackOff`, restartCount growing, back-off 10 s doubling to 5 min. */
  crashLoop(options?: CrashLoopOptions): WorkloadFault;
  /** The matching Pods run but never pass readiness. */
  neverReady(pods?: PodSelector): WorkloadFault;
  /** The matching Pods take `podStartMs` from binding to running. */
  slowStart(options: SlowStartOptions): WorkloadFault;
  /** The Node goes NotReady (`status` Unknown, the default: its kubelet stops; False: it reports NotReady); its Pods are evicted after their toleration (300 s by default). */
  nodeNotReady(node: string, options?: NodeNotReadyOptions): WorkloadFault;
}

interface PendingRule {
  readonly rule: FailNextRule;
  remaining: number;
}

/** What the server needs to act on faults. */
export interface FaultTargets {
  dropWatches(mode: 'reset' | 'midLine' | 'graceful'): number;
  forgetHistory(): void;
  injectWatchLines(lines: readonly string[], resource: string | undefined): number;
  /** The simulated kubelet's workload faults; undefined without it. */
  readonly workloads?: WorkloadFaults | undefined;
}

/** The server-side state of {@link Faults}. */
export class FaultInjector implements Faults {
  readonly #targets: FaultTargets;
  #rules: PendingRule[] = [];
  #latencyMs = 0;

  constructor(targets: FaultTargets) {
    this.#targets = targets;
  }

  /** Milliseconds to wait before answering. */
  get latencyMs(): number {
    return this.#latencyMs;
  }

  dropWatches(options?: { midLine?: boolean; graceful?: boolean }): number {
    return this.#targets.dropWatches(options?.graceful ? 'graceful' : options?.midLine ? 'midLine' : 'reset');
  }

  failNext(rule: FailNextRule): void {
    if (!Number.isInteger(rule.status) || rule.status < 400 || rule.status > 599) throw new RangeError(`failNext: status must be 400-599, got ${rule.status}`);
    this.#rules.push({ rule: { ...rule }, remaining: rule.count ?? 1 });
  }

  injectWatchLines(lines: readonly string[], options?: { resource?: string }): number {
    for (const line of lines) if (line.includes('\n')) throw new RangeError('injectWatchLines: a line must not contain a newline');
    return this.#targets.injectWatchLines(lines, options?.resource);
  }

  compact(): void {
    this.#targets.forgetHistory();
  }

  latency(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`latency: ms must be >= 0, got ${ms}`);
    this.#latencyMs = ms;
  }

  reset(): void {
    this.#rules = [];
    this.#latencyMs = 0;
    this.#targets.workloads?.clearAll();
  }

  imagePullFailure(pods: PodSelector = {}): WorkloadFault {
    return this.#workloads('imagePullFailure').imagePullFailure(pods);
  }

  crashLoop(options: CrashLoopOptions = {}): WorkloadFault {
    return this.#workloads('crashLoop').crashLoop(options);
  }

  neverReady(pods: PodSelector = {}): WorkloadFault {
    return this.#workloads('neverReady').neverReady(pods);
  }

  slowStart(options: SlowStartOptions): WorkloadFault {
    return this.#workloads('slowStart').slowStart(options);
  }

  nodeNotReady(node: string, options: NodeNotReadyOptions = {}): WorkloadFault {
    return this.#workloads('nodeNotReady').nodeNotReady(node, options);
  }

  #workloads(fault: string): WorkloadFaults {
    const workloads = this.#targets.workloads;
    if (!workloads) throw new Error(`faults.${fault}() needs the simulated kubelet: start the server with simulate: true (or simulate: { kubelet: ... })`);
    return workloads;
  }

  /** The failure to answer for a request, consuming one use of the first matching rule. */
  takeFailure(verb: FaultVerb, resource: string): StatusError | undefined {
    const index = this.#rules.findIndex((p) => (p.rule.verb === undefined || p.rule.verb === verb) && (p.rule.resource === undefined || p.rule.resource === resource));
    if (index < 0) return undefined;
    const pending = this.#rules[index] as PendingRule;
    if (--pending.remaining <= 0) this.#rules.splice(index, 1);
    const { status, retryAfterSeconds } = pending.rule;
    const reason = reasonForHttpStatus(status);
    const message = pending.rule.message ?? `injected fault: ${status} ${reason}`;
    return faultStatus(status, reason, message, retryAfterSeconds);
  }
}
