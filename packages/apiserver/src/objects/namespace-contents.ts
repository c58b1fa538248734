/** A namespace and what is in it: creates need a live namespace; a terminating one ends once empty. */
import { namespaceType } from '../types/builtin-resources.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { badRequest, forbidden, notFound } from '../http/status-error.js';
import type { ObjectContext } from './object-context.js';

/** Namespaces that exist from the start and may not be deleted. */
export const immortalNamespaces: readonly string[] = ['default', 'kube-system'];

export const namespaceStoreKey = storeKeyOf(namespaceType);

export function checkNamespaceAcceptsCreate(ctx: ObjectContext, type: ResourceType, namespace: string, name: string): void {
  if (!namespace) throw badRequest('the server could not find the requested resource: a namespace is required');
  const ns = ctx.store.get(namespaceStoreKey, namespace);
  if (!ns) throw notFound(namespaceType, namespace);
  if (ns.object.metadata.deletionTimestamp) {
    throw forbidden(type, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  }
}

export function namespaceHasObjects(ctx: ObjectContext, namespace: string): boolean {
  const prefix = `${namespace}/`;
  for (const type of ctx.registry.all()) {
    if (!type.namespaced) continue;
    for (const stored of ctx.store.values(storeKeyOf(type))) if (stored.key.startsWith(prefix)) return true;
  }
  return false;
}

export async function finishNamespaceIfEmpty(ctx: ObjectContext, namespace: string): Promise<void> {
  const ns = ctx.store.get(namespaceStoreKey, namespace);
  if (!ns?.object.metadata.deletionTimestamp || ns.object.metadata.finalizers?.length) return;
  if (namespaceHasObjects(ctx, namespace)) return;
  await ctx.store.remove(namespaceStoreKey, namespace);
}
