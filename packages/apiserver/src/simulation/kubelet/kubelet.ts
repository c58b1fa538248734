/**
 * The simulated kubelet of every simulated Node: it takes each Pod bound to its Node, plays its run
 * (`pod-run.ts`) on the simulation's clock and writes the status after each step
 * (`pod-status.ts`): Pending (ContainerCreating) -> Running after `podStartMs` -> Ready after the
 * readiness probe's `initialDelaySeconds`; a Job's Pod (or one annotated
 * `simulation.kubeloop.dev/run-ms`) with restartPolicy Never/OnFailure Succeeds after its run. A
 * Pod being deleted is removed when its grace period ends. The workload faults are read at every
 * step; on a Node whose kubelet is down (`nodeNotReady`, Unknown) nothing happens to its Pods.
 */
import type { KubeObject } from '@kubeloop/resource';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { nodeAddress } from './node-object.js';
import { allocatePodIp, boundToSimulatedNode } from './pod-addresses.js';
import { advanceRun, newContainerRun } from './pod-run.js';
import type { ContainerRun, PodRun, RunEnvironment } from './pod-run.js';
import { containerReady, renderPodStatus } from './pod-status.js';
import { podFinished, podSpec } from './simulated-cluster.js';
import type { SimulatedCluster } from './simulated-cluster.js';

/**
 * The annotation that makes a Pod (restartPolicy Never or OnFailure) exit 0 after this many ms of
 * the simulation's clock, as a Job's Pod does after `simulate.kubelet.jobPodRunMs`.
 */
export const runMsAnnotation = 'simulation.kubeloop.dev/run-ms';

interface ContainerSpec {
  name: string;
  image?: string;
  readinessProbe?: { initialDelaySeconds?: number };
}

/** How long the Pod's regular containers run before they exit 0; undefined: until stopped. */
function completesAfterMs(cluster: SimulatedCluster, pod: KubeObject, restartPolicy: string): number | undefined {
  if (restartPolicy === 'Always') return undefined;
  const annotated = pod.metadata.annotations?.[runMsAnnotation];
  if (annotated !== undefined) {
    const ms = Number(annotated);
    return Number.isFinite(ms) && ms >= 0 ? ms : cluster.settings.jobPodRunMs;
  }
  const ownedByJob = (pod.metadata.ownerReferences ?? []).some((ref) => ref.kind === 'Job' && ref.apiVersion.startsWith('batch/'));
  return ownedByJob ? cluster.settings.jobPodRunMs : undefined;
}

/** A new run of the Pod, or (after a server restart) one that picks up the containers the status says are running. */
function acceptPod(cluster: SimulatedCluster, pod: KubeObject, nodeName: string, index: number, now: number): PodRun {
  const spec = (pod.spec ?? {}) as { containers?: ContainerSpec[]; initContainers?: ContainerSpec[] };
  const containers = [...(spec.initContainers ?? []).map((c) => newContainerRun(c, true)), ...(spec.containers ?? []).map((c) => newContainerRun(c, false))];
  const status = (pod.status ?? {}) as { phase?: string; podIP?: string; startTime?: string; containerStatuses?: { name: string; restartCount?: number; containerID?: string; state?: { running?: { startedAt?: string } } }[] };
  const adopted = status.phase === 'Running' && status.podIP !== undefined;
  if (adopted) {
    for (const c of containers) {
      const previous = status.containerStatuses?.find((s) => s.name === c.name);
      if (c.init) Object.assign(c, { state: 'terminated', reason: '', turnAt: now, terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: '' } });
      else if (previous?.state?.running) {
        Object.assign(c, { state: 'running', reason: '', turnAt: now, restartCount: previous.restartCount ?? 0, containerID: previous.containerID, startedAt: Date.parse(previous.state.running.startedAt ?? '') || now });
      }
    }
  }
  const acceptedAt = adopted ? Date.parse(status.startTime ?? '') || now : now;
  return { uid: pod.metadata.uid ?? '', acceptedAt, podIP: adopted && status.podIP ? status.podIP : allocatePodIp(cluster, nodeName, index), containers };
}

/** Runs the Pods bound to the simulated Nodes; keys are Pod store keys. */
export function kubeletController(cluster: SimulatedCluster): SimulatedController {
  const pods = storeKeyOf(cluster.podType);
  const ours = function* (): Iterable<string> {
    for (const stored of cluster.pods()) if (boundToSimulatedNode(cluster, podSpec(stored.object)) && !podFinished(stored.object)) yield stored.key;
  };
  return {
    name: 'kubelet',
    watches: [pods],
    *keysFor(_storeKey, event) {
      if (boundToSimulatedNode(cluster, podSpec(event.current.object))) yield event.current.key;
    },
    initialKeys: ours,
    connect(requeue) {
      cluster.faults.onChange(() => {
        for (const key of ours()) requeue(key);
      });
    },
    sync: (key) => syncPod(cluster, key),
  };
}

async function syncPod(cluster: SimulatedCluster, key: string): Promise<number | undefined> {
  const stored = cluster.pod(key);
  const run = cluster.runs.get(key);
  if (!stored || (run && run.uid !== stored.object.metadata.uid)) cluster.runs.delete(key);
  if (!stored) return undefined;
  const pod = stored.object;
  const nodeName = podSpec(pod).nodeName ?? '';
  const index = cluster.nodeIndex(nodeName);
  const nodeStatus = cluster.faults.nodeStatus(nodeName);
  // A kubelet that is down does nothing, not even finish a deletion.
  if (index === undefined || nodeStatus === 'Unknown') return undefined;
  const now = cluster.now();
  const deletion = pod.metadata.deletionTimestamp;
  if (deletion) {
    const at = Date.parse(deletion);
    if (now < at) return at - now;
    await cluster.kubeletWrites.delete(cluster.podType, stored, { gracePeriodSeconds: 0 });
    cluster.runs.delete(key);
    return undefined;
  }
  if (podFinished(pod)) {
    cluster.runs.delete(key);
    return undefined;
  }
  const current = cluster.runs.get(key) ?? acceptPod(cluster, pod, nodeName, index, now);
  cluster.runs.set(key, current);
  const restartPolicy = (podSpec(pod).restartPolicy ?? 'Always') as RunEnvironment['restartPolicy'];
  const env: RunEnvironment = {
    restartPolicy,
    startMs: cluster.faults.startMs(pod, cluster.settings.podStartMs),
    completesAfterMs: completesAfterMs(cluster, pod, restartPolicy),
    pullFails: (c: ContainerRun) => cluster.faults.pullFails(pod, c),
    crashOf: (c: ContainerRun) => cluster.faults.crashOf(pod, c),
    podName: `${pod.metadata.name}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`,
  };
  const nextStep = advanceRun(current, current.uid, env, now);
  const inputs = {
    now,
    hostIP: nodeAddress(index),
    hostNetwork: (pod.spec as { hostNetwork?: boolean } | undefined)?.hostNetwork === true,
    readinessPasses: nodeStatus === undefined && !cluster.faults.holdsUnready(pod),
  };
  await cluster.kubeletWrites.updateStatus(cluster.podType, stored, (object) => {
    object.status = renderPodStatus(object, current, restartPolicy, inputs);
  });
  // The next step, or the moment a running container passes its readiness delay.
  let next = nextStep;
  for (const c of current.containers) {
    const readyAt = c.startedAt !== undefined && !c.init && c.state === 'running' ? c.startedAt + c.readyDelayMs : undefined;
    if (readyAt !== undefined && readyAt > now && inputs.readinessPasses && !containerReady(c, inputs) && (next === undefined || readyAt < next)) next = readyAt;
  }
  return next === undefined ? undefined : Math.max(0, next - now);
}
