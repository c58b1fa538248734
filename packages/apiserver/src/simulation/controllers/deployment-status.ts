/**
 * A Deployment's status as upstream's deployment controller computes it (`sync.go`, `progress.go`,
 * `deployment/util`): the replica counts summed over its ReplicaSets, the `Available` condition
 * (`MinimumReplicasAvailable` once at least `replicas - maxUnavailable` are available,
 * `MinimumReplicasUnavailable` before), and the `Progressing` condition of a rollout with a
 * progress deadline (`NewReplicaSetCreated`, `FoundNewReplicaSet`, `ReplicaSetUpdated` while it
 * moves, `NewReplicaSetAvailable` once complete, `ProgressDeadlineExceeded` after
 * `progressDeadlineSeconds` without progress; `DeploymentPaused`/`DeploymentResumed`).
 * Conditions keep their `lastTransitionTime` while their status stays; a condition whose status and
 * reason stay is not rewritten. Zero counts are left out, as upstream's `omitempty` fields.
 */
import type { Deployment, ReplicaSet, V1DeploymentCondition, V1DeploymentStatus } from '@kubeloop/resource';
import { desiredReplicas, maxUnavailable } from './rollout-arithmetic.js';

export const reasons = {
  newReplicaSetCreated: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  replicaSetUpdated: 'ReplicaSetUpdated',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  progressDeadlineExceeded: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** The simulation's now, in ms and as a `metav1.Time`. */
export interface Now {
  readonly ms: number;
  readonly timestamp: string;
}

/** A new condition stamped `now` (upstream's `NewDeploymentCondition`). */
export function newCondition(type: string, status: string, reason: string, message: string, now: Now): V1DeploymentCondition {
  return { type, status, lastUpdateTime: now.timestamp, lastTransitionTime: now.timestamp, reason, message };
}

export function conditionOf(status: V1DeploymentStatus | undefined, type: string): V1DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** Upstream's `SetDeploymentCondition`: nothing when status and reason are the same; the transition time kept when the status is. */
export function setCondition(status: V1DeploymentStatus, condition: V1DeploymentCondition): void {
  const current = conditionOf(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: V1DeploymentStatus, type: string): void {
  const kept = (status.conditions ?? []).filter((c) => c.type !== type);
  if (kept.length > 0) status.conditions = kept;
  else delete status.conditions;
}

/** A progress deadline is set (and is not `MaxInt32`, which upstream reads as none). */
export function hasProgressDeadline(deployment: Deployment): boolean {
  const seconds = deployment.spec?.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== 2_147_483_647;
}

function sum(replicaSets: readonly ReplicaSet[], count: (rs: ReplicaSet) => number | undefined): number {
  return replicaSets.reduce((total, rs) => total + (count(rs) ?? 0), 0);
}

/** Upstream's `calculateStatus`: counts from the ReplicaSets, the conditions kept, `Available` set. */
export function calculateStatus(deployment: Deployment, allReplicaSets: readonly ReplicaSet[], newReplicaSet: ReplicaSet | undefined, now: Now): V1DeploymentStatus {
  const available = sum(allReplicaSets, (rs) => rs.status?.availableReplicas);
  const total = sum(allReplicaSets, (rs) => rs.spec?.replicas ?? 1);
  const counts = {
    observedGeneration: deployment.metadata.generation ?? 0,
    replicas: sum(allReplicaSets, (rs) => rs.status?.replicas),
    updatedReplicas: newReplicaSet ? (newReplicaSet.status?.replicas ?? 0) : 0,
    readyReplicas: sum(allReplicaSets, (rs) => rs.status?.readyReplicas),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  const status: V1DeploymentStatus = {};
  for (const [field, value] of Object.entries(counts)) if (value !== 0) status[field as keyof typeof counts] = value;
  const previous = deployment.status;
  if (previous?.conditions?.length) status.conditions = previous.conditions.map((c) => ({ ...c }));
  if (previous?.collisionCount !== undefined) status.collisionCount = previous.collisionCount;
  if (available >= desiredReplicas(deployment) - maxUnavailable(deployment)) {
    setCondition(status, newCondition('Available', 'True', reasons.minimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', reasons.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** Upstream's `DeploymentComplete`: every replica updated and available, the generation observed. */
export function deploymentComplete(deployment: Deployment, status: V1DeploymentStatus | undefined): boolean {
  const desired = desiredReplicas(deployment);
  return (
    (status?.updatedReplicas ?? 0) === desired &&
    (status?.replicas ?? 0) === desired &&
    (status?.availableReplicas ?? 0) === desired &&
    (status?.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0)
  );
}

/** Upstream's `DeploymentProgressing`: more updated, ready or available replicas, or fewer old ones, than before. */
function deploymentProgressing(deployment: Deployment, next: V1DeploymentStatus): boolean {
  const before = deployment.status ?? {};
  const oldBefore = (before.replicas ?? 0) - (before.updatedReplicas ?? 0);
  const oldNow = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (
    (next.updatedReplicas ?? 0) > (before.updatedReplicas ?? 0) ||
    oldNow < oldBefore ||
    (next.readyReplicas ?? 0) > (before.readyReplicas ?? 0) ||
    (next.availableReplicas ?? 0) > (before.availableReplicas ?? 0)
  );
}

/** Upstream's `DeploymentTimedOut`: no progress noted for longer than the deadline. */
function deploymentTimedOut(deployment: Deployment, next: V1DeploymentStatus, nowMs: number): boolean {
  const condition = conditionOf(next, 'Progressing');
  if (!hasProgressDeadline(deployment) || !condition) return false;
  if (condition.reason === reasons.newReplicaSetAvailable) return false;
  if (condition.reason === reasons.progressDeadlineExceeded) return true;
  const from = Date.parse(condition.lastUpdateTime ?? '');
  return !Number.isNaN(from) && from + (deployment.spec?.progressDeadlineSeconds ?? 0) * 1000 < nowMs;
}

/** Upstream's `syncRolloutStatus` computation: {@link calculateStatus} with the `Progressing` condition of the rollout. */
export function rolloutStatus(deployment: Deployment, allReplicaSets: readonly ReplicaSet[], newReplicaSet: ReplicaSet | undefined, now: Now): V1DeploymentStatus {
  const next = calculateStatus(deployment, allReplicaSets, newReplicaSet, now);
  if (!hasProgressDeadline(deployment)) removeCondition(next, 'Progressing');
  const current = conditionOf(deployment.status, 'Progressing');
  const complete = next.replicas === next.updatedReplicas && current?.reason === reasons.newReplicaSetAvailable;
  if (hasProgressDeadline(deployment) && !complete) {
    const subject = newReplicaSet ? `ReplicaSet "${newReplicaSet.metadata.name}"` : `Deployment "${deployment.metadata.name}"`;
    if (deploymentComplete(deployment, next)) {
      setCondition(next, newCondition('Progressing', 'True', reasons.newReplicaSetAvailable, `${subject} has successfully progressed.`, now));
    } else if (deploymentProgressing(deployment, next)) {
      // Progress moves lastUpdateTime even with the same reason: the deadline counts from it.
      const condition = newCondition('Progressing', 'True', reasons.replicaSetUpdated, `${subject} is progressing.`, now);
      if (current?.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
      removeCondition(next, 'Progressing');
      setCondition(next, condition);
    } else if (deploymentTimedOut(deployment, next, now.ms)) {
      setCondition(next, newCondition('Progressing', 'False', reasons.progressDeadlineExceeded, `${subject} has timed out progressing.`, now));
    }
  }
  const failure = replicaFailure(allReplicaSets, newReplicaSet);
  if (failure) setCondition(next, failure);
  else removeCondition(next, 'ReplicaFailure');
  return next;
}

/** The `ReplicaFailure` condition of the new ReplicaSet, else of any other, as a Deployment condition. */
function replicaFailure(allReplicaSets: readonly ReplicaSet[], newReplicaSet: ReplicaSet | undefined): V1DeploymentCondition | undefined {
  const failureOf = (rs: ReplicaSet | undefined) => rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  const found = failureOf(newReplicaSet) ?? allReplicaSets.map(failureOf).find((c) => c !== undefined);
  if (!found) return undefined;
  return { type: 'ReplicaFailure', status: found.status, lastUpdateTime: found.lastTransitionTime, lastTransitionTime: found.lastTransitionTime, reason: found.reason, message: found.message };
}

/**
 * Upstream's `requeueStuckDeployment`: when a rollout with a deadline made no progress, the delay
 * (ms) after which to check whether it timed out: the deadline from the condition's last update,
 * plus a second as upstream (timestamps are whole seconds); undefined when nothing can time out.
 */
export function timeoutCheckDelay(deployment: Deployment, next: V1DeploymentStatus, nowMs: number): number | undefined {
  const current = conditionOf(deployment.status, 'Progressing');
  if (!hasProgressDeadline(deployment) || !current) return undefined;
  if (deploymentComplete(deployment, next) || current.reason === reasons.progressDeadlineExceeded) return undefined;
  const from = Date.parse(current.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return undefined;
  return Math.max(0, from + (deployment.spec?.progressDeadlineSeconds ?? 0) * 1000 - nowMs) + 1000;
}
