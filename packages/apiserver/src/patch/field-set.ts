/**
 * Sets of field paths, as server-side apply tracks ownership (`metadata.managedFields`): a path
 * names a field (`f:name`), an item of a list merged by a key (`k:{"name":"app"}`) or an item of
 * a set of primitives (`v:"x"`). A set is built from an object (its leaves, plus every keyed or
 * set list item), read from and written to the `FieldsV1` form, and printed as
 * structured-merge-diff does in conflict messages (`.spec.containers[name="app"].image`).
 *
 * Which lists are keyed or sets comes from the kind's strategic merge strategy; every other list,
 * and every empty map, is one leaf (atomic).
 */
import { cloneJson, getOwn, isJsonObject, jsonEqual, setOwn } from '../json-value.js';
import type { JsonObject } from '../json-value.js';
import { fieldStrategyOf } from './patch-strategies.js';
import type { FieldStrategy } from './patch-strategies.js';

/** One step of a path. */
export type PathSegment = { readonly f: string } | { readonly k: JsonObject } | { readonly v: unknown };

/** A path from the object's root. */
export type FieldPath = readonly PathSegment[];

// Metadata the server owns: never part of anyone's field set.
const serverOwnedMetadata = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName']);

/** A set of paths, keyed by their JSON text. */
export class FieldSet {
  readonly #paths = new Map<string, FieldPath>();

  add(path: FieldPath): void {
    this.#paths.set(JSON.stringify(path), path);
  }

  has(path: FieldPath): boolean {
    return this.#paths.has(JSON.stringify(path));
  }

  delete(path: FieldPath): void {
    this.#paths.delete(JSON.stringify(path));
  }

  get size(): number {
    return this.#paths.size;
  }

  paths(): FieldPath[] {
    return [...this.#paths.values()];
  }

  /** True when this set has `path` or a path below it. */
  hasAtOrBelow(path: FieldPath): boolean {
    const prefix = JSON.stringify(path).slice(0, -1);
    for (const key of this.#paths.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }
}

function keyOf(item: JsonObject, mergeKey: string): JsonObject {
  return { [mergeKey]: item[mergeKey] };
}

function collect(value: unknown, path: PathSegment[], strategy: FieldStrategy | undefined, out: FieldSet): void {
  if (isJsonObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) {
      out.add(path);
      return;
    }
    for (const [key, child] of entries) collect(child, [...path, { f: key }], fieldStrategyOf(strategy, key), out);
    return;
  }
  const mergeList = strategy?.mergeList;
  if (Array.isArray(value) && mergeList) {
    const mergeKey = mergeList.mergeKey;
    for (const item of value) {
      if (mergeKey !== undefined && isJsonObject(item) && item[mergeKey] !== undefined) {
        const itemPath = [...path, { k: keyOf(item, mergeKey) }];
        out.add(itemPath);
        for (const [key, child] of Object.entries(item)) collect(child, [...itemPath, { f: key }], fieldStrategyOf(strategy, key), out);
      } else if (mergeKey === undefined && !isJsonObject(item) && !Array.isArray(item)) {
        out.add([...path, { v: item }]);
      } else {
        out.add(path);
        return;
      }
    }
    return;
  }
  out.add(path);
}

/** The field set of an object: every leaf and list item, without apiVersion, kind and server-owned metadata. */
export function fieldSetOf(obj: JsonObject, strategy: FieldStrategy): FieldSet {
  const out = new FieldSet();
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata' && isJsonObject(value)) {
      for (const [mk, mv] of Object.entries(value)) {
        if (!serverOwnedMetadata.has(mk)) collect(mv, [{ f: 'metadata' }, { f: mk }], fieldStrategyOf(fieldStrategyOf(strategy, 'metadata'), mk), out);
      }
      continue;
    }
    collect(value, [{ f: key }], fieldStrategyOf(strategy, key), out);
  }
  return out;
}

function segmentKey(segment: PathSegment): string {
  if ('f' in segment) return `f:${segment.f}`;
  if ('k' in segment) return `k:${JSON.stringify(segment.k)}`;
  return `v:${JSON.stringify(segment.v)}`;
}

/** The `FieldsV1` form of a set: `{"f:spec":{"f:replicas":{}}}`; list items carry `".": {}`. */
export function fieldSetToV1(set: FieldSet): JsonObject {
  const root: JsonObject = {};
  for (const path of set.paths()) {
    let node = root;
    path.forEach((segment, i) => {
      const key = segmentKey(segment);
      const child = (isJsonObject(node[key]) ? node[key] : (node[key] = {}));
      if (i === path.length - 1 && !('f' in segment)) child['.'] = {};
      node = child;
    });
  }
  return root;
}

function parseSegment(key: string): PathSegment | undefined {
  try {
    if (key.startsWith('f:')) return { f: key.slice(2) };
    if (key.startsWith('k:')) {
      const parsed: unknown = JSON.parse(key.slice(2));
      return isJsonObject(parsed) ? { k: parsed } : undefined;
    }
    if (key.startsWith('v:')) return { v: JSON.parse(key.slice(2)) as unknown };
  } catch {
    return undefined;
  }
  return undefined;
}

/** Reads a `FieldsV1` object (as stored in managedFields) back into a set; unreadable keys are skipped. */
export function fieldSetFromV1(fieldsV1: unknown): FieldSet {
  const out = new FieldSet();
  const walk = (node: JsonObject, path: PathSegment[]): void => {
    const keys = Object.keys(node);
    if (path.length > 0 && (keys.length === 0 || keys.includes('.'))) out.add(path);
    for (const key of keys) {
      if (key === '.') continue;
      const segment = parseSegment(key);
      const child = node[key];
      if (segment && isJsonObject(child)) walk(child, [...path, segment]);
    }
  };
  if (isJsonObject(fieldsV1)) walk(fieldsV1, []);
  return out;
}

/** A path as structured-merge-diff prints it: `.spec.containers[name="app"].image`, `.metadata.finalizers[="x"]`. */
export function pathText(path: FieldPath): string {
  return path
    .map((segment) => {
      if ('f' in segment) return `.${segment.f}`;
      if ('k' in segment) return `[${Object.entries(segment.k).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
      return `[=${JSON.stringify(segment.v)}]`;
    })
    .join('');
}

function findItem(list: unknown[], segment: PathSegment): number {
  if ('k' in segment) return list.findIndex((item) => isJsonObject(item) && Object.entries(segment.k).every(([k, v]) => jsonEqual(getOwn(item, k), v)));
  if ('v' in segment) return list.findIndex((item) => jsonEqual(item, segment.v));
  return -1;
}

/** The value at a path, or undefined when the object has nothing there. */
export function valueAt(obj: unknown, path: FieldPath): unknown {
  let node: unknown = obj;
  for (const segment of path) {
    if ('f' in segment) {
      if (!isJsonObject(node)) return undefined;
      node = getOwn(node, segment.f);
    } else {
      if (!Array.isArray(node)) return undefined;
      const index = findItem(node, segment);
      if (index < 0) return undefined;
      node = node[index];
    }
  }
  return node;
}

/** Removes what is at a path (a field, or a list item), in place. */
export function removePath(obj: JsonObject, path: FieldPath): void {
  let node: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i] as PathSegment;
    const last = i === path.length - 1;
    if ('f' in segment) {
      if (!isJsonObject(node)) return;
      if (last) {
        delete node[segment.f];
        return;
      }
      node = getOwn(node, segment.f);
    } else {
      if (!Array.isArray(node)) return;
      const index = findItem(node, segment);
      if (index < 0) return;
      if (last) {
        node.splice(index, 1);
        return;
      }
      node = node[index];
    }
  }
}

/**
 * Merges an applied configuration into `target` (in place) by the strategy: maps merge, keyed
 * lists merge item by item, sets of primitives take the union, other lists are replaced; a null
 * removes the field.
 */
export function mergeApplied(target: JsonObject, applied: JsonObject, strategy: FieldStrategy | undefined): JsonObject {
  for (const [key, value] of Object.entries(applied)) {
    const fieldStrategy = fieldStrategyOf(strategy, key);
    if (value === null) {
      delete target[key];
      continue;
    }
    const existing = getOwn(target, key);
    if (isJsonObject(value)) {
      setOwn(target, key, mergeApplied(isJsonObject(existing) ? existing : {}, value, fieldStrategy));
    } else if (Array.isArray(value) && Array.isArray(existing) && fieldStrategy?.mergeList) {
      setOwn(target, key, mergeList(existing, value, fieldStrategy));
    } else {
      setOwn(target, key, cloneJson(value));
    }
  }
  return target;
}

function mergeList(existing: unknown[], applied: unknown[], strategy: FieldStrategy): unknown[] {
  const mergeKey = strategy.mergeList?.mergeKey;
  const result = existing.slice();
  for (const item of applied) {
    if (mergeKey !== undefined && isJsonObject(item) && item[mergeKey] !== undefined) {
      const index = findItem(result, { k: keyOf(item, mergeKey) });
      if (index < 0) result.push(cloneJson(item));
      else result[index] = mergeApplied(isJsonObject(result[index]) ? (result[index]) : {}, item, strategy);
    } else if (!result.some((e) => jsonEqual(e, item))) {
      result.push(cloneJson(item));
    }
  }
  return result;
}
