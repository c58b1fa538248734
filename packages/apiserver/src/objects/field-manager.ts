/** managedFields on the write path: who made an Update, and what a write that leaves them out keeps. */
import type { KubeObject } from '@kubeloop/resource';
import { managedFieldsAfterUpdate, managerFromUserAgent, strategyFor } from '../patch/index.js';
import { apiVersionOf } from '../types/resource-type.js';
import type { CollectionTarget } from './object-context.js';
import type { InternalWrite } from './write-options.js';

/**
 * A write that leaves `managedFields` out keeps the stored ones; one that sends an empty list
 * clears them (as kube-apiserver's field manager does). Runs before the body is normalised, which
 * drops empty lists and so could no longer tell the two apart.
 */
export function keepManagedFields(input: KubeObject, old: KubeObject): void {
  const sent = input.metadata.managedFields as unknown;
  if ((sent === undefined || sent === null) && old.metadata.managedFields !== undefined) input.metadata.managedFields = old.metadata.managedFields;
}

/** Sets `obj`'s managedFields after an Update by the request's manager (none known: left as they are). */
export function recordUpdate(target: CollectionTarget, old: KubeObject | undefined, obj: KubeObject, opts: InternalWrite): void {
  const manager = opts.fieldManager ?? (opts.userAgent !== undefined ? managerFromUserAgent(opts.userAgent) : undefined);
  if (manager === undefined) return;
  const apiVersion = apiVersionOf(target.type, target.version);
  const entries = managedFieldsAfterUpdate(old, obj, {
    manager,
    apiVersion,
    subresource: opts.subresource,
    now: new Date(),
    strategy: strategyFor(obj.apiVersion, obj.kind),
  });
  if (entries) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}
