/** managedFields on the write path: who made an Update, and what a write that leaves them out keeps. */
import type { KubeObject } from '@kubeloop/resource';
import { managedFieldsAfterUpdate, managerFromUserAgent, strategyFor } from '../patch/index.js';
import type { ManagedFieldsEntry } from '../patch/index.js';
import type { StoredObject } from '../storage/change-event.js';
import { apiVersionOf } from '../types/resource-type.js';
import { updateFieldsOf } from '../worker/off-loop-task.js';
import { betweenWriteSteps } from './write-steps.js';
import type { CollectionTarget, ObjectContext } from './object-context.js';
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

/**
 * Sets `obj`'s managedFields after an Update by the request's manager (none known: left as they are).
 * A stepwise (large) write computes them in the server's worker thread: `old` is given as the store
 * keeps it (with its JSON), and `obj` is serialized in a turn of its own.
 */
export async function recordUpdate(ctx: ObjectContext, target: CollectionTarget, old: StoredObject | undefined, obj: KubeObject, opts: InternalWrite): Promise<void> {
  const manager = opts.fieldManager ?? (opts.userAgent !== undefined ? managerFromUserAgent(opts.userAgent) : undefined);
  if (manager === undefined) return;
  const apiVersion = apiVersionOf(target.type, target.version);
  let entries: ManagedFieldsEntry[] | undefined;
  if (opts.stepwise && ctx.offLoop) {
    await betweenWriteSteps();
    const update = { oldJson: old?.json, nextJson: JSON.stringify(obj), manager, apiVersion, subresource: opts.subresource, now: new Date().toISOString() };
    entries = await updateFieldsOf((await ctx.offLoop.run({ kind: 'update-fields', update })).reply);
  } else {
    entries = managedFieldsAfterUpdate(old?.object, obj, { manager, apiVersion, subresource: opts.subresource, now: new Date(), strategy: strategyFor(obj.apiVersion, obj.kind) });
  }
  if (entries) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}
