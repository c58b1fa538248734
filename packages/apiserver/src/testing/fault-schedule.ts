/**
 * `faultSchedule()`: a seeded, printable, replayable list of API server faults to run an operator
 * through (`env.runFaultSchedule`). The schedule is plain data made from its options alone: the same
 * options (above all the seed) give the same faults on every machine, so a failing seed is replayed
 * by passing it again.
 */
import { randomInt } from 'node:crypto';
import type { FaultVerb } from '../http/faults.js';
import type { PodSelector } from '../simulation/kubelet/workload-faults.js';
import { Prng } from './prng.js';

/**
 * The kinds of fault a schedule can hold; each is one call of the server's `Faults` (or a restart).
 * The workload kinds (`imagePullFailure`, `crashLoop`, `neverReady`, `slowStart`, `nodeNotReady`)
 * need a server started with `simulate` (its kubelet on).
 */
export type FaultKind = 'dropWatches' | 'compact' | 'failNext' | 'latency' | 'restart' | WorkloadFaultKind;

/** The workload faults of the simulated kubelet. */
export type WorkloadFaultKind = 'imagePullFailure' | 'crashLoop' | 'neverReady' | 'slowStart' | 'nodeNotReady';

/** One fault of a schedule. After applying it the runner waits `pauseMs` for the operator to meet it. */
export type ScheduledFault =
  /** Cuts every watch: `reset` (connection reset), `midLine` (half an event line first), `graceful` (a clean end, as a server timeout). */
  | { kind: 'dropWatches'; mode: 'reset' | 'midLine' | 'graceful'; pauseMs: number }
  /** Forgets the watch history, then cuts every watch: a watch resuming from an older resourceVersion gets 410 Gone and relists. */
  | { kind: 'compact'; pauseMs: number }
  /** The next `count` matching requests fail with `status` (`undefined` verb or resource: any). */
  | { kind: 'failNext'; verb: FaultVerb | undefined; resource: string | undefined; status: 500 | 503 | 429; count: number; retryAfterSeconds: number | undefined; pauseMs: number }
  /** Every response waits `ms`, for this step only. */
  | { kind: 'latency'; ms: number; pauseMs: number }
  /** The server stops and starts again on the same data directory and port (needs `startTestEnv({ persistent: true })`). */
  | { kind: 'restart'; pauseMs: number }
  /** The matching Pods cannot pull their images, or never become Ready, for this step. */
  | { kind: 'imagePullFailure' | 'neverReady'; pods: PodSelector; pauseMs: number }
  /** The matching containers crash with `exitCode` after each start, for this step. */
  | { kind: 'crashLoop'; pods: PodSelector; exitCode: number; pauseMs: number }
  /** The matching Pods take `podStartMs` to start, for this step. */
  | { kind: 'slowStart'; pods: PodSelector; podStartMs: number; pauseMs: number }
  /** The Node goes NotReady (`Unknown`: its kubelet stops; `False`: it reports NotReady), for this step. */
  | { kind: 'nodeNotReady'; node: string; status: 'Unknown' | 'False'; pauseMs: number };

/** Options of {@link faultSchedule}. */
export interface FaultScheduleOptions {
  /** The seed (an integer, taken modulo 2^32). Default: a random one, reported on failure so the run can be replayed. */
  seed?: number | undefined;
  /** How many faults. Default 10. */
  count?: number | undefined;
  /**
   * The kinds to draw from, equally likely. Default: every kind but `restart`, which needs an
   * environment started with `persistent: true`.
   */
  kinds?: readonly FaultKind[] | undefined;
  /** The verbs a `failNext` may target (or any verb, one time in five). Default: get, list, watch, create, update, patch, delete. */
  verbs?: readonly FaultVerb[] | undefined;
  /** The resources (plural, e.g. `backups`) a `failNext` may target (or any resource, one time in two). Default: any resource. */
  resources?: readonly string[] | undefined;
  /** The longest wait after a fault; each wait is drawn from [0, maxPauseMs]. Default 150. */
  maxPauseMs?: number | undefined;
  /** The longest `latency` fault; each is drawn from [10, maxLatencyMs]. Default 100. */
  maxLatencyMs?: number | undefined;
  /** The Pods a workload fault may hit, one drawn per fault. Default: `[{}]` (every Pod). */
  pods?: readonly PodSelector[] | undefined;
  /** The Nodes a `nodeNotReady` may hit. Default: `node-1`, `node-2`, `node-3` (the simulation's default Nodes). */
  nodes?: readonly string[] | undefined;
  /** The longest `slowStart`; each is drawn from [1000, maxPodStartMs]. Default 30000. */
  maxPodStartMs?: number | undefined;
}

/** A schedule: the options it was made from (every default filled in, so it replays exactly) and its faults. */
export interface FaultSchedule {
  readonly options: Required<{ [K in keyof FaultScheduleOptions]: NonNullable<FaultScheduleOptions[K]> }>;
  readonly faults: readonly ScheduledFault[];
}

const ALL_KINDS: readonly FaultKind[] = ['dropWatches', 'compact', 'failNext', 'latency', 'restart', 'imagePullFailure', 'crashLoop', 'neverReady', 'slowStart', 'nodeNotReady'];
const DEFAULT_KINDS: readonly FaultKind[] = ['dropWatches', 'compact', 'failNext', 'latency'];
const DEFAULT_VERBS: readonly FaultVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** Makes the schedule of `options`. Throws a `RangeError` for an option out of range. */
export function faultSchedule(options: FaultScheduleOptions = {}): FaultSchedule {
  const filled = {
    seed: (options.seed ?? randomInt(0, 2 ** 32)) >>> 0,
    count: options.count ?? 10,
    kinds: [...(options.kinds ?? DEFAULT_KINDS)],
    verbs: [...(options.verbs ?? DEFAULT_VERBS)],
    resources: [...(options.resources ?? [])],
    maxPauseMs: options.maxPauseMs ?? 150,
    maxLatencyMs: options.maxLatencyMs ?? 100,
    pods: [...(options.pods ?? [{}])],
    nodes: [...(options.nodes ?? ['node-1', 'node-2', 'node-3'])],
    maxPodStartMs: options.maxPodStartMs ?? 30_000,
  };
  if (options.seed !== undefined && !Number.isSafeInteger(options.seed)) throw new RangeError(`faultSchedule: seed must be an integer, got ${options.seed}`);
  if (!Number.isSafeInteger(filled.count) || filled.count < 0) throw new RangeError(`faultSchedule: count must be an integer >= 0, got ${filled.count}`);
  if (filled.kinds.length === 0) throw new RangeError('faultSchedule: kinds must not be empty');
  for (const kind of filled.kinds) if (!ALL_KINDS.includes(kind)) throw new RangeError(`faultSchedule: unknown kind ${JSON.stringify(kind)}; known: ${ALL_KINDS.join(', ')}`);
  if (filled.verbs.length === 0) throw new RangeError('faultSchedule: verbs must not be empty');
  if (!Number.isSafeInteger(filled.maxPauseMs) || filled.maxPauseMs < 0) throw new RangeError(`faultSchedule: maxPauseMs must be an integer >= 0, got ${filled.maxPauseMs}`);
  if (!Number.isSafeInteger(filled.maxLatencyMs) || filled.maxLatencyMs < 10) throw new RangeError(`faultSchedule: maxLatencyMs must be an integer >= 10, got ${filled.maxLatencyMs}`);
  if (filled.pods.length === 0) throw new RangeError('faultSchedule: pods must not be empty');
  if (filled.nodes.length === 0) throw new RangeError('faultSchedule: nodes must not be empty');
  if (!Number.isSafeInteger(filled.maxPodStartMs) || filled.maxPodStartMs < 1000) throw new RangeError(`faultSchedule: maxPodStartMs must be an integer >= 1000, got ${filled.maxPodStartMs}`);

  const rng = new Prng(filled.seed);
  const faults: ScheduledFault[] = [];
  for (let i = 0; i < filled.count; i++) {
    const kind = rng.pick(filled.kinds);
    const pauseMs = rng.int(0, filled.maxPauseMs);
    switch (kind) {
      case 'dropWatches':
        faults.push({ kind, mode: rng.pick(['reset', 'midLine', 'graceful'] as const), pauseMs });
        break;
      case 'failNext': {
        const status = rng.pick([500, 503, 429] as const);
        faults.push({
          kind,
          verb: rng.chance(0.8) ? rng.pick(filled.verbs) : undefined,
          resource: filled.resources.length > 0 && rng.chance(0.5) ? rng.pick(filled.resources) : undefined,
          status,
          count: rng.int(1, 3),
          // 500 carries no Retry-After in kube-apiserver; 503 and 429 often do.
          retryAfterSeconds: status !== 500 && rng.chance(0.6) ? 1 : undefined,
          pauseMs,
        });
        break;
      }
      case 'latency':
        faults.push({ kind, ms: rng.int(10, filled.maxLatencyMs), pauseMs });
        break;
      case 'compact':
      case 'restart':
        faults.push({ kind, pauseMs });
        break;
      case 'imagePullFailure':
      case 'neverReady':
        faults.push({ kind, pods: rng.pick(filled.pods), pauseMs });
        break;
      case 'crashLoop':
        faults.push({ kind, pods: rng.pick(filled.pods), exitCode: rng.pick([1, 2, 137] as const), pauseMs });
        break;
      case 'slowStart':
        faults.push({ kind, pods: rng.pick(filled.pods), podStartMs: rng.int(1000, filled.maxPodStartMs), pauseMs });
        break;
      case 'nodeNotReady':
        faults.push({ kind, node: rng.pick(filled.nodes), status: rng.pick(['Unknown', 'False'] as const), pauseMs });
        break;
    }
  }
  return { options: filled, faults };
}

/** One short line for a fault, e.g. `failNext patch backups 503 x2 Retry-After 1s, then 40 ms`. */
export function describeFault(fault: ScheduledFault): string {
  const then = `, then ${fault.pauseMs} ms`;
  switch (fault.kind) {
    case 'dropWatches':
      return `dropWatches ${fault.mode}${then}`;
    case 'failNext':
      return `failNext ${fault.verb ?? 'any-verb'} ${fault.resource ?? 'any-resource'} ${fault.status} x${fault.count}${fault.retryAfterSeconds !== undefined ? ` Retry-After ${fault.retryAfterSeconds}s` : ''}${then}`;
    case 'latency':
      return `latency ${fault.ms} ms${then}`;
    case 'compact':
      return `compact (410 on resume)${then}`;
    case 'restart':
      return `restart the server${then}`;
    case 'imagePullFailure':
    case 'neverReady':
      return `${fault.kind} ${describePods(fault.pods)}${then}`;
    case 'crashLoop':
      return `crashLoop ${describePods(fault.pods)} exit ${fault.exitCode}${then}`;
    case 'slowStart':
      return `slowStart ${describePods(fault.pods)} ${fault.podStartMs} ms${then}`;
    case 'nodeNotReady':
      return `nodeNotReady ${fault.node} ${fault.status}${then}`;
  }
}

function describePods(pods: PodSelector): string {
  return Object.keys(pods).length === 0 ? 'every pod' : JSON.stringify(pods);
}

/**
 * The schedule as text: the call that replays it, then its faults, numbered. What a failure
 * report prints.
 */
export function describeFaultSchedule(schedule: FaultSchedule): string {
  const lines = schedule.faults.map((f, i) => `  ${String(i + 1).padStart(3)}. ${describeFault(f)}`);
  return [`fault schedule seed ${schedule.options.seed}; replay with faultSchedule(${JSON.stringify(schedule.options)})`, ...lines].join('\n');
}
