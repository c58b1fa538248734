/**
 * Secondary sources of an `InformerController`: informers of other kinds whose events ask for a
 * reconcile of a primary object (controller-runtime's builder `Owns()` / `Watches()`, kube-rs'
 * `Controller::owns` / `watches`). `owns` follows the child's controller owner reference, `watches` a
 * map function of the user's. What the controller does with the primary keys they give is in
 * `InformerController.owns`.
 */
import { controllerOf, identifierKey, parseApiVersion } from '@kubeloop/resource';
import type { Identifier, KubeObject, Schema } from '@kubeloop/resource';
import type { Predicate } from './predicates.js';
import type { ResourceKindKey } from './registration-key.js';

/**
 * The primary objects a secondary object stands for (controller-runtime `handler.MapFunc`, kube-rs'
 * `watches` mapper): `{ namespace, name }` of each, `''` namespace for a cluster-scoped primary.
 * Called for every event of the secondary informer that passed its predicates; for an update, with the
 * old and with the new object. It must be quick and must not throw (a throw is reported to the
 * controller's `errorHandler`, `source: 'controller'`, and the event maps to nothing).
 */
export type SecondaryMapFunc<S extends KubeObject = KubeObject> = (object: S) => Iterable<Identifier>;

/** Options of `InformerController.owns`. */
export interface OwnsOptions<S extends KubeObject = KubeObject> {
  /**
   * The registration key of the primary kind (the key of its `addInformer` and `addReconciler`: a
   * `Kind`, or the string used there). Its informers' caches are read and its reconcilers are called.
   * Required.
   */
  primary: ResourceKindKey;
  /**
   * Events of the secondary informer are mapped only when every predicate accepts them; the others
   * are counted in `controller_predicate_filtered_events_total{controller=<secondary key>}`. Default: none.
   */
  predicates?: readonly Predicate<S>[] | undefined;
}

/** Options of `InformerController.watches`: those of `owns`, and the map function. */
export interface WatchesOptions<S extends KubeObject = KubeObject> extends OwnsOptions<S> {
  /** The primaries an object of the secondary kind stands for. Required. */
  map: SecondaryMapFunc<S>;
}

/** How a secondary source finds primaries: from the object alone, or with the primary kind's schema too (owner references). */
export type PrimaryMapper = (object: KubeObject, primary: Pick<Schema, 'group' | 'kind' | 'scope'>) => Iterable<Identifier>;

/**
 * The primary that `object` is controlled by, when its controller owner reference (`controller: true`)
 * points at the kind of `primary`; other owner references are ignored, as controller-runtime's
 * `Owns()` (`OnlyControllerOwner`). The primary is in the object's namespace, or cluster-scoped when
 * its kind is.
 */
export function controllerOwnerOf(object: KubeObject, primary: Pick<Schema, 'group' | 'kind' | 'scope'>): Identifier[] {
  const ref = controllerOf(object);
  if (ref === undefined || ref.kind !== primary.kind || parseApiVersion(ref.apiVersion).group !== primary.group) return [];
  return [{ namespace: primary.scope === 'Cluster' ? '' : (object.metadata.namespace ?? ''), name: ref.name }];
}

/**
 * The distinct primaries of one secondary event, by store key (`namespace/name`): those of `object`
 * and, for an update, those of `old` (an owner reference or a label that moved away from a primary
 * asks for its reconcile too).
 */
export function primariesOf(mapper: PrimaryMapper, primary: Pick<Schema, 'group' | 'kind' | 'scope'>, object: KubeObject, old: KubeObject | undefined): Map<string, Identifier> {
  const found = new Map<string, Identifier>();
  const collect = (from: KubeObject): void => {
    for (const id of mapper(from, primary)) {
      if (id != null && typeof id.name === 'string' && id.name !== '') found.set(identifierKey({ namespace: id.namespace ?? '', name: id.name }), id);
    }
  };
  collect(object);
  if (old !== undefined && old !== object) collect(old);
  return found;
}

/** A secondary source as `run()` checks it: which method added it, its key and its primary's. */
export interface SecondaryRegistration {
  method: 'owns' | 'watches';
  secondary: string;
  primary: string;
}

/**
 * What cannot work among the secondary sources: a primary key no informer serves (nothing is in its
 * cache, so every event is skipped) or without a reconciler (nothing would be called). One message each.
 */
export function unmatchedSecondaries(sources: readonly SecondaryRegistration[], informerKeys: readonly string[], reconcilerKeys: readonly string[]): string[] {
  const informers = new Set(informerKeys);
  const reconcilers = new Set(reconcilerKeys);
  const messages: string[] = [];
  for (const { method, secondary, primary } of sources) {
    const what = `${method}(${JSON.stringify(secondary)}) for primary ${JSON.stringify(primary)}`;
    if (!informers.has(primary)) messages.push(`${what} reconciles nothing: no informer is registered under the primary key, so no primary is ever in a cache`);
    else if (!reconcilers.has(primary)) messages.push(`${what} reconciles nothing: the primary key has no reconciler`);
  }
  return messages;
}
