import { parseApiVersion } from '@kubeloop/resource';
import type { KubeObject, Schema } from '@kubeloop/resource';
import type { Predicate } from '../../controller/predicates.js';
import type { Informer } from '../../informer/informer.js';
import type { Request } from './request.js';

/** Maps an object seen by a secondary informer to the requests to reconcile (controller-runtime `handler.MapFunc`). */
export type MapFunc = (object: KubeObject) => readonly Request[];

/**
 * A secondary source of requests (controller-runtime `Watches(source, handler)`): every add, update
 * and delete of `informer` enqueues the requests `map` returns (for an update, those of the old and
 * of the new object). The controller runs the informer.
 */
export interface WatchSource {
  informer: Informer;
  map: MapFunc;
  /** Events of `informer` that reach `map` only when every predicate accepts them (controller-runtime `WithPredicates`). Default: none. */
  predicates?: readonly Predicate[] | undefined;
}

/** Options of {@link enqueueRequestForOwner}. */
export interface EnqueueRequestForOwnerOptions {
  /** Only follow the owner reference marked `controller: true` (controller-runtime `OnlyControllerOwner`). Default: false. */
  onlyController?: boolean | undefined;
}

/**
 * A {@link MapFunc} that maps an object to its owners of kind `owner` (controller-runtime
 * `handler.EnqueueRequestForOwner`; the builder's `Owns`). The owner is in the object's namespace,
 * or at cluster level when `owner` is cluster-scoped.
 */
export function enqueueRequestForOwner(owner: Pick<Schema, 'group' | 'kind' | 'scope'>, options: EnqueueRequestForOwnerOptions = {}): MapFunc {
  const onlyController = options.onlyController ?? false;
  return (object) => {
    const refs = object.metadata.ownerReferences;
    if (refs === undefined || refs.length === 0) return [];
    const namespace = owner.scope === 'Cluster' ? '' : (object.metadata.namespace ?? '');
    const requests: Request[] = [];
    for (const ref of refs) {
      if (ref.kind !== owner.kind || parseApiVersion(ref.apiVersion).group !== owner.group) continue;
      if (onlyController && ref.controller !== true) continue;
      requests.push({ namespace, name: ref.name });
    }
    return requests;
  };
}
