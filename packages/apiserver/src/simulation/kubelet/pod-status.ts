/**
 * The Pod status the kubelet writes for a run (`pod-run.ts`): phase, the conditions
 * PodReadyToStartContainers / Initialized / Ready / ContainersReady beside the scheduler's
 * PodScheduled (reasons and messages as the kubelet's), host and Pod IPs, startTime, and a status
 * per container (state, lastState, ready, started, restartCount, imageID, containerID).
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '@kubeloop/resource';
import { initDone } from './pod-run.js';
import type { ContainerRun, PodRun, Termination } from './pod-run.js';
import { imageRepository } from './workload-faults.js';
import { timeText } from './simulated-cluster.js';

/** A Pod condition. */
export interface PodCondition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
  lastProbeTime: null;
  lastTransitionTime: string;
}

/** What rendering needs besides the run. */
export interface StatusInputs {
  readonly now: number;
  readonly hostIP: string;
  /** `spec.hostNetwork`: the Pod's IP is its Node's. */
  readonly hostNetwork: boolean;
  /** False under a `neverReady` fault or on a Node reporting NotReady: no container passes readiness. */
  readonly readinessPasses: boolean;
}

/** `docker.io/library/nginx:1.27` -> `docker.io/library/nginx@sha256:<digest of the reference>`. */
export function imageIdOf(image: string): string {
  const repository = imageRepository(image);
  const qualified = repository.includes('/') ? (/^[^/]*[.:]|^localhost\//.test(repository) ? repository : `docker.io/${repository}`) : `docker.io/library/${repository}`;
  return `${qualified}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

/** Whether a regular container passes readiness at `now`. */
export function containerReady(c: ContainerRun, inputs: StatusInputs): boolean {
  return c.state === 'running' && inputs.readinessPasses && c.startedAt !== undefined && inputs.now >= c.startedAt + c.readyDelayMs;
}

function terminatedJson(t: Termination): Record<string, unknown> {
  return { exitCode: t.exitCode, reason: t.reason, startedAt: timeText(t.startedAt), finishedAt: timeText(t.finishedAt), containerID: t.containerID };
}

function stateJson(c: ContainerRun): Record<string, unknown> {
  if (c.state === 'running') return { running: { startedAt: timeText(c.startedAt ?? 0) } };
  if (c.state === 'terminated' && c.terminated) return { terminated: terminatedJson(c.terminated) };
  return { waiting: c.message === undefined ? { reason: c.reason } : { reason: c.reason, message: c.message } };
}

function containerStatus(c: ContainerRun, inputs: StatusInputs): Record<string, unknown> {
  const ran = c.containerID !== undefined;
  const ready = c.init ? initDone(c) : containerReady(c, inputs);
  return {
    name: c.name,
    image: c.image,
    imageID: ran ? imageIdOf(c.image) : '',
    ...(ran && { containerID: c.containerID }),
    ready,
    restartCount: c.restartCount,
    started: c.state === 'running',
    state: stateJson(c),
    lastState: c.lastTerminated ? { terminated: terminatedJson(c.lastTerminated) } : {},
  };
}

/** The phase of a run, as the kubelet's `getPhase`. */
export function runPhase(run: PodRun, restartPolicy: string): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  const inits = run.containers.filter((c) => c.init);
  const regular = run.containers.filter((c) => !c.init);
  if (inits.some((c) => c.state === 'terminated' && c.terminated?.exitCode !== 0) && restartPolicy === 'Never') return 'Failed';
  if (!inits.every(initDone)) return 'Pending';
  if (regular.length > 0 && regular.every((c) => c.state === 'terminated')) return regular.every((c) => c.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
  if (regular.some((c) => c.containerID === undefined)) return 'Pending';
  return 'Running';
}

function condition(type: string, ok: boolean, time: string, why?: { reason: string; message?: string }): PodCondition {
  return { type, status: ok ? 'True' : 'False', ...(why && { reason: why.reason }), ...(why?.message !== undefined && { message: why.message }), lastProbeTime: null, lastTransitionTime: time };
}

function names(containers: readonly ContainerRun[]): string {
  return `[${containers.map((c) => c.name).join(' ')}]`;
}

/** The kubelet's conditions, with the transition times of `previous` kept where the status is unchanged. */
function conditionsOf(run: PodRun, phase: string, inputs: StatusInputs, previous: readonly PodCondition[]): PodCondition[] {
  const time = timeText(inputs.now);
  const finished = phase === 'Succeeded' || phase === 'Failed';
  const completed = { reason: 'PodCompleted' };
  const inits = run.containers.filter((c) => c.init);
  const regular = run.containers.filter((c) => !c.init);
  const incomplete = inits.filter((c) => !initDone(c));
  const unready = regular.filter((c) => !containerReady(c, inputs));
  const notReady = unready.length > 0 ? { reason: 'ContainersNotReady', message: `containers with unready status: ${names(unready)}` } : undefined;
  const next = [
    condition('PodReadyToStartContainers', !finished, time),
    finished && phase === 'Succeeded'
      ? condition('Initialized', true, time, completed)
      : condition('Initialized', incomplete.length === 0, time, incomplete.length > 0 ? { reason: 'ContainersNotInitialized', message: `containers with incomplete status: ${names(incomplete)}` } : undefined),
    finished ? condition('Ready', false, time, phase === 'Succeeded' ? completed : notReady) : condition('Ready', !notReady, time, notReady),
    finished ? condition('ContainersReady', false, time, phase === 'Succeeded' ? completed : notReady) : condition('ContainersReady', !notReady, time, notReady),
  ];
  const kept = next.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    return before && before.status === c.status ? { ...c, lastTransitionTime: before.lastTransitionTime } : c;
  });
  const others = previous.filter((p) => !next.some((c) => c.type === p.type));
  return [...kept, ...others];
}

/** The Pod's status after `run`, from its current `status` (qosClass and the scheduler's condition are kept). */
export function renderPodStatus(pod: KubeObject, run: PodRun, restartPolicy: string, inputs: StatusInputs): Record<string, unknown> {
  const status = (pod.status ?? {}) as Record<string, unknown> & { conditions?: PodCondition[] };
  const phase = runPhase(run, restartPolicy);
  const podIP = inputs.hostNetwork ? inputs.hostIP : run.podIP;
  const inits = run.containers.filter((c) => c.init);
  return {
    ...status,
    phase,
    conditions: conditionsOf(run, phase, inputs, status.conditions ?? []),
    hostIP: inputs.hostIP,
    hostIPs: [{ ip: inputs.hostIP }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: timeText(run.acceptedAt),
    ...(inits.length > 0 && { initContainerStatuses: inits.map((c) => containerStatus(c, inputs)) }),
    containerStatuses: run.containers.filter((c) => !c.init).map((c) => containerStatus(c, inputs)),
  };
}
