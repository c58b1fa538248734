/**
 * The field set walks against the plain algorithms they replace (fast-check, small random objects
 * with repeated keys, items without keys, keys that are objects, sets of primitives): a value read
 * beside a set is the first matching item's, as a scan finds it, and removing the uncovered
 * members in one walk leaves exactly what removing them path by path, each looked up again from
 * the root, leaves.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { getOwn, isJsonObject, jsonEqual } from '../json-value.js';
import type { JsonObject } from '../json-value.js';
import { FieldSet, ValueReader, visitMembers, withoutUncovered } from './field-set.js';
import type { FieldPath, PathSegment } from './field-set.js';

/** The plain lookup: the first item the segment names. */
function scanFor(list: unknown[], segment: PathSegment): number {
  if ('k' in segment) return list.findIndex((item) => isJsonObject(item) && Object.entries(segment.k).every(([k, v]) => jsonEqual(getOwn(item, k), v)));
  if ('v' in segment) return list.findIndex((item) => jsonEqual(item, segment.v));
  return -1;
}

function scanValueAt(obj: unknown, path: FieldPath): unknown {
  let node = obj;
  for (const segment of path) {
    if ('f' in segment) node = isJsonObject(node) ? getOwn(node, segment.f) : undefined;
    else node = Array.isArray(node) && scanFor(node, segment) >= 0 ? node[scanFor(node, segment)] : undefined;
  }
  return node;
}

function scanRemove(obj: JsonObject, path: FieldPath): void {
  let node: unknown = obj;
  path.forEach((segment, i) => {
    const last = i === path.length - 1;
    if (node === undefined) return;
    if ('f' in segment) {
      if (!isJsonObject(node)) node = undefined;
      else if (last) delete node[segment.f];
      else node = getOwn(node, segment.f);
      return;
    }
    const index = Array.isArray(node) ? scanFor(node, segment) : -1;
    if (index < 0 || !Array.isArray(node)) node = undefined;
    else if (last) node.splice(index, 1);
    else node = node[index];
  });
}

const names = fc.constantFrom('a', 'b', 'c');
const keyValue = fc.oneof(names, fc.record({ first: names, x: fc.constantFrom(1, 2) }, { requiredKeys: ['first'] }));
const item = fc.record({ name: keyValue, image: fc.constantFrom('x', 'y'), ports: fc.array(fc.record({ p: fc.constantFrom(1, 2) }), { maxLength: 3 }) }, { requiredKeys: [] });
// Through JSON: plain objects, as requests give them (fast-check makes some without a prototype).
const object = fc.record({ spec: fc.record({ items: fc.array(item, { maxLength: 6 }), tags: fc.array(names, { maxLength: 4 }) }) }).map((o) => JSON.parse(JSON.stringify(o)) as JsonObject);

const segment: fc.Arbitrary<PathSegment> = fc.oneof(
  fc.constantFrom('spec', 'items', 'tags', 'name', 'image', 'ports', 'first', 'x', 'p').map((f) => ({ f })),
  keyValue.map((name) => ({ k: { name } })),
  fc.constantFrom(1, 2).map((p) => ({ k: { p } })),
  names.map((v) => ({ v })),
);
const spec = { f: 'spec' };
const items = { f: 'items' };
/** Paths along the object's shape (most find something), with items named by key or by whole value, and random ones. */
function pathsOf(obj: JsonObject): fc.Arbitrary<FieldPath> {
  const existing = ((obj['spec'] as JsonObject)['items'] as unknown[]).map((v) => ({ v }));
  const item: fc.Arbitrary<PathSegment> = existing.length > 0 ? fc.oneof(keyValue.map((name) => ({ k: { name } })), fc.constantFrom(...existing)) : keyValue.map((name) => ({ k: { name } }));
  return fc.oneof(
    item.map((k) => [spec, items, k]),
    fc.tuple(item, fc.constantFrom('name', 'image', 'ports')).map(([k, f]) => [spec, items, k, { f }]),
    fc.tuple(item, fc.constantFrom('first', 'x')).map(([k, f]) => [spec, items, k, { f: 'name' }, { f }]),
    fc.tuple(item, fc.constantFrom(1, 2)).map(([k, p]) => [spec, items, k, { f: 'ports' }, { k: { p } }]),
    fc.tuple(item, fc.constantFrom(1, 2)).map(([k, p]) => [spec, items, k, { f: 'ports' }, { k: { p } }, { f: 'p' }]),
    names.map((v) => [spec, { f: 'tags' }, { v }]),
    fc.array(segment, { minLength: 1, maxLength: 4 }),
  );
}
const setOf = (paths: FieldPath[]): FieldSet => {
  const set = new FieldSet();
  for (const p of paths) set.add(p);
  return set;
};

describe('field set walks', () => {
  test('a value read beside a set is the first matching item, as a scan reads it', () => {
    fc.assert(
      fc.property(object.chain((obj) => fc.tuple(fc.constant(obj), fc.array(pathsOf(obj), { maxLength: 12 }))), ([obj, paths]) => {
        const set = setOf(paths);
        const seen: unknown[] = [];
        visitMembers(set, [new ValueReader(obj)], ({ values }) => seen.push(values[0]));
        assert.deepEqual(seen, set.paths().map((p) => scanValueAt(obj, p)));
      }),
      { numRuns: 500 },
    );
  });

  test('removing the uncovered members in one walk leaves what removing them path by path leaves', () => {
    fc.assert(
      fc.property(object.chain((obj) => fc.tuple(fc.constant(obj), fc.array(pathsOf(obj), { maxLength: 12 }), fc.array(pathsOf(obj), { maxLength: 6 }))), ([obj, removed, kept]) => {
        const set = setOf(removed);
        const keeper = setOf(kept);
        const expected = structuredClone<JsonObject>(obj);
        for (const p of set.paths()) if (!keeper.hasAtOrBelow(p)) scanRemove(expected, p);
        const before = structuredClone<JsonObject>(obj);
        assert.deepEqual(withoutUncovered(obj, set, [keeper]), expected);
        assert.deepEqual(obj, before, 'the source is not changed');
      }),
      { numRuns: 2000 },
    );
  });

  test('20,000 list items: read and removed in linear time', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, image: 'x' }));
    const obj = { spec: { items } };
    const set = new FieldSet();
    for (const i of items) set.add([{ f: 'spec' }, { f: 'items' }, { k: { name: i.name } }, { f: 'image' }]);
    const started = performance.now();
    const values: unknown[] = [];
    visitMembers(set, [new ValueReader(obj)], ({ values: v }) => values.push(v[0]));
    const left = withoutUncovered(obj, set, []);
    const elapsedMs = performance.now() - started;
    assert.equal(values.length, 20_000);
    assert.ok(values.every((v) => v === 'x'));
    assert.deepEqual(left, { spec: { items: items.map((i) => ({ name: i.name })) } });
    // A scan per item is 2 x 10^8 comparisons here (seconds); linear work is a few milliseconds.
    assert.ok(elapsedMs < 1000, `took ${Math.round(elapsedMs)} ms`);
  });
});
