/** Creates (POST, and an apply of a missing object): a new uid, name and timestamps, then the type's rules. */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@kubeloop/resource';
import { crdType } from '../crd-resource.js';
import { generatedName } from '../name-validation.js';
import { canonicalObject, validateObjectMeta } from '../object-meta.js';
import { apiVersionOf, storeKeyOf } from '../resource-type.js';
import type { ResourceType } from '../resource-type.js';
import { alreadyExists, badRequest, invalid } from '../status-error.js';
import { registerCrd } from './crd-types.js';
import { recordUpdate } from './field-manager.js';
import { decode, prepareBody } from './incoming-object.js';
import { checkNamespaceAcceptsCreate } from './namespace-contents.js';
import { nowTime, objectKeyOf } from './object-context.js';
import type { ObjectContext } from './object-context.js';
import { dryRunStored } from './write-options.js';
import type { WriteOptions, WriteResult } from './write-options.js';

/** POST: creates an object. */
export function createObject(ctx: ObjectContext, type: ResourceType, version: string, namespace: string | undefined, body: unknown, opts: WriteOptions): Promise<WriteResult> {
  return ctx.store.exclusive(async () => {
    const obj = prepareBody(type, version, body, namespace, undefined);
    if (obj.metadata.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    const decoded = decode(type, version, obj, opts.fieldValidation, opts.duplicateFields);
    return createDecoded(ctx, type, version, decoded.obj, opts, decoded.warnings);
  });
}

export async function createDecoded(ctx: ObjectContext, type: ResourceType, version: string, input: KubeObject, opts: WriteOptions & { readonly applied?: boolean }, warnings: string[]): Promise<WriteResult> {
  let obj = input;
  const meta = obj.metadata;
  if (type.namespaced) checkNamespaceAcceptsCreate(ctx, type, meta.namespace ?? '', meta.name || meta.generateName || '');
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  meta.uid = randomUUID();
  meta.creationTimestamp = nowTime();
  if (type.hasGeneration) meta.generation = 1;
  else delete meta.generation;
  if (type.statusSubresource) delete obj.status;
  obj.apiVersion = apiVersionOf(type, type.storageVersion);
  type.prepareCreate?.(obj);

  const problems = validateObjectMeta(meta, type.nameRule, true);
  if (problems.length === 0) problems.push(...(type.validate?.(obj, undefined, version) ?? []));
  if (problems.length > 0) throw invalid(type, meta.name || meta.generateName || '', problems);
  if (!opts.applied) recordUpdate(type, version, undefined, obj, opts, undefined);

  const storeKey = storeKeyOf(type);
  let key: string;
  if (!meta.name) {
    // generateName: retry on the (unlikely) collision, as the real server's clients would.
    let attempts = 0;
    do {
      meta.name = generatedName(meta.generateName ?? '');
      key = objectKeyOf(meta.namespace, meta.name);
    } while (ctx.store.get(storeKey, key) && ++attempts < 8);
  } else key = objectKeyOf(meta.namespace, meta.name);
  if (ctx.store.get(storeKey, key)) throw alreadyExists(type, meta.name);

  // A placeholder keeps resourceVersion at its canonical place; the store sets the value.
  meta.resourceVersion = '0';
  obj = canonicalObject(obj, []);
  if (opts.dryRun) return { stored: dryRunStored(obj, key), created: true, warnings };
  const stored = await ctx.store.put(storeKey, key, obj);
  if (type === crdType) registerCrd(ctx, stored.object, undefined);
  return { stored, created: true, warnings };
}
