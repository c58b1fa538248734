/**
 * The numbers of a Deployment rollout, as upstream's `deployment/util` computes them: `maxSurge`
 * and `maxUnavailable` from an integer or a percentage of the replicas (surge rounded up,
 * unavailable rounded down, 1 unavailable when both come to 0), and how far a new ReplicaSet may grow.
 */
import type { Deployment, IntOrString } from '@kubeloop/resource';

/** The desired replicas (`spec.replicas`, default 1). */
export function desiredReplicas(deployment: Deployment): number {
  return deployment.spec?.replicas ?? 1;
}

/** True for the RollingUpdate strategy (the default). */
export function isRollingUpdate(deployment: Deployment): boolean {
  return (deployment.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** `intstr.GetScaledValueFromIntOrPercent`: an integer as is, `N%` of `total` rounded up or down. Throws for anything else. */
export function scaledValue(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const match = /^(-?\d+)%$/.exec(value);
  if (!match) throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(value)}: must be an integer or a percentage`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** Upstream's `ResolveFenceposts`: the surge and unavailability a rolling update may use. */
export function resolveFenceposts(deployment: Deployment): { surge: number; unavailable: number } {
  const rolling = deployment.spec?.strategy?.rollingUpdate;
  const desired = desiredReplicas(deployment);
  const surge = scaledValue(rolling?.maxSurge, desired, true);
  const unavailable = scaledValue(rolling?.maxUnavailable, desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

/** Upstream's `MaxSurge`: 0 unless a rolling update. */
export function maxSurge(deployment: Deployment): number {
  return isRollingUpdate(deployment) ? resolveFenceposts(deployment).surge : 0;
}

/** Upstream's `MaxUnavailable`: 0 unless a rolling update of some replicas; at most the replicas. */
export function maxUnavailable(deployment: Deployment): number {
  const desired = desiredReplicas(deployment);
  if (!isRollingUpdate(deployment) || desired === 0) return 0;
  return Math.min(resolveFenceposts(deployment).unavailable, desired);
}

/**
 * Upstream's `NewRSNewReplicas`: the size of the new ReplicaSet. Rolling: grow by what the surge
 * leaves room for (`desired + maxSurge - all ReplicaSets' spec.replicas`), never past `desired`.
 * Recreate: `desired`.
 */
export function newReplicaSetReplicas(deployment: Deployment, allSpecReplicas: number, newSpecReplicas: number): number {
  const desired = desiredReplicas(deployment);
  if (!isRollingUpdate(deployment)) return desired;
  const maxTotal = desired + scaledValue(deployment.spec?.strategy?.rollingUpdate?.maxSurge, desired, true);
  if (allSpecReplicas >= maxTotal) return newSpecReplicas;
  return newSpecReplicas + Math.min(maxTotal - allSpecReplicas, desired - newSpecReplicas);
}
