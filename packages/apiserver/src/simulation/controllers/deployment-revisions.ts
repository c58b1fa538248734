/**
 * The annotations a Deployment and its ReplicaSets carry, as upstream's deployment controller writes
 * them: `deployment.kubernetes.io/revision` (the rollout number, highest on the new ReplicaSet and
 * copied to the Deployment; what `kubectl rollout history|undo` read), `revision-history` (the
 * revisions a ReplicaSet had before a rollback made it new again), `desired-replicas` and
 * `max-replicas` (the Deployment's size when the ReplicaSet was last scaled: proportional scaling
 * reads them), and the Deployment's own annotations copied onto its new ReplicaSet.
 */
import type { Deployment, KubeObject } from '@kubeloop/resource';
import { desiredReplicas, maxSurge } from './rollout-arithmetic.js';

export const revisionAnnotation = 'deployment.kubernetes.io/revision';
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';

/** Upstream's `MaxRevHistoryLengthInChars`. */
const maxRevisionHistoryChars = 2000;

/** Not copied from a Deployment to its ReplicaSets. */
const annotationsNotCopied = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  revisionAnnotation,
  revisionHistoryAnnotation,
  desiredReplicasAnnotation,
  maxReplicasAnnotation,
  'deprecated.deployment.rollback.to',
]);

/** An object's revision (0 when it has none or it is not a number). */
export function revisionOf(object: KubeObject): number {
  const text = object.metadata.annotations?.[revisionAnnotation];
  const revision = text === undefined ? 0 : Number(text);
  return Number.isSafeInteger(revision) ? revision : 0;
}

/** The integer annotation `name` of `object`; undefined when absent or not an integer. */
export function intAnnotation(object: KubeObject, name: string): number | undefined {
  const text = object.metadata.annotations?.[name];
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

/** The replica annotations of a ReplicaSet scaled for `deployment`: its size and its size plus surge. */
export function replicasAnnotations(deployment: Deployment): Record<string, string> {
  const desired = desiredReplicas(deployment);
  return { [desiredReplicasAnnotation]: String(desired), [maxReplicasAnnotation]: String(desired + maxSurge(deployment)) };
}

/** True when a ReplicaSet's replica annotations differ from `deployment`'s (`ReplicasAnnotationsNeedUpdate`). */
export function replicasAnnotationsNeedUpdate(rs: KubeObject, deployment: Deployment): boolean {
  const wanted = replicasAnnotations(deployment);
  return Object.entries(wanted).some(([k, v]) => rs.metadata.annotations?.[k] !== v);
}

/**
 * Upstream's `SetNewReplicaSetAnnotations`, on a copy: the Deployment's annotations copied, the
 * revision raised to `newRevision` when lower (the previous one appended to `revision-history`,
 * at most 2,000 characters, oldest dropped first), and the replica annotations for a ReplicaSet
 * about to be created (`exists` false).
 */
export function newReplicaSetAnnotations(deployment: Deployment, current: Readonly<Record<string, string>> | undefined, newRevision: number, exists: boolean): Record<string, string> {
  const annotations: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(deployment.metadata.annotations ?? {})) {
    if (!annotationsNotCopied.has(key)) annotations[key] = value;
  }
  const oldText = annotations[revisionAnnotation];
  const oldRevision = oldText === undefined || oldText === '' ? 0 : Number(oldText);
  if (!Number.isSafeInteger(oldRevision)) return annotations;
  if (oldRevision < newRevision) {
    annotations[revisionAnnotation] = String(newRevision);
    if (oldText !== undefined) {
      const history = annotations[revisionHistoryAnnotation] ?? '';
      annotations[revisionHistoryAnnotation] = appendRevision(history, oldText);
    }
  }
  if (!exists) Object.assign(annotations, replicasAnnotations(deployment));
  return annotations;
}

function appendRevision(history: string, revision: string): string {
  if (history === '') return revision;
  const revisions = history.split(',');
  let total = history.length + revision.length + 1;
  let start = 0;
  while (total > maxRevisionHistoryChars && start < revisions.length) {
    total -= revisions[start]!.length + 1;
    start++;
  }
  return total <= maxRevisionHistoryChars ? [...revisions.slice(start), revision].join(',') : history;
}
