/**
 * The standard reconcilers' status write-back (operator-sdk-extra's deferred `Status().Update`): the
 * status is copied once the finalizer is in place, and when the reconcile ends (with a result or an
 * error) a changed status is written to the status subresource. So conditions that `onError` or
 * `onSuccess` set on the object are saved.
 *
 * Guarantees: written only when it changed (deep comparison), through a JSON patch guarded by a
 * `test` of `metadata.resourceVersion` (upstream's Update is guarded the same way), so a status
 * computed from a stale object never overwrites a newer one. Caveats: as upstream, a failed write
 * is logged, never thrown (the reconcile's own outcome stands; a conflict means a newer version of
 * the object is on its way and will be reconciled); an object gone meanwhile (404) is not an error.
 */
import { isDeepStrictEqual } from 'node:util';
import { isNotFound } from '@kubeloop/resource';
import type { KubeObject, PatchOperation } from '@kubeloop/resource';
import { isAbortError } from '../../errors.js';
import type { HandlerContext } from '../../handlers/resource-watcher.js';
import type { StdContext } from './read-object.js';

/** A copy of the object's status, to compare with when the reconcile ends. */
export function snapshotStatus(object: KubeObject): unknown {
  return structuredClone(object.status);
}

/** Writes `object.status` to the status subresource when it differs from `before`; logs a failure. */
export async function writeBackStatus<T extends KubeObject>(std: StdContext<T>, ctx: HandlerContext, object: T, before: unknown): Promise<void> {
  const after = object.status;
  if (isDeepStrictEqual(before, after)) return;
  const { namespace, name, resourceVersion } = object.metadata;
  const operations: PatchOperation[] = [];
  if (resourceVersion) operations.push({ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion });
  operations.push(after === undefined ? { op: 'remove', path: '/status' } : { op: 'add', path: '/status', value: after });
  try {
    await std.client.patch({ namespace: namespace ?? '', name }, { operations }, { subresource: 'status', signal: ctx.signal });
    std.logger.debug('status updated', { object: `${namespace ?? ''}/${name}` });
  } catch (err) {
    if (isNotFound(err) || (ctx.signal.aborted && isAbortError(err, ctx.signal.reason))) return;
    std.logger.error('error when updating the status', { object: `${namespace ?? ''}/${name}`, error: err });
  }
}
