/** CustomResourceDefinitions as served types: a stored CRD registers its type, a removed one takes its objects with it. */
import type { KubeObject } from '@kubeloop/resource';
import { crdType, customResourceType, storeKeyOfCrd } from '../types/crd-resource.js';
import { cloneJson, jsonEqual } from '../json-value.js';
import { canonicalObject } from './object-meta.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import type { ObjectContext } from './object-context.js';

const crdStoreKey = storeKeyOf(crdType);

export function registerCrd(ctx: ObjectContext, crd: KubeObject, previousCrd: KubeObject | undefined): void {
  const storeKey = storeKeyOfCrd(crd);
  const previous = ctx.registry.byStoreKey(storeKey);
  const type = customResourceType(crd);
  ctx.store.ensureTable(storeKey);
  ctx.registry.add(type);
  if (previousCrd) applyReadDefaults(ctx, type);
  ctx.types.typeChanged(type, previous);
}

/**
 * Gives the stored objects of a type the defaults their schema declares and they lack (a
 * default added to a CRD after they were written): in memory, without a new resourceVersion or
 * event, as the real server applies defaults when it reads an object. Runs when a CRD changes
 * and after a restart's replay.
 */
export function applyReadDefaults(ctx: ObjectContext, type: ResourceType): void {
  if (!type.defaultOnRead) return;
  const storeKey = storeKeyOf(type);
  for (const stored of [...ctx.store.values(storeKey)]) {
    const copy = cloneJson(stored.object);
    type.defaultOnRead(copy, type.storageVersion);
    if (!jsonEqual(copy, stored.object)) ctx.store.load(storeKey, stored.key, canonicalObject(copy, []));
  }
}

export async function unregisterCrd(ctx: ObjectContext, crd: KubeObject): Promise<void> {
  const storeKey = storeKeyOfCrd(crd);
  for (const stored of [...ctx.store.values(storeKey)]) await ctx.store.remove(storeKey, stored.key);
  ctx.registry.remove(storeKey);
  ctx.types.typeRemoved(storeKey);
  ctx.store.dropTable(storeKey);
}

/** Re-registers the types of stored CRDs (after a replay). */
export function registerStoredCrds(ctx: ObjectContext): void {
  for (const stored of ctx.store.values(crdStoreKey)) {
    ctx.registry.add(customResourceType(stored.object));
    ctx.store.ensureTable(storeKeyOfCrd(stored.object));
  }
}
