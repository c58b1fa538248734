/** Creates (POST, and an apply of a missing object): a new uid, name and timestamps, then the type's rules. */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@kubeloop/resource';
import { crdType } from '../types/crd-resource.js';
import { generatedName } from './name-validation.js';
import { canonicalObject, validateObjectMeta } from './object-meta.js';
import type { ObjectStore } from '../storage/object-store.js';
import { apiVersionOf, storeKeyOf } from '../types/resource-type.js';
import type { ResourceType } from '../types/resource-type.js';
import { alreadyExists, badRequest, invalid } from '../http/status-error.js';
import { timestampText } from '../timestamp-text.js';
import { registerCrd } from './crd-types.js';
import { recordUpdate } from './field-manager.js';
import { decode, prepareBody } from './incoming-object.js';
import type { DecodedObject } from './incoming-object.js';
import { checkNamespaceAcceptsCreate } from './namespace-contents.js';
import { objectKeyOf } from './object-context.js';
import type { CollectionTarget, ObjectContext } from './object-context.js';
import { dryRunStored } from './write-options.js';
import type { WriteOptions, WriteResult } from './write-options.js';
import { betweenWriteSteps } from './write-steps.js';

/** POST: creates an object. */
export function createObject(ctx: ObjectContext, target: CollectionTarget, body: unknown, opts: WriteOptions): Promise<WriteResult> {
  return ctx.store.exclusive(async () => {
    const obj = prepareBody(target, body);
    if (obj.metadata.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    const decoded = decode(target, obj, opts);
    if (opts.stepwise) await betweenWriteSteps();
    return createDecoded(ctx, target, decoded, opts);
  });
}

/** Creates a decoded object (a POST's, or a server-side apply's of a missing object). */
export async function createDecoded(ctx: ObjectContext, target: CollectionTarget, decoded: DecodedObject, opts: WriteOptions & { readonly applied?: boolean }): Promise<WriteResult> {
  const { type, version } = target;
  const { warnings } = decoded;
  let obj = decoded.obj;
  const meta = obj.metadata;
  if (type.namespaced) checkNamespaceAcceptsCreate(ctx, type, meta.namespace ?? '', meta.name || meta.generateName || '');
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  meta.uid = randomUUID();
  meta.creationTimestamp = timestampText();
  if (type.hasGeneration) meta.generation = 1;
  else delete meta.generation;
  if (type.statusSubresource) delete obj.status;
  obj.apiVersion = apiVersionOf(type, type.storageVersion);
  type.prepareCreate?.(obj);
  if (opts.stepwise) await betweenWriteSteps();

  const problems = validateObjectMeta(meta, type.nameRule, true);
  if (problems.length === 0) problems.push(...(type.validate?.(obj, undefined, version) ?? []));
  if (problems.length > 0) throw invalid(type, meta.name || meta.generateName || '', problems);
  if (opts.stepwise) await betweenWriteSteps();
  if (!opts.applied) await recordUpdate(ctx, target, undefined, obj, { ...opts, subresource: undefined });

  const storeKey = storeKeyOf(type);
  const key = freeKeyFor(ctx.store, type, obj);
  // A placeholder keeps resourceVersion at its canonical place; the store sets the value.
  meta.resourceVersion = '0';
  obj = canonicalObject(obj, []);
  if (opts.dryRun) return { stored: dryRunStored(obj, key), created: true, warnings };
  if (opts.stepwise) await betweenWriteSteps();
  const stored = await ctx.store.put(storeKey, key, obj);
  if (type === crdType) registerCrd(ctx, stored.object, undefined);
  return { stored, created: true, warnings };
}

/** The store key of a new object, naming it from `generateName` when it has no name; 409 when the name is taken. */
function freeKeyFor(store: ObjectStore, type: ResourceType, obj: KubeObject): string {
  const meta = obj.metadata;
  const storeKey = storeKeyOf(type);
  let key: string;
  if (!meta.name) {
    // generateName: retry on the (unlikely) collision, as the real server's clients would.
    let attempts = 0;
    do {
      meta.name = generatedName(meta.generateName ?? '');
      key = objectKeyOf(meta.namespace, meta.name);
    } while (store.get(storeKey, key) && ++attempts < 8);
  } else key = objectKeyOf(meta.namespace, meta.name);
  if (store.get(storeKey, key)) throw alreadyExists(type, meta.name);
  return key;
}
