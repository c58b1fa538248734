/** The namespace deleter's writes (see `namespace-deleter.ts`); each does nothing when the object is gone or its uid changed. */
import type { KubeObject } from '@kubeloop/resource';
import { finalizersAfterDelete } from '../http/delete-options.js';
import { cloneJson, jsonEqual } from '../json-value.js';
import { namespaceType } from '../types/builtin-resources.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { deleteOne } from './delete-object.js';
import { namespaceMayGo, namespaceStoreKey } from './namespace-contents.js';
import type { ObjectContext } from './object-context.js';
import { canonicalObject } from './object-meta.js';
import { removeObject } from './remove-object.js';

/**
 * Whether the namespace controller's delete would change the object: one not yet being deleted, or
 * one whose `orphan`/`foregroundDeletion` finalizer a `Background` delete removes.
 */
export function contentDeleteChanges(object: KubeObject): boolean {
  const meta = object.metadata;
  if (!meta.deletionTimestamp) return true;
  const finalizers = meta.finalizers ?? [];
  return finalizersAfterDelete(finalizers, 'Background') !== finalizers;
}

/**
 * Deletes one object of a terminating namespace through the ordinary delete path with
 * `propagationPolicy: Background`, as the namespace controller's deletecollection does (the
 * collector deletes the object's dependents; no `orphan` finalizer holds it).
 */
export function deleteNamespaceContent(ctx: ObjectContext, type: ResourceType, key: string, uid: string): Promise<void> {
  return ctx.store.exclusive(async () => {
    const existing = ctx.store.get(storeKeyOf(type), key);
    if (existing?.object.metadata.uid !== uid || !contentDeleteChanges(existing.object)) return;
    await deleteOne(ctx, type, existing, { dryRun: false, propagationPolicy: 'Background' });
  });
}

/**
 * Rewrites a terminating namespace by `edit` (status conditions, the phase, `spec.finalizers`);
 * `edit` returns undefined for no change. The namespace is removed instead when the result may go
 * (kube-apiserver deletes a namespace during the update that leaves it without finalizers).
 */
export function editTerminatingNamespace(ctx: ObjectContext, name: string, uid: string, edit: (ns: KubeObject) => KubeObject | undefined): Promise<void> {
  return ctx.store.exclusive(async () => {
    const existing = ctx.store.get(namespaceStoreKey, name);
    const meta = existing?.object.metadata;
    if (!existing || meta?.uid !== uid || !meta.deletionTimestamp) return;
    const edited = edit(cloneJson(existing.object));
    const next = edited ? canonicalObject(edited, []) : existing.object;
    if (namespaceMayGo(ctx, next)) {
      await removeObject(ctx, namespaceType, name);
      return;
    }
    if (edited && !jsonEqual(next, existing.object)) await ctx.store.put(namespaceStoreKey, name, next);
  });
}
