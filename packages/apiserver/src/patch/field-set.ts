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
import { jsonIdentity } from './json-identity.js';
import type { JsonObject } from '../json-value.js';
import { fieldStrategyOf } from './patch-strategies.js';
import type { FieldStrategy } from './patch-strategies.js';

/** One step of a path. */
export type PathSegment = { readonly f: string } | { readonly k: JsonObject } | { readonly v: unknown };

/** A path from the object's root. */
export type FieldPath = readonly PathSegment[];

// Metadata the server owns: never part of anyone's field set.
const serverOwnedMetadata = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName']);

/**
 * One step of a set's tree: a path is the chain of segments from the root to a node, and the node
 * says whether that path is a member. Paths come out in the order their branches were first made,
 * which is the order of the `FieldsV1` form.
 */
export interface FieldNode {
  /** Undefined at the root. */
  readonly segment: PathSegment | undefined;
  /** The segment as a `FieldsV1` key: `f:spec`, `k:{"name":"app"}`, `v:"x"`. */
  readonly key: string;
  readonly parent: FieldNode | undefined;
  children: Map<string, FieldNode> | undefined;
  member: boolean;
  /** Members at or below this node. */
  count: number;
  /** How a list item segment finds its item, made on the first lookup. */
  lookup: LookupKey | undefined;
}

/**
 * A set of paths, as a tree of their segments. The operations of server-side apply walk the tree
 * beside the object (see {@link visitMembers}), so no path is built or hashed whole: a 20,000-item
 * list costs one short-key lookup per segment and one list index.
 */
export class FieldSet {
  readonly root: FieldNode = { segment: undefined, key: '', parent: undefined, children: undefined, member: false, count: 0, lookup: undefined };

  /** The child of `node` (a node of this set) for `segment`, made when missing. */
  child(node: FieldNode, segment: PathSegment): FieldNode {
    const key = segmentKey(segment);
    node.children ??= new Map();
    let child = node.children.get(key);
    if (!child) {
      child = { segment, key, parent: node, children: undefined, member: false, count: 0, lookup: undefined };
      node.children.set(key, child);
    }
    return child;
  }

  /** Makes the path of `node` (a node of this set) a member. */
  mark(node: FieldNode): void {
    if (node.member) return;
    node.member = true;
    for (let n: FieldNode | undefined = node; n; n = n.parent) n.count++;
  }

  /** Takes the path of `node` (a node of this set) out of the set. */
  unmark(node: FieldNode): void {
    if (!node.member) return;
    node.member = false;
    for (let n: FieldNode | undefined = node; n; n = n.parent) n.count--;
  }

  add(path: FieldPath): void {
    let node = this.root;
    for (const segment of path) node = this.child(node, segment);
    this.mark(node);
  }

  /** Adds every path of `other`, in its order. */
  addAll(other: FieldSet): void {
    const copy = (from: FieldNode, to: FieldNode): void => {
      if (from.member) this.mark(to);
      if (from.children) for (const child of from.children.values()) if (child.count > 0) copy(child, this.child(to, child.segment as PathSegment));
    };
    copy(other.root, this.root);
  }

  has(path: FieldPath): boolean {
    return this.#find(path)?.member ?? false;
  }

  delete(path: FieldPath): void {
    const node = this.#find(path);
    if (node) this.unmark(node);
  }

  get size(): number {
    return this.root.count;
  }

  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    visitMembers(this, [], ({ node }) => out.push(pathOf(node)));
    return out;
  }

  /** True when this set has `path` or a path below it. */
  hasAtOrBelow(path: FieldPath): boolean {
    return (this.#find(path)?.count ?? 0) > 0;
  }

  #find(path: FieldPath): FieldNode | undefined {
    let node: FieldNode | undefined = this.root;
    for (const segment of path) {
      node = node.children?.get(segmentKey(segment));
      if (!node) return undefined;
    }
    return node;
  }
}

/** The path from the root to `node`. */
export function pathOf(node: FieldNode): FieldPath {
  const path: PathSegment[] = [];
  for (let n: FieldNode | undefined = node; n?.segment; n = n.parent) path.push(n.segment);
  return path.reverse();
}

/** What {@link visitMembers} hands over for one member. */
export interface VisitedMember {
  readonly node: FieldNode;
  /** The value each object has at the member's path (as {@link ValueReader.valueAt} reads it). */
  readonly values: readonly unknown[];
  /** The node of the same path in the `along` set, if it has one. */
  readonly along: FieldNode | undefined;
}

/**
 * Visits the members of `set` in order, with the values the objects of `readers` have at each and
 * the same node in `along` (when given). With `onlyShared`, branches `along` lacks are skipped.
 * A member may be unmarked from `set` while it is visited.
 */
export function visitMembers(set: FieldSet, readers: readonly ValueReader[], visit: (member: VisitedMember) => void, along?: { readonly set: FieldSet; readonly onlyShared: boolean }): void {
  const walk = (node: FieldNode, values: readonly unknown[], other: FieldNode | undefined): void => {
    if (!node.children) return;
    for (const child of node.children.values()) {
      if (child.count === 0) continue;
      const otherChild = other?.children?.get(child.key);
      if (along?.onlyShared && !otherChild) continue;
      const childValues = values.map((value, i) => (readers[i] as ValueReader).childValue(value, child));
      if (child.member) visit({ node: child, values: childValues, along: otherChild });
      walk(child, childValues, otherChild);
    }
  };
  walk(set.root, readers.map((r) => r.root), along?.set.root);
}

function keyOf(item: JsonObject, mergeKey: string): JsonObject {
  return { [mergeKey]: item[mergeKey] };
}

function collect(value: unknown, node: FieldNode, strategy: FieldStrategy | undefined, out: FieldSet): void {
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) {
      out.mark(node);
      return;
    }
    for (const key of keys) collect(getOwn(value, key), out.child(node, { f: key }), fieldStrategyOf(strategy, key), out);
    return;
  }
  const mergeList = strategy?.mergeList;
  if (Array.isArray(value) && mergeList) {
    const mergeKey = mergeList.mergeKey;
    for (const item of value) {
      if (mergeKey !== undefined && isJsonObject(item) && item[mergeKey] !== undefined) {
        const itemNode = out.child(node, { k: keyOf(item, mergeKey) });
        out.mark(itemNode);
        for (const key of Object.keys(item)) collect(getOwn(item, key), out.child(itemNode, { f: key }), fieldStrategyOf(strategy, key), out);
      } else if (mergeKey === undefined && !isJsonObject(item) && !Array.isArray(item)) {
        out.mark(out.child(node, { v: item }));
      } else {
        out.mark(node);
        return;
      }
    }
    return;
  }
  out.mark(node);
}

/** The field set of an object: every leaf and list item, without apiVersion, kind and server-owned metadata. */
export function fieldSetOf(obj: JsonObject, strategy: FieldStrategy): FieldSet {
  const out = new FieldSet();
  for (const key of Object.keys(obj)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    const value = getOwn(obj, key);
    if (key === 'metadata' && isJsonObject(value)) {
      const metadata = out.child(out.root, { f: 'metadata' });
      for (const mk of Object.keys(value)) {
        if (!serverOwnedMetadata.has(mk)) collect(getOwn(value, mk), out.child(metadata, { f: mk }), fieldStrategyOf(fieldStrategyOf(strategy, 'metadata'), mk), out);
      }
      continue;
    }
    collect(value, out.child(out.root, { f: key }), fieldStrategyOf(strategy, key), out);
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
  const write = (node: FieldNode): JsonObject => {
    const out: JsonObject = {};
    if (node.member && node.segment && !('f' in node.segment)) out['.'] = {};
    if (node.children) for (const child of node.children.values()) if (child.count > 0) out[child.key] = write(child);
    return out;
  };
  return write(set.root);
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
  const walk = (v1: JsonObject, node: FieldNode): void => {
    const keys = Object.keys(v1);
    if (node !== out.root && (keys.length === 0 || Object.hasOwn(v1, '.'))) out.mark(node);
    for (const key of keys) {
      if (key === '.') continue;
      const segment = parseSegment(key);
      const child = v1[key];
      if (segment && isJsonObject(child)) walk(child, out.child(node, segment));
    }
  };
  if (isJsonObject(fieldsV1)) walk(fieldsV1, out.root);
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

/** True when a list item is the one `segment` names: its keys' values (`k:`), or the whole item (`v:`), equal. */
function matches(item: unknown, segment: PathSegment): boolean {
  if ('k' in segment) return isJsonObject(item) && Object.entries(segment.k).every(([k, v]) => jsonEqual(getOwn(item, k), v));
  if ('v' in segment) return jsonEqual(item, segment.v);
  return false;
}

/** Thrown when a removal changes list items in a way their index cannot follow. */
class NeedsSequentialRemoval extends Error {}

/** The positions of one identity in a list: the only one, or all of them in order with the first not yet ruled out. */
type Positions = number | { readonly all: number[]; next: number };

/** One list's index: for each way of naming its items, the positions of each identity. */
interface ListState {
  readonly byNaming: Map<string, Map<string, Positions>>;
  holes: Set<number> | undefined;
  /** Removals inside an item (whole-item identities no longer hold). */
  itemsChanged: boolean;
  /** Fields of items removals went inside of (key identities on them no longer hold). */
  readonly changedWithin: Set<string>;
}

/**
 * Finds list items by the path segment that names them, as a scan for the first matching item
 * would, with one index per list (a scan per lookup made server-side apply quadratic: 20,000
 * containers took 30 s). Items may be removed (left as holes until {@link compact}) and fields of
 * items removed meanwhile: a position is checked against its item before it is answered, and such
 * removals only ever make an item match fewer segments. The one change that could make an item
 * match a segment it did not match before (a removal inside a key's value, or inside an item named
 * by its whole value) stops the lookups: the caller then removes path by path.
 */
class ListLookups {
  readonly #lists = new Map<unknown[], ListState>();

  #state(list: unknown[]): ListState {
    let state = this.#lists.get(list);
    if (!state) {
      state = { byNaming: new Map(), holes: undefined, itemsChanged: false, changedWithin: new Set() };
      this.#lists.set(list, state);
    }
    return state;
  }

  /** The position of the first live item of `list` that `node`'s segment names. */
  find(list: unknown[], node: FieldNode): number | undefined {
    const state = this.#state(list);
    const { names, naming, identity } = lookupKeyOf(node);
    if (names ? names.some((name) => state.changedWithin.has(name)) : state.itemsChanged) throw new NeedsSequentialRemoval('a removal changed the identity of list items');
    let identities = state.byNaming.get(naming);
    if (!identities) {
      identities = positionsByIdentity(list, names);
      state.byNaming.set(naming, identities);
    }
    const wanted = identities.get(identity);
    if (wanted === undefined) return undefined;
    // The index is exact for a list nothing was removed from.
    if (!state.holes && !state.itemsChanged) return typeof wanted === 'number' ? wanted : wanted.all[0];
    // After removals, a position that was removed, or whose item no longer matches, never matches again.
    const live = (position: number): boolean => !state.holes?.has(position) && matches(list[position], node.segment as PathSegment);
    if (typeof wanted === 'number') return live(wanted) ? wanted : undefined;
    for (; wanted.next < wanted.all.length; wanted.next++) if (live(wanted.all[wanted.next] as number)) return wanted.all[wanted.next];
    return undefined;
  }

  /** Removes the item at `position` (it stays in place as a hole until {@link compact}). */
  hole(list: unknown[], position: number): void {
    const state = this.#state(list);
    state.holes ??= new Set();
    state.holes.add(position);
  }

  /** Notes a removal inside an item of `list`: at or below the item's `field` (undefined: the item is a list), or only at it. */
  changedInside(list: unknown[], field: string | undefined, belowField: boolean): void {
    const state = this.#state(list);
    state.itemsChanged = true;
    if (belowField && field !== undefined) state.changedWithin.add(field);
  }

  /** Drops the holes from every list, in place. */
  compact(): void {
    for (const [list, state] of this.#lists) {
      if (!state.holes) continue;
      let kept = 0;
      for (let i = 0; i < list.length; i++) if (!state.holes.has(i)) list[kept++] = list[i];
      list.length = kept;
    }
  }
}

/** How a segment finds its item: the key names (`k:`; undefined for `v:`), the index they select, the identity wanted. */
interface LookupKey {
  readonly names: readonly string[] | undefined;
  readonly naming: string;
  readonly identity: string;
}

function lookupKeyOf(node: FieldNode): LookupKey {
  if (node.lookup) return node.lookup;
  const segment = node.segment as PathSegment;
  if ('k' in segment) {
    const names = Object.keys(segment.k).sort();
    node.lookup = { names, naming: `k:${names.join('\n')}`, identity: itemIdentity(segment.k, names) as string };
  } else {
    node.lookup = { names: undefined, naming: 'v', identity: jsonIdentity('v' in segment ? segment.v : undefined) };
  }
  return node.lookup;
}

function itemIdentity(item: unknown, names: readonly string[]): string | undefined {
  if (!isJsonObject(item)) return undefined;
  return names.length === 1 ? jsonIdentity(getOwn(item, names[0] as string)) : names.map((name) => jsonIdentity(getOwn(item, name))).join(',');
}

/** The positions of a list's items by identity (by the values of `names`, else the whole item), each in list order. */
function positionsByIdentity(list: readonly unknown[], names: readonly string[] | undefined): Map<string, Positions> {
  const out = new Map<string, Positions>();
  list.forEach((item, i) => {
    const identity = names ? itemIdentity(item, names) : jsonIdentity(item);
    if (identity === undefined) return;
    const found = out.get(identity);
    if (found === undefined) out.set(identity, i);
    else if (typeof found === 'number') out.set(identity, { all: [found, i], next: 0 });
    else found.all.push(i);
  });
  return out;
}

/**
 * Reads the values at paths of one object that does not change while it is read: the value
 * {@link pathOf} a node names, one step at a time; each list is indexed on its first lookup.
 */
export class ValueReader {
  readonly #lists = new ListLookups();
  constructor(readonly root: unknown) {}

  /** The value one step below `value`, at `node`'s segment; undefined when there is nothing there. */
  childValue(value: unknown, node: FieldNode): unknown {
    const segment = node.segment as PathSegment;
    if ('f' in segment) return isJsonObject(value) ? getOwn(value, segment.f) : undefined;
    if (!Array.isArray(value)) return undefined;
    const position = this.#lists.find(value, node);
    return position === undefined ? undefined : value[position];
  }
}

/** A list item on the way down (a chain to the outermost): removals below it are noted on its list. */
interface Enclosing {
  readonly list: unknown[];
  /** The node that named the item, and its depth. */
  readonly node: FieldNode;
  readonly depth: number;
  /** The item's own field the walk went into; undefined when the item is a list itself. */
  readonly field: string | undefined;
  readonly outer: Enclosing | undefined;
}

/**
 * A copy of `source` without what the members of `set` name that no set of `keepers` has at or
 * below, removed in the set's order exactly as removing the paths one by one would do (each path
 * looked up again from the root after the removals before it). One walk with indexed lists; inputs
 * whose items change identity on the way are done path by path.
 */
export function withoutUncovered(source: JsonObject, set: FieldSet, keepers: readonly FieldSet[]): JsonObject {
  const result = cloneJson(source);
  const lists = new ListLookups();
  const noteRemoval = (depth: number, enclosing: Enclosing | undefined): void => {
    for (let e = enclosing; e; e = e.outer) {
      const belowField = depth > e.depth + 1;
      // The item no longer has the identity the walk found it by: the paths after this one may not find it.
      const names = lookupKeyOf(e.node).names;
      if (!names || (belowField && e.field !== undefined && names.includes(e.field))) throw new NeedsSequentialRemoval('a removal changed the identity of a list item');
      lists.changedInside(e.list, e.field, belowField);
    }
  };
  const visit = (node: FieldNode, parent: unknown, cursors: readonly FieldNode[], depth: number, enclosing: Enclosing | undefined): void => {
    const below = cursors.flatMap((c) => c.children?.get(node.key) ?? []);
    const remove = node.member && !below.some((c) => c.count > 0);
    const segment = node.segment as PathSegment;
    if ('f' in segment) {
      if (!isJsonObject(parent)) return;
      if (remove) {
        delete parent[segment.f];
        noteRemoval(depth, enclosing);
        return;
      }
      const value = getOwn(parent, segment.f);
      if (node.children) for (const child of node.children.values()) if (child.count > 0) visit(child, value, below, depth + 1, enclosing);
      return;
    }
    if (!Array.isArray(parent)) return;
    const position = lists.find(parent, node);
    if (position === undefined) return;
    if (remove) {
      lists.hole(parent, position);
      noteRemoval(depth, enclosing);
    }
    if (!node.children) return;
    for (const child of node.children.values()) {
      if (child.count === 0) continue;
      // Found again for each path below: a removal before it may have taken the item or its key,
      // and then the path names the next item with that key, if there is one.
      const current = lists.find(parent, node);
      if (current === undefined) return;
      const field = child.segment && 'f' in child.segment ? child.segment.f : undefined;
      visit(child, parent[current], below, depth + 1, { list: parent, node, depth, field, outer: enclosing });
    }
  };
  try {
    if (set.root.children) for (const child of set.root.children.values()) if (child.count > 0) visit(child, result, keepers.map((k) => k.root), 1, undefined);
    lists.compact();
    return result;
  } catch (err) {
    if (!(err instanceof NeedsSequentialRemoval)) throw err;
  }
  const again = cloneJson(source);
  for (const path of set.paths()) if (!keepers.some((k) => k.hasAtOrBelow(path))) removePath(again, path);
  return again;
}

function findItem(list: unknown[], segment: PathSegment): number {
  return list.findIndex((item) => matches(item, segment));
}

/** Removes what is at a path (a field, or a list item), in place; the plain algorithm {@link withoutUncovered} follows. */
function removePath(obj: JsonObject, path: FieldPath): void {
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
  const keyed = (item: unknown): item is JsonObject => mergeKey !== undefined && isJsonObject(item) && item[mergeKey] !== undefined;
  const result = existing.slice();
  // Items by merge key, found in one lookup each (a scan per item was quadratic).
  const byKey = new Map<string, number>();
  result.forEach((item, i) => {
    if (!keyed(item)) return;
    const key = jsonIdentity(item[mergeKey as string]);
    if (!byKey.has(key)) byKey.set(key, i);
  });
  // An item without its key can only equal another item without its key: only those are set members.
  let members: Set<string> | undefined;
  for (const item of applied) {
    if (keyed(item)) {
      const key = jsonIdentity(item[mergeKey as string]);
      const index = byKey.get(key);
      if (index === undefined) {
        byKey.set(key, result.length);
        result.push(cloneJson(item));
      } else result[index] = mergeApplied(result[index] as JsonObject, item, strategy);
      continue;
    }
    members ??= new Set(result.filter((e) => !keyed(e)).map(jsonIdentity));
    const member = jsonIdentity(item);
    if (members.has(member)) continue;
    members.add(member);
    result.push(cloneJson(item));
  }
  return result;
}
