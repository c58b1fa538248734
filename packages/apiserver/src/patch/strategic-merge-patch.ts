/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for the built-in kinds kubeloop
 * serves, following apimachinery's `strategicpatch`:
 *
 * 1. Maps merge recursively; `null` deletes a field.
 * 2. Lists are replaced, except lists tagged `patchStrategy:"merge"` (see {@link strategyFor}):
 *    lists of objects merge item by item on their merge key (new items appended), lists of
 *    primitives merge as ordered sets.
 * 3. Directives: `$patch: replace | delete | merge` on a map or as a list item,
 *    `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`. Directives never
 *    end up in the stored object.
 *
 * Caveat: server-only items of a reordered list (`$setElementOrder`) go after the ordered ones,
 * where the real server interleaves them.
 */
import { badPatch, patchDoesNotApply } from './patch-error.js';
import { cloneJson, getOwn, hasOwn, isJsonObject, setOwn } from '../json-value.js';
import type { JsonObject } from '../json-value.js';
import { jsonIdentity } from './json-identity.js';
import { fieldStrategyOf, strategyFor } from './patch-strategies.js';
import type { FieldStrategy } from './patch-strategies.js';

const deleteMarker = Symbol('delete');
const deletePrefix = '$deleteFromPrimitiveList/';
const orderPrefix = '$setElementOrder/';

function patchDirective(map: JsonObject): 'replace' | 'delete' | 'merge' | undefined {
  const directive = getOwn(map, '$patch');
  if (directive === undefined) return undefined;
  if (directive === 'replace' || directive === 'delete' || directive === 'merge') return directive;
  throw badPatch(`Unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(map)}`);
}

/** A copy of a patch value with every directive removed (what a newly added value looks like). */
function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => !(isJsonObject(v) && patchDirective(v) !== undefined && Object.keys(v).length === 1)).map(stripDirectives);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) continue;
    if (v !== null) setOwn(out, k, stripDirectives(v));
  }
  return out;
}

function mergeMap(original: JsonObject, patch: JsonObject, strategy: FieldStrategy | undefined): JsonObject | typeof deleteMarker {
  const directive = patchDirective(patch);
  if (directive === 'delete') return deleteMarker;
  if (directive === 'replace') return stripDirectives(patch) as JsonObject;

  const retainKeys = getOwn(patch, '$retainKeys');
  if (retainKeys !== undefined) {
    if (!Array.isArray(retainKeys) || !retainKeys.every((k) => typeof k === 'string')) {
      throw badPatch('invalid patch: $retainKeys must be a list of strings');
    }
    const retained = new Set(retainKeys);
    for (const key of Object.keys(patch)) {
      if (!key.startsWith('$') && patch[key] !== null && !retained.has(key)) {
        throw patchDoesNotApply(`patch content doesn't match retainKeys list: ${key} is not in ${JSON.stringify(retainKeys)}`);
      }
    }
  }

  // Deletions from primitive lists first, so that the same patch can remove one value and add another.
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(deletePrefix)) continue;
    if (!Array.isArray(value)) throw badPatch(`invalid patch: ${key} must be a list`);
    const field = key.slice(deletePrefix.length);
    const list = getOwn(original, field);
    if (!Array.isArray(list)) continue;
    // One set of the values to delete, not a scan of them per item (20,000 finalizers: seconds).
    const doomed = new Set(value.map(jsonIdentity));
    setOwn(original, field, list.filter((item) => !doomed.has(jsonIdentity(item))));
  }

  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) {
      delete original[key];
      continue;
    }
    const fieldStrategy = fieldStrategyOf(strategy, key);
    const existing = getOwn(original, key);
    if (isJsonObject(value)) {
      const merged = mergeMap(isJsonObject(existing) ? existing : {}, value, fieldStrategy);
      if (merged === deleteMarker) delete original[key];
      else setOwn(original, key, merged);
    } else if (Array.isArray(value)) {
      setOwn(original, key, fieldStrategy?.mergeList ? mergeList(Array.isArray(existing) ? existing : [], value, fieldStrategy) : stripDirectives(value));
    } else {
      setOwn(original, key, value);
    }
  }

  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(orderPrefix)) continue;
    if (!Array.isArray(order)) throw badPatch(`invalid patch: ${key} must be a list`);
    const field = key.slice(orderPrefix.length);
    const list = getOwn(original, field);
    if (Array.isArray(list)) setOwn(original, field, reorder(list, order, fieldStrategyOf(strategy, field)?.mergeList?.mergeKey));
  }

  if (Array.isArray(retainKeys)) {
    const retained = new Set(retainKeys);
    for (const key of Object.keys(original)) if (!retained.has(key)) delete original[key];
  }
  return original;
}

function mergeList(original: unknown[], patch: unknown[], strategy: FieldStrategy): unknown[] {
  if (patch.some((item) => isJsonObject(item) && getOwn(item, '$patch') === 'replace')) {
    return stripDirectives(patch.filter((item) => !(isJsonObject(item) && getOwn(item, '$patch') === 'replace'))) as unknown[];
  }
  const mergeKey = strategy.mergeList?.mergeKey;
  if (mergeKey === undefined) {
    const result = original.slice();
    const members = new Set(result.map(jsonIdentity));
    for (const item of patch) {
      if (isJsonObject(item) || Array.isArray(item)) throw badPatch('invalid patch: a list of primitives may only contain primitives');
      const member = jsonIdentity(item);
      if (members.has(member)) continue;
      members.add(member);
      result.push(item);
    }
    return result;
  }
  // Linear: the positions of the items by merge key (the first one first), and removed items left
  // as holes until the end, where a search and a splice per patch item made 20,000 containers take seconds.
  const result: unknown[] = original.slice();
  const positions = positionsBy(result, (v) => (isJsonObject(v) && hasOwn(v, mergeKey) ? jsonIdentity(getOwn(v, mergeKey)) : undefined));
  const remove = (key: string, index: number): void => {
    result[index] = removed;
    positions.get(key)?.shift();
  };
  for (const item of patch) {
    if (!isJsonObject(item)) throw badPatch(`invalid patch: items of a list merged by ${mergeKey} must be maps`);
    if (!hasOwn(item, mergeKey)) throw patchDoesNotApply(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    const key = jsonIdentity(item[mergeKey]);
    const index = positions.get(key)?.[0];
    if (patchDirective(item) === 'delete') {
      if (index !== undefined) remove(key, index);
      continue;
    }
    if (index === undefined) {
      positions.set(key, [result.length]);
      result.push(stripDirectives(item));
      continue;
    }
    const merged = mergeMap(result[index] as JsonObject, item, strategy);
    if (merged === deleteMarker) remove(key, index);
    else result[index] = merged;
  }
  return result.filter((v) => v !== removed);
}

/** A list item a patch removed, dropped when the list is done. */
const removed = Symbol('removed');

/** The positions of a list's items by identity (undefined: not indexed), each in list order. */
function positionsBy(list: readonly unknown[], identity: (v: unknown) => string | undefined): Map<string, number[]> {
  const positions = new Map<string, number[]>();
  list.forEach((v, i) => {
    const key = identity(v);
    if (key === undefined) return;
    const found = positions.get(key);
    if (found) found.push(i);
    else positions.set(key, [i]);
  });
  return positions;
}

function reorder(list: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const identity = (v: unknown): string => jsonIdentity(mergeKey !== undefined && isJsonObject(v) ? getOwn(v, mergeKey) : v);
  // Each wanted item takes the first item of its identity not yet taken, in one lookup.
  const positions = positionsBy(list, identity);
  const taken = new Set<number>();
  const ordered: unknown[] = [];
  for (const wanted of order) {
    const index = positions.get(identity(wanted))?.shift();
    if (index === undefined) continue;
    taken.add(index);
    ordered.push(list[index]);
  }
  return [...ordered, ...list.filter((_, i) => !taken.has(i))];
}

/**
 * Applies a strategic merge patch to a copy of `doc` and returns the copy; `doc` is not mutated.
 * The patch strategies come from `doc`'s `apiVersion` and `kind`.
 *
 * @throws {@link PatchError} 400 for a patch that is not an object or a malformed directive,
 *   422 for a list item without its merge key or content outside `$retainKeys`.
 */
export function applyStrategicMergePatch(doc: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  if (!isJsonObject(patch)) throw badPatch(`strategic merge patch must be a JSON object, got ${patch === null ? 'null' : Array.isArray(patch) ? 'an array' : typeof patch}`);
  const merged = mergeMap(cloneJson(doc), patch, strategyFor(doc['apiVersion'], doc['kind']));
  if (merged === deleteMarker) throw badPatch('a strategic merge patch cannot delete the whole object ($patch: delete at the top level)');
  return merged;
}
