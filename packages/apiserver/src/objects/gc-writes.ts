/** The garbage collector's writes (see `garbage-collector.ts`); each does nothing when the object is gone or its uid changed. */
import type { OwnerReference } from '@kubeloop/resource';
import type { StoredObject } from '../storage/change-event.js';
import { namespaceType } from '../types/builtin-resources.js';
import type { PropagationPolicy } from '../http/delete-options.js';
import { cloneJson, jsonEqual } from '../json-value.js';
import { canonicalObject } from './object-meta.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { deleteOne } from './delete-object.js';
import { immortalNamespaces, namespaceMayGo } from './namespace-contents.js';
import type { ObjectContext } from './object-context.js';
import { removeObject } from './remove-object.js';

/** Deletes an object as the garbage collector does: the ordinary delete path with `policy`. */
export function gcDelete(ctx: ObjectContext, type: ResourceType, key: string, uid: string, policy: PropagationPolicy): Promise<void> {
  return ctx.store.exclusive(async () => {
    const existing = storedWithUid(ctx, type, key, uid);
    if (!existing || (type === namespaceType && immortalNamespaces.includes(key))) return;
    await deleteOne(ctx, type, existing, { dryRun: false, propagationPolicy: policy });
  });
}

/** Rewrites an object's `ownerReferences` (dropping references to gone owners, unblocking). No change, no write. */
export function gcEditOwnerReferences(ctx: ObjectContext, type: ResourceType, key: string, uid: string, edit: (refs: readonly OwnerReference[]) => OwnerReference[]): Promise<void> {
  return ctx.store.exclusive(async () => {
    const existing = storedWithUid(ctx, type, key, uid);
    if (!existing) return;
    const refs = existing.object.metadata.ownerReferences ?? [];
    const edited = edit(refs);
    if (jsonEqual(refs, edited)) return;
    const next = cloneJson(existing.object);
    next.metadata.ownerReferences = edited;
    await ctx.store.put(storeKeyOf(type), key, canonicalObject(next, []));
  });
}

/** Removes one finalizer; like a client's write, removing the last one of an object being deleted removes the object. */
export function gcRemoveFinalizer(ctx: ObjectContext, type: ResourceType, key: string, uid: string, finalizer: string): Promise<void> {
  return ctx.store.exclusive(async () => {
    const existing = storedWithUid(ctx, type, key, uid);
    if (!existing?.object.metadata.finalizers?.includes(finalizer)) return;
    const next = cloneJson(existing.object);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    const meta = next.metadata;
    if (meta.deletionTimestamp && meta.finalizers?.length === 0 && (type !== namespaceType || namespaceMayGo(ctx, next))) {
      await removeObject(ctx, type, key);
      return;
    }
    await ctx.store.put(storeKeyOf(type), key, canonicalObject(next, []));
  });
}

function storedWithUid(ctx: ObjectContext, type: ResourceType, key: string, uid: string): StoredObject | undefined {
  const stored = ctx.store.get(storeKeyOf(type), key);
  return stored?.object.metadata.uid === uid ? stored : undefined;
}
