/** Patches (PATCH of the main resource or `/status`) by media type: JSON, merge, strategic merge, server-side apply. */
import type { KubeObject } from '@kubeloop/resource';
import { checkDeclaredFields, parseApplyBody } from '../apply-configuration.js';
import { acceptedPatchTypes, patchMediaTypes } from '../patch-media-types.js';
import { ApplyConflictError, applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch, isPatchError } from '../patch/index.js';
import { parseJsonRequest } from '../request-body.js';
import { parseResourceVersionText } from '../resource-version.js';
import { apiVersionOf, storeKeyOf } from '../resource-type.js';
import type { ResourceType } from '../resource-type.js';
import { StatusError, applyConflict, badRequest, forbiddenValue, invalid, notFound, requiredValue, staleConflict, unsupportedMediaType } from '../status-error.js';
import { createDecoded } from './create-object.js';
import { keepManagedFields } from './field-manager.js';
import { decode, prepareBody } from './incoming-object.js';
import { objectKeyOf } from './object-context.js';
import type { ObjectContext } from './object-context.js';
import { updateDecoded } from './update-object.js';
import type { WriteOptions, WriteResult } from './write-options.js';

/** PATCH (main resource or `/status`), by media type; apply creates a missing object. */
export function patchObject(
  ctx: ObjectContext,
  type: ResourceType,
  version: string,
  namespace: string | undefined,
  name: string,
  body: string,
  mediaType: string,
  opts: WriteOptions & { readonly subresource: 'status' | undefined; readonly force?: boolean | undefined },
): Promise<WriteResult> {
  const format = patchMediaTypes[mediaType];
  if (format === undefined || (format === 'strategic' && type.custom)) throw unsupportedMediaType(acceptedPatchTypes(type));
  if (format === 'apply' && !opts.fieldManager) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [requiredValue('fieldManager', 'is required for apply patch')]);
  }
  if (format !== 'apply' && opts.force !== undefined) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [forbiddenValue('force', 'may not be specified for non-apply patch')]);
  }
  const applyOptions = { force: opts.force ?? false, subresource: opts.subresource };
  let patch: unknown;
  let duplicateFields: readonly string[] = [];
  if (format === 'apply') {
    // YAML (JSON is YAML too) refuses repeated keys itself, with the real server's words.
    patch = parseApplyBody(body);
    checkDeclaredFields(type, version, patch, namespace, name);
  } else {
    // Merge patches mirror the object, so their repeated keys are reported; a JSON patch is a list of operations.
    const findDuplicates = opts.fieldValidation !== 'Ignore' && (format === 'merge' || format === 'strategic');
    const decoded = parseJsonRequest(body, findDuplicates, (problem) => badRequest(`error decoding patch: ${problem}`));
    patch = decoded.value;
    duplicateFields = decoded.duplicateFields;
  }
  return ctx.store.exclusive(async () => {
    const storeKey = storeKeyOf(type);
    const existing = ctx.store.get(storeKey, objectKeyOf(namespace, name));
    const apiVersion = apiVersionOf(type, version);
    if (!existing) {
      if (format !== 'apply' || opts.subresource) throw notFound(type, name);
      const applied = runPatch(() => applyServerSideApply(undefined, patch as Record<string, unknown>, opts.fieldManager ?? '', applyOptions));
      const obj = prepareBody(type, version, applied, namespace, name);
      const decoded = decode(type, version, obj, opts.fieldValidation, duplicateFields);
      return createDecoded(ctx, type, version, decoded.obj, { ...opts, applied: true }, decoded.warnings);
    }
    // Every patch engine works on a copy of its input: a shallow one with the requested apiVersion is enough here.
    const current: Record<string, unknown> = { ...existing.object, apiVersion };
    let patched: Record<string, unknown>;
    if (format === 'apply') {
      const applied = patch as KubeObject;
      if (typeof applied === 'object' && applied !== null) {
        if (applied.metadata?.name !== undefined && applied.metadata.name !== name) {
          throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
        }
        if (applied.apiVersion !== undefined && applied.apiVersion !== apiVersion) {
          throw badRequest(`the API version in the data (${String(applied.apiVersion)}) does not match the expected API version (${apiVersion})`);
        }
      }
      patched = runPatch(() => applyServerSideApply(current, patch as Record<string, unknown>, opts.fieldManager ?? '', applyOptions));
    } else if (format === 'json') patched = runPatch(() => applyJsonPatch(current, patch));
    else if (format === 'merge') patched = runPatch(() => applyMergePatch(current, patch));
    else patched = runPatch(() => applyStrategicMergePatch(current, patch));

    const obj = prepareBody(type, version, patched, namespace, name);
    const rv = obj.metadata.resourceVersion;
    if (rv) parseResourceVersionText('metadata.resourceVersion', rv);
    if (rv && rv !== existing.object.metadata.resourceVersion) throw staleConflict(type, name);
    keepManagedFields(obj, existing.object);
    const decoded = decode(type, version, obj, opts.fieldValidation, duplicateFields);
    return updateDecoded(ctx, type, version, existing, decoded.obj, { ...opts, applied: format === 'apply' }, false, decoded.warnings);
  });
}

function runPatch(fn: () => Record<string, unknown>): Record<string, unknown> {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ApplyConflictError) throw applyConflict(err);
    if (isPatchError(err)) {
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, reason: err.reason, code: err.status });
    }
    throw err;
  }
}
