/**
 * When kube-controller-manager counts a Pod as active, ready and available (`pkg/api/v1/pod` and
 * `pkg/controller`): the simulated workload controllers count replicas with these, from the Pod
 * status the (simulated) kubelet writes.
 */
import type { Pod } from '@kubeloop/resource';

/** Not terminal (`Succeeded`/`Failed`) and not being deleted: a Pod that counts as a replica. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** Its `Ready` condition is `True`. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** When its `Ready` condition last changed (ms since the epoch); undefined when not ready or unknown. */
export function podReadySince(pod: Pod): number | undefined {
  if (!isPodReady(pod)) return undefined;
  const since = pod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime;
  const ms = since === undefined ? Number.NaN : Date.parse(since);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Ready for longer than `minReadySeconds` at `nowMs` (strictly, as upstream's `IsPodAvailable`); with
 * `minReadySeconds` 0 every ready Pod is available.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 < nowMs;
}

/**
 * How long until the first ready-but-not-yet-available Pod becomes available (ms, just past the
 * strict boundary); undefined when none waits. The controller syncs again then.
 */
export function nextAvailabilityIn(pods: Iterable<Pod>, minReadySeconds: number, nowMs: number): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  let next: number | undefined;
  for (const pod of pods) {
    const since = podReadySince(pod);
    if (since === undefined || isPodAvailable(pod, minReadySeconds, nowMs)) continue;
    const wait = since + minReadySeconds * 1000 - nowMs + 1;
    if (next === undefined || wait < next) next = wait;
  }
  return next;
}
