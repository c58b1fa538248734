/** Patches (PATCH of the main resource or `/status`) by media type: JSON, merge, strategic merge, server-side apply. */
import type { KubeObject } from '@kubeloop/resource';
import { checkDeclaredFields, parseApplyBody } from '../patch/apply-configuration.js';
import type { YamlParsed } from '../yaml/yaml-text.js';
import type { StoredObject } from '../storage/change-event.js';
import { acceptedPatchTypes, patchMediaTypes } from '../http/patch-media-types.js';
import type { PatchFormat } from '../http/patch-media-types.js';
import { ApplyConflictError, applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch, isPatchError } from '../patch/index.js';
import { parseJsonRequest } from '../http/request-body.js';
import { parseResourceVersionText } from '../storage/resource-version.js';
import { apiVersionOf, storeKeyOf } from '../types/resource-type.js';
import { StatusError, applyConflict, badRequest, forbiddenValue, invalid, notFound, requiredValue, staleConflict, unsupportedMediaType } from '../http/status-error.js';
import { createDecoded } from './create-object.js';
import { keepManagedFields } from './field-manager.js';
import { decode, prepareBody } from './incoming-object.js';
import { objectKeyOf } from './object-context.js';
import type { ObjectContext, ObjectTarget } from './object-context.js';
import { updateDecoded } from './update-object.js';
import type { WriteOptions, WriteResult } from './write-options.js';

/** A PATCH request's own options besides those of every write. */
export type PatchOptions = WriteOptions & {
  /** `/status` or the main resource. */
  readonly subresource: 'status' | undefined;
  /** The `force` parameter of an apply (takes fields over from other managers). Default: false; refused on other patches. */
  readonly force?: boolean | undefined;
  /** An apply body already parsed (off the event loop when large). Default: parsed here, from the text. */
  readonly parsedApplyBody?: YamlParsed | undefined;
};

/** A PATCH body, parsed as its media type says. */
interface ParsedPatch {
  readonly format: PatchFormat;
  readonly patch: unknown;
  /** Keys a merge patch repeated (reported per `fieldValidation`). */
  readonly duplicateFields: readonly string[];
}

/** Runs a patch engine, turning its typed errors into Status errors (an apply conflict into a 409 with its causes). */
export function runPatch<T>(fn: () => T): T {
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

/** Checks the media type and options of a PATCH and parses its body (before taking the store's lock). */
function parsePatch(target: ObjectTarget, body: string, mediaType: string, opts: PatchOptions): ParsedPatch {
  const { type, version, namespace, name } = target;
  const format = patchMediaTypes[mediaType];
  if (format === undefined || (format === 'strategic' && type.custom)) throw unsupportedMediaType(acceptedPatchTypes(type));
  if (format === 'apply' && !opts.fieldManager) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [requiredValue('fieldManager', 'is required for apply patch')]);
  }
  if (format !== 'apply' && opts.force !== undefined) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [forbiddenValue('force', 'may not be specified for non-apply patch')]);
  }
  if (format === 'apply') {
    // YAML (JSON is YAML too) refuses repeated keys itself, with the real server's words.
    const patch = parseApplyBody(body, opts.parsedApplyBody);
    checkDeclaredFields(type, version, patch, namespace, name);
    return { format, patch, duplicateFields: [] };
  }
  // Merge patches mirror the object, so their repeated keys are reported; a JSON patch is a list of operations.
  const findDuplicates = opts.fieldValidation !== 'Ignore' && (format === 'merge' || format === 'strategic');
  const decoded = parseJsonRequest(body, findDuplicates, (problem) => badRequest(`error decoding patch: ${problem}`));
  return { format, patch: decoded.value, duplicateFields: decoded.duplicateFields };
}

/** The stored object with the patch applied, at the request's apiVersion. */
function patchedObject(target: ObjectTarget, existing: StoredObject, parsed: ParsedPatch, opts: PatchOptions): Record<string, unknown> {
  const { name } = target;
  const { patch } = parsed;
  const apiVersion = apiVersionOf(target.type, target.version);
  // Every patch engine works on a copy of its input: a shallow one with the requested apiVersion is enough here.
  const current: Record<string, unknown> = { ...existing.object, apiVersion };
  switch (parsed.format) {
    case 'apply': {
      const applied = patch as KubeObject;
      if (typeof applied === 'object' && applied !== null) {
        if (applied.metadata?.name !== undefined && applied.metadata.name !== name) {
          throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
        }
        if (applied.apiVersion !== undefined && applied.apiVersion !== apiVersion) {
          throw badRequest(`the API version in the data (${String(applied.apiVersion)}) does not match the expected API version (${apiVersion})`);
        }
      }
      const applyOptions = { force: opts.force ?? false, subresource: opts.subresource };
      return runPatch(() => applyServerSideApply(current, patch as Record<string, unknown>, opts.fieldManager ?? '', applyOptions));
    }
    case 'json':
      return runPatch(() => applyJsonPatch(current, patch));
    case 'merge':
      return runPatch(() => applyMergePatch(current, patch));
    case 'strategic':
      return runPatch(() => applyStrategicMergePatch(current, patch));
  }
}

/** PATCH (main resource or `/status`), by media type; apply creates a missing object. */
export function patchObject(ctx: ObjectContext, target: ObjectTarget, body: string, mediaType: string, opts: PatchOptions): Promise<WriteResult> {
  const { type, name } = target;
  const parsed = parsePatch(target, body, mediaType, opts);
  const fields = { fieldValidation: opts.fieldValidation, duplicateFields: parsed.duplicateFields };
  return ctx.store.exclusive(async () => {
    const existing = ctx.store.get(storeKeyOf(type), objectKeyOf(target.namespace, name));
    if (!existing) {
      if (parsed.format !== 'apply' || opts.subresource) throw notFound(type, name);
      const applyOptions = { force: opts.force ?? false, subresource: opts.subresource };
      const applied = runPatch(() => applyServerSideApply(undefined, parsed.patch as Record<string, unknown>, opts.fieldManager ?? '', applyOptions));
      const obj = prepareBody(target, applied);
      return createDecoded(ctx, target, decode(target, obj, fields), { ...opts, applied: true });
    }
    const obj = prepareBody(target, patchedObject(target, existing, parsed, opts));
    const rv = obj.metadata.resourceVersion;
    if (rv) parseResourceVersionText('metadata.resourceVersion', rv);
    if (rv && rv !== existing.object.metadata.resourceVersion) throw staleConflict(type, name);
    keepManagedFields(obj, existing.object);
    return updateDecoded(ctx, target, existing, decode(target, obj, fields), { ...opts, applied: parsed.format === 'apply' });
  });
}
