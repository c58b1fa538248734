/**
 * Properties of the JSON patch engine (RFC 6902, RFC 6901 pointers), on random documents and
 * operations (fast-check): pointers with `~` and `/` round-trip, `test` passes on the value a
 * pointer reaches and fails with 422 on any other, add-then-remove and replace behave as written,
 * move is copy-then-remove, and any list of operations either applies or fails with a 400/422
 * PatchError, atomically, never mutating the input.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isPatchError } from './patch-error.js';
import { applyJsonPatch, parseJsonPointer } from './json-patch.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys that need pointer escapes (`~0`, `~1`) among ordinary ones. */
const key = fc.constantFrom('a', 'b', 'spec', 'a/b', 'm~n', '~', '/', '', '0', '__proto__');
const leaf = fc.oneof(fc.boolean(), fc.integer({ min: -5, max: 5 }), fc.string({ maxLength: 3 }), fc.constant(null));
const { value: json } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((entries) => objectFrom(entries)),
  ),
}));
const doc = fc.array(fc.tuple(key, json), { maxLength: 4 }).map((entries) => objectFrom(entries) as Record<string, Json>);

/** An object with these own keys, as JSON.parse makes it (also `__proto__`). */
function objectFrom(entries: readonly [string, Json][]): Json {
  return JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Json;
}

function pointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** Every path in `value` that holds a value, the root included. */
function paths(value: Json, prefix: string[] = []): string[][] {
  const out = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, String(i)])));
  else if (typeof value === 'object' && value !== null) for (const k of Object.keys(value)) out.push(...paths(value[k]!, [...prefix, k]));
  return out;
}

function at(value: Json, tokens: readonly string[]): Json | undefined {
  let node: Json | undefined = value;
  for (const t of tokens) {
    if (Array.isArray(node)) node = node[Number(t)];
    else if (typeof node === 'object' && node !== null && Object.hasOwn(node, t)) node = node[t];
    else return undefined;
  }
  return node;
}

/** A document and one of its paths (not the root). */
const docAndPath = doc
  .filter((d) => paths(d).length > 1)
  .chain((d) => fc.constantFrom(...paths(d).slice(1)).map((p) => ({ doc: d, path: p })));

const rejectsWith = (status: 400 | 422) => (e: unknown): boolean => isPatchError(e) && e.status === status;

describe('JSON patch properties (RFC 6902)', () => {
  test('pointers with any tokens round-trip through their escapes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 5 }), (tokens) => {
        assert.deepEqual(parseJsonPointer(pointer(tokens)), tokens);
      }),
      { numRuns: 500 },
    );
  });

  test('test passes on the value a pointer reaches, and fails with 422 on any other', () => {
    fc.assert(
      fc.property(docAndPath, json, ({ doc: d, path }, other) => {
        const here = at(d, path)!;
        assert.deepEqual(applyJsonPatch(d, [{ op: 'test', path: pointer(path), value: here }]), d);
        if (JSON.stringify(other) !== JSON.stringify(here)) {
          assert.throws(() => applyJsonPatch(d, [{ op: 'test', path: pointer(path), value: other }]), rejectsWith(422));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('add of a new key then its remove gives the document back; replace puts the value there', () => {
    fc.assert(
      fc.property(docAndPath, json, ({ doc: d, path }, value) => {
        const parent = at(d, path.slice(0, -1));
        if (typeof parent === 'object' && parent !== null && !Array.isArray(parent)) {
          const fresh = [...path.slice(0, -1), 'fresh-key'];
          assert.deepEqual(applyJsonPatch(d, [{ op: 'add', path: pointer(fresh), value }, { op: 'remove', path: pointer(fresh) }]), d);
        }
        const replaced = applyJsonPatch(d, [{ op: 'replace', path: pointer(path), value }]);
        assert.deepEqual(at(replaced as Json, path), value);
      }),
      { numRuns: 300 },
    );
  });

  test('move is copy, then remove of the source', () => {
    fc.assert(
      fc.property(docAndPath, ({ doc: d, path }) => {
        const target = ['moved-here'];
        if (path[0] === 'moved-here') return;
        const moved = applyJsonPatch(d, [{ op: 'move', from: pointer(path), path: pointer(target) }]);
        const copied = applyJsonPatch(d, [
          { op: 'copy', from: pointer(path), path: pointer(target) },
          { op: 'remove', path: pointer(path) },
        ]);
        assert.deepEqual(moved, copied);
      }),
      { numRuns: 300 },
    );
  });

  test('any list of operations applies or fails with a 400/422 PatchError; the input never changes; a failure applies nothing', () => {
    const anyPointer = fc.oneof(
      fc.array(key, { maxLength: 3 }).map(pointer),
      fc.array(fc.constantFrom('0', '1', '-', '01', 'x'), { maxLength: 3 }).map(pointer),
      fc.constantFrom('', 'no-slash', '/~2', '/a~'),
    );
    const operation = fc.oneof(
      fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: anyPointer, value: json }),
      fc.record({ op: fc.constant('remove'), path: anyPointer }),
      fc.record({ op: fc.constantFrom('move', 'copy'), from: anyPointer, path: anyPointer }),
      fc.record({ op: fc.constantFrom('frobnicate', 7), path: anyPointer }),
      fc.record({ op: fc.constant('add'), path: anyPointer }),
      json,
    );
    fc.assert(
      fc.property(doc, fc.oneof(fc.array(operation, { maxLength: 5 }), json), (d, ops) => {
        const before = JSON.stringify(d);
        try {
          const result = applyJsonPatch(d, ops);
          assert.ok(typeof result === 'object' && result !== null && !Array.isArray(result), 'the result is an object');
        } catch (error) {
          assert.ok(isPatchError(error) && (error.status === 400 || error.status === 422), `threw ${String(error)}`);
        }
        assert.equal(JSON.stringify(d), before, 'the input is not mutated');
      }),
      { numRuns: 1000 },
    );
  });
});
