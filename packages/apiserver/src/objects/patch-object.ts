/** Patches (PATCH of the main resource or `/status`) by media type: JSON, merge, strategic merge, server-side apply. */
import type { KubeObject } from '@kubeloop/resource';
import { checkDeclaredFields, parseApplyBody } from '../patch/apply-configuration.js';
import type { YamlParsed } from '../yaml/yaml-text.js';
import type { StoredObject } from '../storage/change-event.js';
import { acceptedPatchTypes, patchMediaTypes } from '../http/patch-media-types.js';
import type { PatchFormat } from '../http/patch-media-types.js';
import { ApplyConflictError, applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch, isPatchError } from '../patch/index.js';
import { patchTaskResult } from '../patch/patch-task.js';
import type { PatchTask } from '../patch/patch-task.js';
import { patchReplyOf } from '../worker/off-loop-task.js';
import { jsonRequestBody } from '../http/request-body.js';
import { parseJsonText } from '../http/json-text.js';
import type { JsonTextParsed } from '../http/json-text.js';
import { parseResourceVersionText } from '../storage/resource-version.js';
import { apiVersionOf, storeKeyOf } from '../types/resource-type.js';
import { cloneJson } from '../json-value.js';
import { StatusError, applyConflict, badRequest, forbiddenValue, invalid, notFound, requiredValue, staleConflict, unsupportedMediaType } from '../http/status-error.js';
import { createDecoded } from './create-object.js';
import { keepManagedFields } from './field-manager.js';
import { decode, prepareBody } from './incoming-object.js';
import { objectKeyOf } from './object-context.js';
import type { ObjectContext, ObjectTarget } from './object-context.js';
import { updateDecoded } from './update-object.js';
import { betweenWriteSteps } from './write-steps.js';
import { largeBodyChars } from './write-options.js';
import type { WriteOptions, WriteResult } from './write-options.js';

/** A PATCH request's own options besides those of every write. */
export type PatchOptions = WriteOptions & {
  /** `/status` or the main resource. */
  readonly subresource: 'status' | undefined;
  /** The `force` parameter of an apply (takes fields over from other managers). Default: false; refused on other patches. */
  readonly force?: boolean | undefined;
  /** An apply body already parsed (off the event loop when large). Default: parsed here, from the text. */
  readonly parsedApplyBody?: YamlParsed | undefined;
  /** Any other patch body already parsed as JSON, its repeated keys found (off the event loop when large). Default: parsed here, from the text. */
  readonly parsedJsonBody?: JsonTextParsed | undefined;
};

/** A PATCH body, parsed as its media type says. */
interface ParsedPatch {
  readonly format: PatchFormat;
  readonly patch: unknown;
  /** Keys a merge patch repeated (reported per `fieldValidation`). */
  readonly duplicateFields: readonly string[];
}

/** A patch engine's typed error as the Status error to answer (an apply conflict: a 409 with its causes); other errors as they are. */
function patchFailure(err: unknown): unknown {
  if (err instanceof ApplyConflictError) return applyConflict(err);
  if (isPatchError(err)) {
    return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, reason: err.reason, code: err.status });
  }
  return err;
}

/** Runs a patch engine, turning its typed errors into Status errors. */
export function runPatch<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw patchFailure(err);
  }
}

/** Checks the media type and options of a PATCH and parses its body (before taking the store's lock). */
function parsePatch(target: ObjectTarget, body: string, mediaType: string, opts: PatchOptions): ParsedPatch {
  const { type } = target;
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
    return { format, patch: parseApplyBody(body, opts.parsedApplyBody), duplicateFields: [] };
  }
  // Merge patches mirror the object, so their repeated keys are reported; a JSON patch is a list of operations.
  const findDuplicates = opts.fieldValidation !== 'Ignore' && (format === 'merge' || format === 'strategic');
  const decoded = jsonRequestBody(opts.parsedJsonBody ?? parseJsonText(body, findDuplicates), (problem) => badRequest(`error decoding patch: ${problem}`));
  return { format, patch: decoded.value, duplicateFields: findDuplicates ? decoded.duplicateFields : [] };
}

/** What a patch engine needs, as data for the worker thread. */
function patchTask(format: PatchTask['format'], existing: StoredObject | undefined, apiVersion: string, patch: unknown, opts: PatchOptions): PatchTask {
  return {
    format,
    existingJson: existing?.json,
    apiVersion,
    patchJson: JSON.stringify(patch),
    fieldManager: opts.fieldManager ?? '',
    force: opts.force ?? false,
    subresource: opts.subresource,
    now: new Date().toISOString(),
  };
}

/**
 * Runs the patch engine of the body's format on the stored object (undefined: an apply that creates),
 * at the request's apiVersion: in the worker thread for a large (stepwise) write, so that other
 * clients are answered meanwhile, else at once.
 */
async function runEngine(ctx: ObjectContext, target: ObjectTarget, parsed: ParsedPatch, existing: StoredObject | undefined, opts: PatchOptions): Promise<Record<string, unknown>> {
  const { format, patch } = parsed;
  const apiVersion = apiVersionOf(target.type, target.version);
  if (ctx.offLoop !== undefined && opts.stepwise === true) {
    const { reply } = await ctx.offLoop.run({ kind: 'patch', patch: patchTask(format, existing, apiVersion, patch, opts) });
    try {
      return await patchTaskResult(patchReplyOf(reply));
    } catch (err) {
      throw patchFailure(err);
    }
  }
  // Every patch engine works on a copy of its input: a shallow one with the requested apiVersion is enough here.
  const current = existing === undefined ? undefined : { ...existing.object, apiVersion };
  switch (format) {
    case 'apply': {
      const applyOptions = { force: opts.force ?? false, subresource: opts.subresource };
      return runPatch(() => applyServerSideApply(current, patch as Record<string, unknown>, opts.fieldManager ?? '', applyOptions));
    }
    case 'json':
      return runPatch(() => applyJsonPatch(current ?? {}, patch));
    case 'merge':
      return runPatch(() => applyMergePatch(current ?? {}, patch));
    case 'strategic':
      return runPatch(() => applyStrategicMergePatch(current ?? {}, patch));
  }
}

/** Refuses an apply whose body names another object or apiVersion than the URL. */
function checkAppliedIdentity(target: ObjectTarget, parsed: ParsedPatch): void {
  if (parsed.format !== 'apply') return;
  const applied = parsed.patch as KubeObject;
  if (typeof applied !== 'object' || applied === null) return;
  const { name } = target;
  const apiVersion = apiVersionOf(target.type, target.version);
  if (applied.metadata?.name !== undefined && applied.metadata.name !== name) {
    throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
  }
  if (applied.apiVersion !== undefined && applied.apiVersion !== apiVersion) {
    throw badRequest(`the API version in the data (${String(applied.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
}

/** PATCH (main resource or `/status`), by media type; apply creates a missing object. */
export async function patchObject(ctx: ObjectContext, target: ObjectTarget, body: string, mediaType: string, opts: PatchOptions): Promise<WriteResult> {
  const { type, name } = target;
  // A large patch is computed in the worker while the store stays locked, and the steps around it
  // (parse, read the answer, decode, write) run in turns of their own (see `WriteOptions.stepwise`).
  const write = { ...opts, stepwise: opts.stepwise === true || body.length >= largeBodyChars };
  const step = (): Promise<void> | undefined => (write.stepwise ? betweenWriteSteps() : undefined);
  await step();
  const parsed = parsePatch(target, body, mediaType, write);
  if (parsed.format === 'apply') {
    // Fields the kind does not declare are refused; they are found by decoding a copy.
    const copy = cloneJson(parsed.patch);
    await step();
    checkDeclaredFields(type, target.version, copy, target.namespace, name);
  }
  const fields = { fieldValidation: write.fieldValidation, duplicateFields: parsed.duplicateFields };
  return ctx.store.exclusive(async () => {
    await step();
    const existing = ctx.store.get(storeKeyOf(type), objectKeyOf(target.namespace, name));
    if (!existing) {
      if (parsed.format !== 'apply' || write.subresource) throw notFound(type, name);
      const obj = prepareBody(target, await runEngine(ctx, target, parsed, undefined, write));
      await step();
      const decoded = decode(target, obj, fields);
      await step();
      return createDecoded(ctx, target, decoded, { ...write, applied: true });
    }
    // A small patch of a large object is a large write too (an apply keeping 1 of 20,000 containers).
    const update = { ...write, stepwise: write.stepwise || existing.json.length >= largeBodyChars, applied: parsed.format === 'apply' };
    checkAppliedIdentity(target, parsed);
    const obj = prepareBody(target, await runEngine(ctx, target, parsed, existing, update));
    const rv = obj.metadata.resourceVersion;
    if (rv) parseResourceVersionText('metadata.resourceVersion', rv);
    if (rv && rv !== existing.object.metadata.resourceVersion) throw staleConflict(type, name);
    keepManagedFields(obj, existing.object);
    if (update.stepwise) await betweenWriteSteps();
    const decoded = decode(target, obj, fields);
    if (update.stepwise) await betweenWriteSteps();
    return updateDecoded(ctx, target, existing, decoded, update);
  });
}
