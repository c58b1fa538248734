/** Updates (PUT of the main resource, `/status` or a namespace's `/finalize`): concurrency, generation and finalizer rules. */
import type { KubeObject } from '@kubeloop/resource';
import type { StoredObject } from '../storage/change-event.js';
import { namespaceType } from '../types/builtin-resources.js';
import { crdType } from '../types/crd-resource.js';
import { cloneJson, jsonEqual } from '../json-value.js';
import { canonicalObject, newFinalizersWhileDeleting, validateObjectMeta } from './object-meta.js';
import { parseResourceVersionText } from '../storage/resource-version.js';
import { storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { conflict, invalid, staleConflict } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';
import { registerCrd } from './crd-types.js';
import { keepManagedFields, recordUpdate } from './field-manager.js';
import { decode, prepareBody } from './incoming-object.js';
import type { DecodedObject } from './incoming-object.js';
import { namespaceMayGo } from './namespace-contents.js';
import type { CollectionTarget, ObjectContext, ObjectTarget } from './object-context.js';
import { getObject } from './read-objects.js';
import { removeObject } from './remove-object.js';
import { dryRunStored } from './write-options.js';
import { betweenWriteSteps } from './write-steps.js';
import type { InternalWrite, WriteOptions, WriteResult, WriteSubresource } from './write-options.js';

/** True when anything but metadata (and status, with the subresource) differs: the generation rule. */
function specChanged(type: ResourceType, a: KubeObject, b: KubeObject): boolean {
  const skip = (key: string): boolean => key === 'metadata' || key === 'apiVersion' || key === 'kind' || (type.statusSubresource && key === 'status');
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!skip(key) && !jsonEqual(a[key], b[key])) return true;
  }
  return false;
}

/** True when `a` and `b` are equal but for the `time` of their managedFields entries (in any order). */
function onlyManagedFieldTimesDiffer(a: KubeObject, b: KubeObject): boolean {
  const entriesA = a.metadata.managedFields;
  const entriesB = b.metadata.managedFields;
  if (!Array.isArray(entriesA) || !Array.isArray(entriesB) || entriesA.length !== entriesB.length) return false;
  const withoutTimes = (entries: readonly unknown[]): string[] => entries.map((e) => JSON.stringify({ ...(e as Record<string, unknown>), time: undefined })).sort();
  const withoutEntries = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } });
  // The rest of the object first: a write that changed anything stops at its first difference,
  // before the entries (field sets as large as the object) are serialized.
  return jsonEqual(withoutEntries(a), withoutEntries(b)) && jsonEqual(withoutTimes(entriesA), withoutTimes(entriesB));
}

/** PUT (main resource, `/status` or `/finalize`). */
export function updateObject(ctx: ObjectContext, target: ObjectTarget, body: unknown, opts: WriteOptions & { readonly subresource: WriteSubresource }): Promise<WriteResult> {
  return ctx.store.exclusive(async () => {
    const existing = getObject(ctx, target.type, target.namespace, target.name);
    const obj = prepareBody(target, body);
    keepManagedFields(obj, existing.object);
    const decoded = decode(target, obj, opts);
    if (opts.stepwise) await betweenWriteSteps();
    return updateDecoded(ctx, target, existing, decoded, { ...opts, requireResourceVersion: true });
  });
}

/** Optimistic concurrency: a resourceVersion or uid the request carries must be the stored one's. */
function checkPreconditions(type: ResourceType, old: KubeObject, input: KubeObject, requireResourceVersion: boolean): void {
  const name = old.metadata.name;
  const rv = input.metadata.resourceVersion;
  if (!rv) {
    if (requireResourceVersion && !type.allowUnconditionalUpdate) {
      throw invalid(type, name, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }]);
    }
  } else {
    parseResourceVersionText('metadata.resourceVersion', rv);
    if (rv !== old.metadata.resourceVersion) throw staleConflict(type, name);
  }
  if (input.metadata.uid && input.metadata.uid !== old.metadata.uid) {
    throw conflict(type, name, `Precondition failed: UID in precondition: ${input.metadata.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
  }
}

/** The object a write of `subresource` asks for: only status, only `spec.finalizers`, or all but what the system owns. */
function requestedObject(type: ResourceType, old: KubeObject, input: KubeObject, subresource: WriteSubresource): KubeObject {
  if (subresource === 'status') {
    const next = cloneJson(old);
    if (input.status === undefined) delete next.status;
    else next.status = input.status;
    return next;
  }
  // A binding is made by `bind-pod.ts` from the stored object: it changes `spec.nodeName` and the PodScheduled condition.
  if (subresource === 'binding') return input;
  if (subresource === 'finalize') {
    const next = cloneJson(old);
    const finalizers = (input.spec as { finalizers?: unknown } | undefined)?.finalizers;
    next.spec = { ...(old.spec as Record<string, unknown> | undefined), finalizers: Array.isArray(finalizers) ? finalizers : [] };
    return next;
  }
  const next = input;
  const meta = next.metadata;
  const oldMeta = old.metadata;
  meta.name = oldMeta.name;
  if (oldMeta.namespace) meta.namespace = oldMeta.namespace;
  else delete meta.namespace;
  meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  if (type.statusSubresource) {
    if (old.status === undefined) delete next.status;
    else next.status = old.status;
  }
  type.prepareUpdate?.(next, old);
  return next;
}

/** Updates `existing` to a decoded object (a PUT's, a patch's result, a new scale). */
export async function updateDecoded(ctx: ObjectContext, target: CollectionTarget, existing: StoredObject, decoded: DecodedObject, opts: InternalWrite): Promise<WriteResult> {
  const { type, version } = target;
  const { warnings } = decoded;
  const old = existing.object;
  const name = old.metadata.name;
  checkPreconditions(type, old, decoded.obj, opts.requireResourceVersion ?? false);
  let next = requestedObject(type, old, decoded.obj, opts.subresource);
  next.apiVersion = old.apiVersion;
  if (opts.stepwise) await betweenWriteSteps();

  const problems: FieldProblem[] = validateObjectMeta(next.metadata, type.nameRule, false);
  const finalizerProblem = newFinalizersWhileDeleting(old.metadata, next.metadata);
  if (finalizerProblem) problems.push(finalizerProblem);
  // As kube-apiserver's binding storage, a binding skips the pod update rules (which forbid a new nodeName).
  if (problems.length === 0 && opts.subresource !== 'binding') problems.push(...(type.validate?.(next, old, version) ?? []));
  if (problems.length > 0) throw invalid(type, name, problems);
  if (opts.stepwise) await betweenWriteSteps();

  if (type.hasGeneration && opts.subresource === undefined && specChanged(type, old, next)) {
    next.metadata.generation = (old.metadata.generation ?? 0) + 1;
  }
  next.metadata.resourceVersion = old.metadata.resourceVersion;
  // A request that sent `managedFields: []` resets them (they were kept from `old` when left out).
  const reset = next.metadata.managedFields === undefined && old.metadata.managedFields !== undefined;
  if (!opts.applied && !reset) await recordUpdate(ctx, target, existing, next, opts);
  next = canonicalObject(next, []);
  // Rule 1: a write that changes nothing is a no-op, and so is one that only moved the times of the
  // managedFields entries it rewrote (kube-apiserver's IgnoreManagedFieldsTimestampsTransformer, 1.18+):
  // the stored object stays as it is, with its resourceVersion and its times; nothing is written or sent.
  if (jsonEqual(old, next) || onlyManagedFieldTimesDiffer(old, next)) return { stored: existing, created: false, warnings };

  // Rule 5: the write that removes the last finalizer of an object being deleted deletes it.
  if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length && (type !== namespaceType || namespaceMayGo(ctx, next))) {
    if (opts.dryRun) return { stored: dryRunStored(next, existing.key), created: false, warnings };
    const removed = await removeObject(ctx, type, existing.key);
    return { stored: removed ?? existing, created: false, warnings };
  }
  if (opts.dryRun) return { stored: dryRunStored(next, existing.key), created: false, warnings };
  if (opts.stepwise) await betweenWriteSteps();
  const stored = await ctx.store.put(storeKeyOf(type), existing.key, next);
  if (type === crdType) registerCrd(ctx, stored.object, old);
  return { stored, created: false, warnings };
}
