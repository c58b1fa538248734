/**
 * `DeleteOptions.propagationPolicy` (and the deprecated `orphanDependents`): how a delete treats
 * the object's dependents, and the finalizers kube-apiserver turns that into. `Orphan` holds the
 * object with the `orphan` finalizer until the garbage collector has removed its uid from every
 * dependent; `Foreground` holds it with `foregroundDeletion` until its blocking dependents are
 * gone; `Background` (the default) removes it at once and lets the collector delete dependents after.
 */
import { queryBool } from './query-bool.js';
import { invalid, invalidValue, unsupportedValue } from './status-error.js';

/** A delete's propagation policy. */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** The finalizer of an `Orphan` delete. */
export const orphanFinalizer = 'orphan';
/** The finalizer of a `Foreground` delete. */
export const foregroundFinalizer = 'foregroundDeletion';

const policies: readonly string[] = ['Foreground', 'Background', 'Orphan'];
const deleteOptionsKind = { group: 'meta.k8s.io', kind: 'DeleteOptions' };

/**
 * The explicit policy of a delete, from its body (which wins, as in kube-apiserver) or its query.
 * Undefined when none was given: the object's own `orphan`/`foregroundDeletion` finalizers decide.
 * Throws 422 for an unknown policy or for both fields set.
 */
export function propagationPolicyOf(body: { propagationPolicy?: unknown; orphanDependents?: unknown }, query: URLSearchParams): PropagationPolicy | undefined {
  const policy = body.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphan: unknown = body.orphanDependents ?? queryBool(query, 'orphanDependents');
  if (policy !== undefined && policy !== null && orphan !== undefined && orphan !== null) {
    throw invalid(deleteOptionsKind, '', [invalidValue('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set')]);
  }
  if (policy !== undefined && policy !== null) {
    if (typeof policy !== 'string' || !policies.includes(policy)) {
      throw invalid(deleteOptionsKind, '', [unsupportedValue('propagationPolicy', policy, [...policies, 'nil'])]);
    }
    return policy as PropagationPolicy;
  }
  if (orphan === true) return 'Orphan';
  if (orphan === false) return 'Background';
  return undefined;
}

/**
 * The finalizers an object has after a delete with `policy` (kube-apiserver's
 * `deletionFinalizersForGarbageCollection`): both GC finalizers removed, then the policy's added.
 * Returns the input array itself when the set does not change.
 */
export function finalizersAfterDelete(finalizers: readonly string[], policy: PropagationPolicy | undefined): readonly string[] {
  if (policy === undefined) return finalizers;
  const next = finalizers.filter((f) => f !== orphanFinalizer && f !== foregroundFinalizer);
  if (policy === 'Orphan') next.push(orphanFinalizer);
  if (policy === 'Foreground') next.push(foregroundFinalizer);
  const before = new Set(finalizers);
  if (before.size === new Set(next).size && next.every((f) => before.has(f))) return finalizers;
  return next;
}
