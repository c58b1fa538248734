/**
 * The kubelet's run of one Pod, as a timeline of container states (no container runs): each
 * container waits its turn (init containers one after another, then the rest together), is
 * created after the start time (`podStartMs`, or a `slowStart` fault's), then runs until it
 * completes (init containers at once, a Job's after `jobPodRunMs`) or crashes (a `crashLoop`
 * fault); the restart policy then restarts it after a back-off (10 s doubling to 5 min, the
 * kubelet's) or leaves it terminated. An `imagePullFailure` fault keeps it waiting in
 * `ErrImagePull` / `ImagePullBackOff`, retried on the same back-off. {@link advanceRun} applies
 * every step due by `now`, so a late sync lands on the state of its time, with the times of each step.
 */
import { createHash } from 'node:crypto';
import type { Crash } from './workload-faults.js';

/** A container's terminated state. */
export interface Termination {
  readonly exitCode: number;
  readonly reason: 'Completed' | 'Error';
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly containerID: string;
}

/** One container's run. */
export interface ContainerRun {
  readonly name: string;
  readonly image: string;
  readonly init: boolean;
  /** Its readiness probe's `initialDelaySeconds` in ms (0 without a probe). */
  readonly readyDelayMs: number;
  state: 'waiting' | 'running' | 'terminated';
  /** While waiting: `ContainerCreating`, `PodInitializing`, `ErrImagePull`, `ImagePullBackOff`, `CrashLoopBackOff`. */
  reason: string;
  message: string | undefined;
  /** When its turn came (waiting to be created), or undefined while earlier init containers run. */
  turnAt: number | undefined;
  /** When the next step of this container is due. */
  nextAt: number | undefined;
  restartCount: number;
  pullFailures: number;
  crashes: number;
  startedAt: number | undefined;
  containerID: string | undefined;
  terminated: Termination | undefined;
  lastTerminated: Termination | undefined;
}

/** One Pod's run on a simulated kubelet. */
export interface PodRun {
  readonly uid: string;
  /** When the kubelet took the Pod (its `startTime`). */
  readonly acceptedAt: number;
  readonly podIP: string;
  /** Init containers first, in order. */
  readonly containers: ContainerRun[];
}

/** What the steps of a run depend on, read afresh at each sync (faults come and go). */
export interface RunEnvironment {
  readonly restartPolicy: 'Always' | 'OnFailure' | 'Never';
  /** Time from a container's turn to its start. */
  readonly startMs: number;
  /** How long the Pod's regular containers run before exiting 0; undefined: for ever. */
  readonly completesAfterMs: number | undefined;
  pullFails(container: ContainerRun): boolean;
  crashOf(container: ContainerRun): Crash | undefined;
  /** `pod_namespace(uid)`, as the kubelet names a Pod in its messages. */
  readonly podName: string;
}

/** How long `ErrImagePull` shows before `ImagePullBackOff`. */
export const errImagePullShowMs = 1_000;
const firstBackOffMs = 10_000;
const maxBackOffMs = 300_000;

/** The kubelet's back-off before the `n`th retry (n >= 1): 10 s doubling, at most 5 min. */
export function backOffMs(n: number): number {
  return Math.min(maxBackOffMs, firstBackOffMs * 2 ** Math.max(0, n - 1));
}

/** A containerd-like id for one start of one container. */
export function containerIdOf(podUid: string, name: string, restartCount: number): string {
  return `containerd://${createHash('sha256').update(`${podUid}/${name}/${restartCount}`).digest('hex')}`;
}

/** A new container run, waiting for its turn. */
export function newContainerRun(spec: { name: string; image?: string; readinessProbe?: { initialDelaySeconds?: number } }, init: boolean): ContainerRun {
  return {
    name: spec.name,
    image: spec.image ?? '',
    init,
    readyDelayMs: init || !spec.readinessProbe ? 0 : Math.max(0, spec.readinessProbe.initialDelaySeconds ?? 0) * 1000,
    state: 'waiting',
    reason: 'ContainerCreating',
    message: undefined,
    turnAt: undefined,
    nextAt: undefined,
    restartCount: 0,
    pullFailures: 0,
    crashes: 0,
    startedAt: undefined,
    containerID: undefined,
    terminated: undefined,
    lastTerminated: undefined,
  };
}

/** Whether an init container has completed (exit 0). */
export function initDone(container: ContainerRun): boolean {
  return container.state === 'terminated' && container.terminated?.exitCode === 0;
}

/** Applies every step due by `now`; returns when the next one is due (undefined: none). */
export function advanceRun(run: PodRun, uid: string, env: RunEnvironment, now: number): number | undefined {
  for (let guard = 0; guard < 10_000; guard++) {
    giveTurns(run, now);
    const due = run.containers.filter((c) => c.nextAt !== undefined && c.nextAt <= now).sort((a, b) => (a.nextAt ?? 0) - (b.nextAt ?? 0))[0];
    if (!due) break;
    step(due, uid, env, due.nextAt ?? now);
  }
  giveTurns(run, now);
  let next: number | undefined;
  for (const c of run.containers) if (c.nextAt !== undefined && (next === undefined || c.nextAt < next)) next = c.nextAt;
  return next;

  function giveTurns(r: PodRun, at: number): void {
    const inits = r.containers.filter((c) => c.init);
    const pendingInit = inits.find((c) => !initDone(c));
    const turn = (c: ContainerRun, since: number): void => {
      if (c.turnAt !== undefined) return;
      c.turnAt = since;
      c.reason = 'ContainerCreating';
      c.nextAt = since + env.startMs;
    };
    if (pendingInit) {
      const before = inits.slice(0, inits.indexOf(pendingInit));
      turn(pendingInit, Math.min(at, before.at(-1)?.terminated?.finishedAt ?? r.acceptedAt));
      for (const c of r.containers) if (!c.init && c.turnAt === undefined) c.reason = 'PodInitializing';
      return;
    }
    const since = inits.at(-1)?.terminated?.finishedAt ?? r.acceptedAt;
    for (const c of r.containers) if (!c.init) turn(c, Math.min(at, since));
  }
}

/** One step of one container, at time `at`. */
function step(c: ContainerRun, uid: string, env: RunEnvironment, at: number): void {
  if (c.state === 'running') return terminate(c, env, at);
  if (c.reason === 'ErrImagePull') {
    c.reason = 'ImagePullBackOff';
    c.message = `Back-off pulling image ${JSON.stringify(c.image)}`;
    c.nextAt = at - errImagePullShowMs + backOffMs(c.pullFailures);
    return;
  }
  if ((c.reason === 'ContainerCreating' || c.reason === 'ImagePullBackOff') && env.pullFails(c)) {
    c.pullFailures++;
    c.reason = 'ErrImagePull';
    c.message = `rpc error: code = NotFound desc = failed to pull and unpack image ${JSON.stringify(c.image)}: failed to resolve reference ${JSON.stringify(c.image)}: ${c.image}: not found`;
    c.nextAt = at + errImagePullShowMs;
    return;
  }
  // Created (after the pull, or after a crash's back-off): it runs.
  if (c.reason === 'CrashLoopBackOff') c.restartCount++;
  c.state = 'running';
  c.reason = '';
  c.message = undefined;
  c.startedAt = at;
  c.terminated = undefined;
  c.containerID = containerIdOf(uid, c.name, c.restartCount);
  const crash = env.crashOf(c);
  const runsFor = crash ? crash.runMs : c.init ? 0 : env.completesAfterMs;
  c.nextAt = runsFor === undefined ? undefined : at + runsFor;
}

/** The container exits (a crash, or its work done); the restart policy decides what follows. */
function terminate(c: ContainerRun, env: RunEnvironment, at: number): void {
  const crash = env.crashOf(c);
  const exitCode = crash ? crash.exitCode : 0;
  const termination: Termination = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: c.startedAt ?? at, finishedAt: at, containerID: c.containerID ?? '' };
  const restarts = exitCode === 0 ? env.restartPolicy === 'Always' && !c.init : env.restartPolicy !== 'Never';
  if (!restarts) {
    c.state = 'terminated';
    c.terminated = termination;
    c.nextAt = undefined;
    return;
  }
  c.crashes++;
  const backOff = backOffMs(c.crashes);
  c.state = 'waiting';
  c.reason = 'CrashLoopBackOff';
  c.message = `back-off ${formatSeconds(backOff)} restarting failed container=${c.name} pod=${env.podName}`;
  c.lastTerminated = termination;
  c.startedAt = undefined;
  c.nextAt = at + backOff;
}

/** Go's duration text for whole seconds and minutes: `10s`, `1m20s`, `5m0s`. */
function formatSeconds(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}
