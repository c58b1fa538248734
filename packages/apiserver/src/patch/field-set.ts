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
import { canonicalJson } from '../validation/canonical-json.js';
import type { JsonObject } from '../json-value.js';
import { fieldStrategyOf } from './patch-strategies.js';
import type { FieldStrategy } from './patch-strategies.js';

/** One step of a path. */
export type PathSegment = { readonly f: string } | { readonly k: JsonObject } | { readonly v: unknown };

/** A path from the object's root. */
export type FieldPath = readonly PathSegment[];

// Metadata the server owns: never part of anyone's field set.
const serverOwnedMetadata = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName']);

/** One step of a set's tree: its members below, and the path when the step itself is a member. */
interface SetNode {
  children: Map<string, SetNode> | undefined;
  path: FieldPath | undefined;
  /** Members at or below this node. */
  count: number;
}

/**
 * A set of paths, as a tree of their segments: adding, finding and asking "anything at or below
 * this path?" cost one short-key lookup per segment (the set once kept whole-path JSON texts, and
 * a 20,000-container apply spent most of its time building and hashing them). Paths come out in
 * the order their branches were first added, which is the order of the `FieldsV1` form.
 */
export class FieldSet {
  readonly #root: SetNode = { children: undefined, path: undefined, count: 0 };

  add(path: FieldPath): void {
    // One walk: the nodes are made on the way down, counted only when the path is new.
    const passed: SetNode[] = [this.#root];
    let node = this.#root;
    for (const segment of path) {
      const key = segmentKey(segment);
      node.children ??= new Map();
      let child = node.children.get(key);
      if (!child) {
        child = { children: undefined, path: undefined, count: 0 };
        node.children.set(key, child);
      }
      passed.push(child);
      node = child;
    }
    if (node.path) return;
    node.path = path;
    for (const step of passed) step.count++;
  }

  has(path: FieldPath): boolean {
    return this.#find(path)?.path !== undefined;
  }

  delete(path: FieldPath): void {
    if (!this.has(path)) return;
    let node = this.#root;
    node.count--;
    for (const segment of path) {
      node = node.children?.get(segmentKey(segment)) as SetNode;
      node.count--;
    }
    node.path = undefined;
  }

  get size(): number {
    return this.#root.count;
  }

  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (node: SetNode): void => {
      if (node.path) out.push(node.path);
      if (node.children) for (const child of node.children.values()) if (child.count > 0) walk(child);
    };
    walk(this.#root);
    return out;
  }

  /** True when this set has `path` or a path below it. */
  hasAtOrBelow(path: FieldPath): boolean {
    return (this.#find(path)?.count ?? 0) > 0;
  }

  #find(path: FieldPath): SetNode | undefined {
    let node: SetNode | undefined = this.#root;
    for (const segment of path) {
      node = node.children?.get(segmentKey(segment));
      if (!node) return undefined;
    }
    return node;
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

/**
 * The index of a list's item that a path segment names: a keyed item (`k:`) or a set member (`v:`).
 * A linear scan per lookup made server-side apply quadratic (20,000 containers: 30 s), so each list
 * gets an index from item identity to position, built on its first lookup and kept while the list
 * keeps its length (lists change in place only by `removePath`'s splice); a hit is checked against
 * the item itself, so a stale index can only cost a rebuild, never give a wrong answer.
 */
function findItem(list: unknown[], segment: PathSegment): number {
  const names = 'k' in segment ? Object.keys(segment.k).sort() : undefined;
  const identity = 'k' in segment ? keyIdentity(segment.k, names ?? []) : 'v' in segment ? canonicalJson(segment.v) : undefined;
  if (identity === undefined) return -1;
  const signature = names ? names.join('\n') : '';
  let byList = listIndexes.get(list);
  if (!byList) {
    byList = new Map();
    listIndexes.set(list, byList);
  }
  let index = byList.get(signature);
  if (!index || index.length !== list.length) {
    index = buildIndex(list, names);
    byList.set(signature, index);
  }
  const found = index.positions.get(identity);
  if (found !== undefined && matches(list[found], segment)) return found;
  if (found === undefined) return -1;
  // The list changed without changing its length: index it again.
  byList.set(signature, buildIndex(list, names));
  return list.findIndex((item) => matches(item, segment));
}

interface ListIndex {
  readonly length: number;
  readonly positions: Map<string, number>;
}

const listIndexes = new WeakMap<unknown[], Map<string, ListIndex>>();

function keyIdentity(item: JsonObject, names: readonly string[]): string {
  return canonicalJson(names.map((name) => getOwn(item, name) ?? null));
}

function buildIndex(list: unknown[], names: readonly string[] | undefined): ListIndex {
  const positions = new Map<string, number>();
  list.forEach((item, i) => {
    const identity = names ? (isJsonObject(item) ? keyIdentity(item, names) : undefined) : canonicalJson(item);
    if (identity !== undefined && !positions.has(identity)) positions.set(identity, i);
  });
  return { length: list.length, positions };
}

function matches(item: unknown, segment: PathSegment): boolean {
  if ('k' in segment) return isJsonObject(item) && Object.entries(segment.k).every(([k, v]) => jsonEqual(getOwn(item, k), v));
  if ('v' in segment) return jsonEqual(item, segment.v);
  return false;
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
  // Items by merge key, and set members, each found in one lookup (a scan per item was quadratic).
  const byKey = new Map<string, number>();
  const members = new Set<string>();
  result.forEach((item, i) => {
    if (mergeKey !== undefined && isJsonObject(item) && item[mergeKey] !== undefined) {
      const key = canonicalJson(item[mergeKey]);
      if (!byKey.has(key)) byKey.set(key, i);
    }
    members.add(canonicalJson(item));
  });
  for (const item of applied) {
    if (mergeKey !== undefined && isJsonObject(item) && item[mergeKey] !== undefined) {
      const key = canonicalJson(item[mergeKey]);
      const index = byKey.get(key);
      if (index === undefined) {
        byKey.set(key, result.length);
        result.push(cloneJson(item));
      } else result[index] = mergeApplied(isJsonObject(result[index]) ? result[index] : {}, item, strategy);
    } else {
      const member = canonicalJson(item);
      if (members.has(member)) continue;
      members.add(member);
      result.push(cloneJson(item));
    }
  }
  return result;
}
