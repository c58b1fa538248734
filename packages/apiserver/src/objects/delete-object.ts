/** Deletes: one object (preconditions, finalizers, graceful start), a collection, and the start of a namespace's deletion. */
import type { StoredObject } from '../storage/change-event.js';
import { jsonAtApiVersion } from '../storage/change-event.js';
import { namespaceType } from '../types/builtin-resources.js';
import { cloneJson } from '../json-value.js';
import { finalizersAfterDelete } from '../http/delete-options.js';
import type { PropagationPolicy } from '../http/delete-options.js';
import type { ListOptions } from '../http/list-options.js';
import { canonicalObject } from './object-meta.js';
import { parseResourceVersionText } from '../storage/resource-version.js';
import { apiVersionOf, storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { conflict, forbidden } from '../http/status-error.js';
import { timestampText } from '../timestamp-text.js';
import { immortalNamespaces, namespaceHasObjects, specFinalizersOf, terminatingPhase } from './namespace-contents.js';
import type { CollectionTarget, GracePeriod, ObjectContext, ObjectTarget } from './object-context.js';
import { getObject } from './read-objects.js';
import { removeObject } from './remove-object.js';
import { dryRunStored } from './write-options.js';

/** The outcome of a delete. */
export interface DeleteResult {
  /** The object: its last state when deleted, the deleting state when finalizers hold it. */
  readonly stored: StoredObject;
  /** True when the object is gone (no finalizers held it). */
  readonly deleted: boolean;
}

/** `DeleteOptions` as sent in a delete body or query. */
export interface DeleteRequest {
  readonly preconditions?: { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined } | undefined;
  readonly dryRun: boolean;
  /** How dependents are treated; undefined: as the object's `orphan`/`foregroundDeletion` finalizers say, else Background. */
  readonly propagationPolicy?: PropagationPolicy | undefined;
  /** `gracePeriodSeconds`; undefined: the object's own (a Pod's `terminationGracePeriodSeconds`). Only graceful deletion reads it. */
  readonly gracePeriodSeconds?: number | undefined;
}

/** DELETE of one object. */
export function deleteObject(ctx: ObjectContext, target: ObjectTarget, request: DeleteRequest): Promise<DeleteResult> {
  const { type, namespace, name } = target;
  return ctx.store.exclusive(async () => {
    const existing = getObject(ctx, type, namespace, name);
    const meta = existing.object.metadata;
    const pre = request.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) {
      throw conflict(type, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
    }
    if (pre?.resourceVersion) parseResourceVersionText('preconditions.resourceVersion', pre.resourceVersion);
    if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(type, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
    }
    if (type === namespaceType && immortalNamespaces.includes(name)) throw forbidden(type, name, 'this namespace may not be deleted');
    return deleteOne(ctx, type, existing, request);
  });
}

/**
 * Deletes one object (rule 5, 7 and 8): finalizers (with those its propagation policy adds) hold it,
 * marked as being deleted; without them it is removed. A namespace is first only marked
 * (`namespace-deleter.ts` empties and removes it in the background).
 */
export async function deleteOne(ctx: ObjectContext, type: ResourceType, existing: StoredObject, request: Omit<DeleteRequest, 'preconditions'>): Promise<DeleteResult> {
  const { dryRun, propagationPolicy: policy } = request;
  const meta = existing.object.metadata;
  const isNamespace = type === namespaceType;
  const current = meta.finalizers ?? [];
  const finalizers = finalizersAfterDelete(current, policy);
  if (isNamespace && !meta.deletionTimestamp) return startNamespaceDeletion(ctx, existing, finalizers, dryRun);
  // kube-apiserver answers a DELETE of a namespace still being emptied with the namespace, unchanged.
  if (isNamespace && specFinalizersOf(existing.object).length > 0) return { stored: existing, deleted: false };
  const grace = ctx.gracefulDeletion?.(type, existing.object, request.gracePeriodSeconds);
  if (grace) return deleteGracefully(ctx, type, existing, { finalizers, grace, dryRun });
  if (finalizers.length > 0 || (isNamespace && namespaceHasObjects(ctx, meta.name))) {
    if (meta.deletionTimestamp && finalizers === current) return { stored: existing, deleted: false };
    const next = cloneJson(existing.object);
    next.metadata.finalizers = [...finalizers];
    if (!meta.deletionTimestamp) {
      next.metadata.deletionTimestamp = timestampText();
      next.metadata.deletionGracePeriodSeconds = 0;
      if (type.hasGeneration) next.metadata.generation = (meta.generation ?? 0) + 1;
    }
    const deleting = canonicalObject(next, []);
    if (dryRun) return { stored: dryRunStored(deleting, existing.key), deleted: false };
    return { stored: await ctx.store.put(storeKeyOf(type), existing.key, deleting), deleted: false };
  }
  if (dryRun) return { stored: existing, deleted: true };
  const removed = await removeObject(ctx, type, existing.key);
  return { stored: removed ?? existing, deleted: true };
}

/**
 * The first DELETE of a namespace, as kube-apiserver's namespace storage does it: `deletionTimestamp`
 * (no grace period), phase `Terminating`, the policy's finalizers; answered at once. Its contents
 * go in the background (`namespace-deleter.ts`), which removes the namespace at the end.
 */
async function startNamespaceDeletion(ctx: ObjectContext, existing: StoredObject, finalizers: readonly string[], dryRun: boolean): Promise<DeleteResult> {
  const next = cloneJson(existing.object);
  if (finalizers.length > 0) next.metadata.finalizers = [...finalizers];
  else delete next.metadata.finalizers;
  next.metadata.deletionTimestamp = timestampText();
  next.status = { ...(next.status as Record<string, unknown> | undefined), phase: terminatingPhase };
  const terminating = canonicalObject(next, []);
  if (dryRun) return { stored: dryRunStored(terminating, existing.key), deleted: false };
  return { stored: await ctx.store.put(storeKeyOf(namespaceType), existing.key, terminating), deleted: false };
}

/**
 * Starts (or shortens) a graceful deletion: the object is marked with `deletionTimestamp` at the
 * end of its grace period and stays; the component that owns it (the simulated kubelet) removes it
 * then, by a delete with a zero grace period. A longer grace than the one running changes nothing.
 */
async function deleteGracefully(
  ctx: ObjectContext,
  type: ResourceType,
  existing: StoredObject,
  change: { finalizers: readonly string[]; grace: GracePeriod; dryRun: boolean },
): Promise<DeleteResult> {
  const meta = existing.object.metadata;
  const current = meta.finalizers ?? [];
  const shorter = !meta.deletionTimestamp || change.grace.seconds < (meta.deletionGracePeriodSeconds ?? Number.POSITIVE_INFINITY);
  if (!shorter && change.finalizers === current) return { stored: existing, deleted: false };
  const next = cloneJson(existing.object);
  if (change.finalizers !== current) next.metadata.finalizers = [...change.finalizers];
  if (shorter) {
    if (!meta.deletionTimestamp && type.hasGeneration) next.metadata.generation = (meta.generation ?? 0) + 1;
    next.metadata.deletionTimestamp = change.grace.deletionTimestamp;
    next.metadata.deletionGracePeriodSeconds = change.grace.seconds;
  }
  const deleting = canonicalObject(next, []);
  if (change.dryRun) return { stored: dryRunStored(deleting, existing.key), deleted: false };
  return { stored: await ctx.store.put(storeKeyOf(type), existing.key, deleting), deleted: false };
}

/** DELETE of a collection: every selected object, as individual deletes. Returns the list body. */
export function deleteCollection(ctx: ObjectContext, target: CollectionTarget, opts: ListOptions, request: DeleteRequest): Promise<string> {
  const { type, version, namespace } = target;
  return ctx.store.exclusive(async () => {
    const storeKey = storeKeyOf(type);
    const targets = [...ctx.store.values(storeKey)].filter((s) => {
      const obj = s.object;
      if (namespace !== undefined && obj.metadata.namespace !== namespace) return false;
      if (opts.labelSelector && !opts.labelSelector.matches(obj.metadata.labels)) return false;
      if (opts.fieldSelector && !opts.fieldSelector.matchesObject(obj)) return false;
      if (opts.shardSelector && !opts.shardSelector.matches(obj)) return false;
      return !(type === namespaceType && immortalNamespaces.includes(obj.metadata.name));
    });
    const apiVersion = apiVersionOf(type, version);
    const items: string[] = [];
    for (const target of targets) {
      const current = ctx.store.get(storeKey, target.key);
      if (!current) continue;
      const result = await deleteOne(ctx, type, current, request);
      items.push(jsonAtApiVersion(result.stored, apiVersion));
    }
    const rv = String(ctx.store.resourceVersion);
    return `{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${rv}"},"items":[${items.join(',')}]}`;
  });
}
