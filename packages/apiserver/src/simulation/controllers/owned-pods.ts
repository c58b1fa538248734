/** Reading a workload's Pods: those whose controller owner reference is the workload, and what phase they are in. */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import type { ResourceType } from '../../types/resource-type.js';
import { objectsIn } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';

/** The Pod fields the controllers read. */
export interface PodStatusView {
  readonly phase?: string;
  readonly conditions?: readonly { type: string; status: string; lastTransitionTime?: string }[];
}

/** The status of a stored Pod. */
export function podStatus(pod: StoredObject): PodStatusView {
  return (pod.object as KubeObject & { status?: PodStatusView }).status ?? {};
}

/** A Pod that finished (Succeeded or Failed). */
export function podFinished(pod: StoredObject): boolean {
  const phase = podStatus(pod).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** A Pod whose Ready condition is True. */
export function podReady(pod: StoredObject): boolean {
  return podStatus(pod).conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** The uid of the object's controller (the owner reference with `controller: true`), if any. */
export function controllerUid(object: KubeObject): string | undefined {
  return object.metadata.ownerReferences?.find((ref) => ref.controller === true)?.uid;
}

/** The objects of `type` in `namespace` controlled by the object with `uid`. */
export function controlledBy(ctx: SimulationContext, type: ResourceType, namespace: string, uid: string): StoredObject[] {
  return [...objectsIn(ctx, type, namespace)].filter((stored) => controllerUid(stored.object) === uid);
}
