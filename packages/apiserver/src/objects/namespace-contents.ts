/** A namespace and what is in it: creates need a live namespace; a terminating one may go once empty and finalized. */
import type { KubeObject, StatusCause } from '@kubeloop/resource';
import { namespaceType } from '../types/builtin-resources.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { badRequest, forbidden, notFound } from '../http/status-error.js';
import type { ObjectContext } from './object-context.js';

/** Namespaces that exist from the start and may not be deleted. */
export const immortalNamespaces: readonly string[] = ['default', 'kube-system'];

export const namespaceStoreKey = storeKeyOf(namespaceType);

/** The `spec.finalizers` entry kube-apiserver gives every namespace; the namespace controller removes it once the namespace is empty. */
export const kubernetesFinalizer = 'kubernetes';

/** `status.phase` of a namespace being deleted. */
export const terminatingPhase = 'Terminating';

/** A namespace's `spec.finalizers` (kube-apiserver's `FinalizerName`s, not `metadata.finalizers`). */
export function specFinalizersOf(ns: KubeObject): readonly string[] {
  const finalizers = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === 'string') : [];
}

function isTerminating(ns: KubeObject): boolean {
  return ns.metadata.deletionTimestamp !== undefined || (ns.status as { phase?: unknown } | undefined)?.phase === terminatingPhase;
}

/** The NamespaceLifecycle admission check: a namespaced create needs its namespace, and not a terminating one (403, as kube-apiserver). */
export function checkNamespaceAcceptsCreate(ctx: ObjectContext, type: ResourceType, namespace: string, name: string): void {
  if (!namespace) throw badRequest('the server could not find the requested resource: a namespace is required');
  const ns = ctx.store.get(namespaceStoreKey, namespace);
  if (!ns) throw notFound(namespaceType, namespace);
  if (isTerminating(ns.object)) {
    const refused = forbidden(type, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    const cause: StatusCause = { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' };
    const details = refused.status.details;
    if (details) details.causes = [cause];
    throw refused;
  }
}

/** Whether any object is stored in the namespace (a lookup per namespaced type, no scan). */
export function namespaceHasObjects(ctx: ObjectContext, namespace: string): boolean {
  for (const type of ctx.registry.all()) {
    if (type.namespaced && ctx.store.keysInNamespace(storeKeyOf(type), namespace).size > 0) return true;
  }
  return false;
}

/**
 * Whether a namespace being deleted is removed by a write that leaves it as `ns` (kube-apiserver's
 * `ShouldDeleteNamespaceDuringUpdate`: no `spec.finalizers` and no `metadata.finalizers` left); here
 * also only once it holds no objects, so that no object outlives its namespace.
 */
export function namespaceMayGo(ctx: ObjectContext, ns: KubeObject): boolean {
  const meta = ns.metadata;
  return meta.deletionTimestamp !== undefined && !meta.finalizers?.length && specFinalizersOf(ns).length === 0 && !namespaceHasObjects(ctx, meta.name);
}
