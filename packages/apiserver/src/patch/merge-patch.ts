/**
 * RFC 7386 JSON Merge Patch (`application/merge-patch+json`): objects merge recursively, `null`
 * deletes, anything else (arrays included) replaces. Kubernetes requires the patch to be an object.
 */
import { badPatch } from './patch-error.js';
import { cloneJson, getOwn, isJsonObject, setOwn } from '../json-value.js';
import type { JsonObject } from '../json-value.js';

/** Merges `patch` into `target` in place; `target` must be owned by the caller. */
export function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete target[key];
    } else if (isJsonObject(value)) {
      const existing = getOwn(target, key);
      setOwn(target, key, mergeInto(isJsonObject(existing) ? existing : {}, value));
    } else {
      setOwn(target, key, cloneJson(value));
    }
  }
  return target;
}

/**
 * Applies an RFC 7386 merge patch to a copy of `doc` and returns the copy; `doc` is not mutated.
 *
 * @throws {@link PatchError} 400 when `patch` is not a JSON object.
 */
export function applyMergePatch(doc: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  if (!isJsonObject(patch)) throw badPatch(`merge patch must be a JSON object, got ${patch === null ? 'null' : Array.isArray(patch) ? 'an array' : typeof patch}`);
  return mergeInto(cloneJson(doc), patch);
}
