/**
 * Owner references as kube-controller-manager's controllers use them (`ControllerRefManager`): a
 * controller claims the objects its selector matches. One it controls that no longer matches is
 * released (its reference removed); an orphan that matches is adopted (a controller reference
 * added), unless the controller or the orphan is being deleted; one another controller controls
 * is left alone.
 */
import { controllerOf } from '@kubeloop/resource';
import type { KubeObject, OwnerReference } from '@kubeloop/resource';
import type { StoredObject } from '../../storage/change-event.js';
import type { ResourceType } from '../../types/resource-type.js';
import type { SimulationContext } from '../simulation-context.js';

/** The controller reference a controller puts on what it creates or adopts. */
export function controllerRefTo(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** True when `object`'s controller reference names `owner` (by uid). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return controllerOf(object)?.uid === owner.metadata.uid;
}

/** The namespace/name key of `object`'s controller when it is of `kind` (`apiVersion`); undefined otherwise. */
export function controllerKeyOf(object: KubeObject, apiVersion: string, kind: string): string | undefined {
  const ref = controllerOf(object);
  if (!ref || ref.kind !== kind || ref.apiVersion !== apiVersion) return undefined;
  return `${object.metadata.namespace ?? ''}/${ref.name}`;
}

/** What {@link claimObjects} works on. */
export interface ClaimRequest {
  /** The controller, as stored now. */
  readonly owner: KubeObject;
  /** The type of the candidates. */
  readonly type: ResourceType;
  /** The candidates: the objects of the owner's namespace it may control. */
  readonly candidates: Iterable<StoredObject>;
  /** The owner's selector. */
  readonly matches: (object: KubeObject) => boolean;
}

/** Adopts and releases as the owner's selector says; resolves to the objects the owner controls afterwards. */
export async function claimObjects(ctx: SimulationContext, request: ClaimRequest): Promise<StoredObject[]> {
  const { owner, type, matches } = request;
  const ownerDeleting = Boolean(owner.metadata.deletionTimestamp);
  const claimed: StoredObject[] = [];
  for (const stored of request.candidates) {
    const object = stored.object;
    const ref = controllerOf(object);
    if (ref) {
      if (ref.uid !== owner.metadata.uid) continue;
      if (matches(object)) claimed.push(stored);
      else if (!ownerDeleting) {
        await ctx.writes.update(type, stored, (next) => {
          const kept = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid);
          if (kept.length > 0) next.metadata.ownerReferences = kept;
          else delete next.metadata.ownerReferences;
        });
      }
      continue;
    }
    if (ownerDeleting || object.metadata.deletionTimestamp || !matches(object)) continue;
    claimed.push(
      await ctx.writes.update(type, stored, (next) => {
        next.metadata.ownerReferences = [...(next.metadata.ownerReferences ?? []), controllerRefTo(owner)];
      }),
    );
  }
  return claimed;
}
