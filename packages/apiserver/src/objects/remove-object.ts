/** The end of an object: removed from storage, with what follows (a CRD's objects and type). */
import type { StoredObject } from '../storage/change-event.js';
import { crdType } from '../types/crd-resource.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { unregisterCrd } from './crd-types.js';
import type { ObjectContext } from './object-context.js';

/**
 * Removes an object for good, with what follows: a CRD's objects and type. A terminating namespace
 * left empty is finished by the namespace deleter (`namespace-deleter.ts`), which sees the removal.
 */
export async function removeObject(ctx: ObjectContext, type: ResourceType, key: string): Promise<StoredObject | undefined> {
  const storeKey = storeKeyOf(type);
  if (type === crdType) {
    const crd = ctx.store.get(storeKey, key);
    if (crd) await unregisterCrd(ctx, crd.object);
  }
  return ctx.store.remove(storeKey, key);
}
