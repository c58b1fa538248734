/**
 * Server-side apply (`application/apply-patch+yaml`), as create-or-merge:
 *
 * 1. No existing object: the applied configuration is the object.
 * 2. Otherwise the applied configuration is merged into the existing object: maps merge, lists are
 *    replaced, except `metadata.finalizers` (merged as a set) and `metadata.ownerReferences`
 *    (merged by `uid`), so that applying never drops what a controller added.
 * 3. `metadata.managedFields` gets one `Apply` entry per field manager, with the applied fields
 *    in `FieldsV1` form; the manager's previous `Apply` entry is replaced.
 *
 * Caveats (deliberately not done): no field ownership conflicts (409) and no `force`; fields a
 * manager stops applying are kept, not removed.
 */
import { badPatch } from './patch-error.js';
import { cloneJson, getOwn, isJsonObject, jsonEqual, setOwn } from '../json-value.js';
import type { JsonObject } from '../json-value.js';

/** Options of {@link applyServerSideApply}. */
export interface ServerSideApplyOptions {
  /** Current time, for the managedFields entry. Default: `new Date()`. */
  now?: Date;
  /** The subresource applied to (`status`), recorded in the managedFields entry. Default: none. */
  subresource?: string;
}

// Fields the server owns; they never appear in FieldsV1.
const serverOwnedMetadata = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink']);

/** The FieldsV1 set of a configuration: `{"f:spec":{"f:replicas":{}}}`. Lists are atomic. */
export function fieldsV1Of(applied: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(applied)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata' && isJsonObject(value)) {
      const meta: JsonObject = {};
      for (const [mk, mv] of Object.entries(value)) if (!serverOwnedMetadata.has(mk)) setOwn(meta, `f:${mk}`, fieldsOf(mv));
      if (Object.keys(meta).length > 0) out['f:metadata'] = meta;
      continue;
    }
    setOwn(out, `f:${key}`, fieldsOf(value));
  }
  return out;
}

function fieldsOf(value: unknown): JsonObject {
  if (!isJsonObject(value)) return {};
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, `f:${k}`, fieldsOf(v));
  return out;
}

function mergeApplied(target: JsonObject, applied: JsonObject, path: string): JsonObject {
  for (const [key, value] of Object.entries(applied)) {
    const here = path === '' ? key : `${path}.${key}`;
    if (value === null) {
      delete target[key];
      continue;
    }
    const existing = getOwn(target, key);
    if (isJsonObject(value)) {
      setOwn(target, key, mergeApplied(isJsonObject(existing) ? existing : {}, value, here));
    } else if (here === 'metadata.finalizers' && Array.isArray(value) && Array.isArray(existing)) {
      const union = (existing as unknown[]).slice();
      for (const f of value) if (!union.some((e) => jsonEqual(e, f))) union.push(cloneJson(f));
      target[key] = union;
    } else if (here === 'metadata.ownerReferences' && Array.isArray(value) && Array.isArray(existing)) {
      const merged = (existing as unknown[]).slice();
      for (const ref of value as unknown[]) {
        const index = isJsonObject(ref) ? merged.findIndex((e) => isJsonObject(e) && e['uid'] === ref['uid']) : -1;
        if (index >= 0) merged[index] = cloneJson(ref);
        else merged.push(cloneJson(ref));
      }
      target[key] = merged;
    } else {
      setOwn(target, key, cloneJson(value));
    }
  }
  return target;
}

function withoutNulls(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null) continue;
    setOwn(out, k, isJsonObject(v) ? withoutNulls(v) : cloneJson(v));
  }
  return out;
}

/** RFC 3339 with seconds, as Kubernetes writes `metav1.Time`. */
function rfc3339Seconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * Applies a configuration for `fieldManager`: returns `applied` (plus its managedFields entry) when
 * `existing` is undefined, else a copy of `existing` with `applied` merged in. Neither input is mutated.
 *
 * @throws {@link PatchError} 400 when `applied` is not an object or `fieldManager` is empty.
 */
export function applyServerSideApply(
  existing: Record<string, unknown> | undefined,
  applied: Record<string, unknown>,
  fieldManager: string,
  options: ServerSideApplyOptions = {},
): Record<string, unknown> {
  if (!isJsonObject(applied)) throw badPatch('apply patch must be a JSON or YAML object');
  if (fieldManager === '') throw badPatch('PATCH requests with apply content type require a fieldManager');
  const config = withoutNulls(applied);
  const configMeta = getOwn(config, 'metadata');
  if (isJsonObject(configMeta)) delete configMeta['managedFields'];

  const result = existing === undefined ? config : mergeApplied(cloneJson(existing), config, '');
  const metadata = isJsonObject(result['metadata']) ? result['metadata'] : (result['metadata'] = {});
  const subresource = options.subresource;
  const others = (Array.isArray(metadata['managedFields']) ? (metadata['managedFields'] as unknown[]) : []).filter(
    (entry: unknown) =>
      !(isJsonObject(entry) && entry['manager'] === fieldManager && entry['operation'] === 'Apply' && entry['subresource'] === subresource),
  );
  const entry: JsonObject = {
    manager: fieldManager,
    operation: 'Apply',
    apiVersion: typeof config['apiVersion'] === 'string' ? config['apiVersion'] : (result['apiVersion'] ?? ''),
    time: rfc3339Seconds(options.now ?? new Date()),
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsV1Of(config),
  };
  if (subresource !== undefined) entry['subresource'] = subresource;
  metadata['managedFields'] = [...others, entry];
  return result;
}
