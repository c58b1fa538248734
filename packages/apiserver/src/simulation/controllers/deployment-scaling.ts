/**
 * Proportional scaling, as upstream's deployment controller does it when a Deployment is resized in
 * the middle of a rolling update: the replicas added (or removed) are shared among the active
 * ReplicaSets in proportion to their size relative to the Deployment's size when each was last
 * scaled (`max-replicas`), larger ReplicaSets first, the leftover to the first. Also the orders
 * upstream sorts ReplicaSets in.
 */
import type { Deployment, ReplicaSet } from '@kubeloop/resource';
import { intAnnotation, maxReplicasAnnotation } from './deployment-revisions.js';
import { desiredReplicas, maxSurge } from './rollout-arithmetic.js';

/** The spec size of a ReplicaSet. */
export function sizeOf(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 1;
}

/** Oldest first by creation timestamp, ties by name (upstream's `ReplicaSetsByCreationTimestamp`). */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return Date.parse(ta) - Date.parse(tb);
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** One ReplicaSet's new size. */
export interface ReplicaSetSize {
  readonly rs: ReplicaSet;
  readonly size: number;
}

/**
 * The sizes of the `active` ReplicaSets (those with replicas) after a resize of a rolling
 * Deployment; `statusReplicas` is the Deployment's `status.replicas` (the fallback when a
 * ReplicaSet has no `max-replicas`).
 */
export function proportionalSizes(deployment: Deployment, active: readonly ReplicaSet[], statusReplicas: number): ReplicaSetSize[] {
  const desired = desiredReplicas(deployment);
  const allowed = desired > 0 ? desired + maxSurge(deployment) : 0;
  const toAdd = allowed - active.reduce((total, rs) => total + sizeOf(rs), 0);
  const ordered = [...active];
  if (toAdd > 0) ordered.sort((a, b) => sizeOf(b) - sizeOf(a) || byCreation(b, a));
  else if (toAdd < 0) ordered.sort((a, b) => sizeOf(b) - sizeOf(a) || byCreation(a, b));
  let added = 0;
  const sizes = ordered.map((rs) => {
    if (toAdd === 0) return sizeOf(rs);
    const proportion = proportionOf(rs, deployment, { toAdd, added, statusReplicas });
    added += proportion;
    return sizeOf(rs) + proportion;
  });
  if (toAdd !== 0 && sizes.length > 0) sizes[0] = Math.max(0, sizes[0]! + toAdd - added);
  return ordered.map((rs, i) => ({ rs, size: sizes[i]! }));
}

/** Upstream's `GetProportion`: this ReplicaSet's share, within what is left to add or remove. */
function proportionOf(rs: ReplicaSet, deployment: Deployment, progress: { toAdd: number; added: number; statusReplicas: number }): number {
  const { toAdd, added } = progress;
  if (sizeOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = fractionOf(rs, deployment, progress.statusReplicas);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** Upstream's `getReplicaSetFraction`: its size scaled from the Deployment's old maximum to the new one, minus its size. */
function fractionOf(rs: ReplicaSet, deployment: Deployment, statusReplicas: number): number {
  const desired = desiredReplicas(deployment);
  if (desired === 0) return -sizeOf(rs);
  const maxNow = desired + maxSurge(deployment);
  let maxBefore = intAnnotation(rs, maxReplicasAnnotation) ?? 0;
  if (maxBefore === 0) {
    maxBefore = statusReplicas;
    if (maxBefore === 0) return 0;
  }
  return roundHalfAwayFromZero((sizeOf(rs) * maxNow) / maxBefore) - sizeOf(rs);
}

function roundHalfAwayFromZero(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}
