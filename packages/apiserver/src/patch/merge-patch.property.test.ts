/**
 * Properties of the JSON merge patch engine (RFC 7386), on random documents and patches
 * (fast-check): it agrees with the RFC's own definition, is idempotent, never mutates its input,
 * turns a computed difference back into the target, and keys like `__proto__` stay plain data.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isPatchError } from './patch-error.js';
import { applyMergePatch } from './merge-patch.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own property, also for `__proto__` (plain assignment would change the prototype). */
function put(target: Record<string, Json>, name: string, value: Json): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** The RFC 7386 section 2 pseudocode, read literally. */
function rfcMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const name of Object.keys(patch)) {
    const value = patch[name]!;
    if (value === null) delete result[name];
    else put(result, name, rfcMergePatch(Object.hasOwn(result, name) ? result[name]! : null, value));
  }
  return result;
}

/** The merge patch that turns `from` into `to` (for `to` without null values). */
function diff(from: Record<string, Json>, to: Record<string, Json>): Record<string, Json> {
  const patch: Record<string, Json> = {};
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) put(patch, key, null);
  for (const key of Object.keys(to)) {
    const a = Object.hasOwn(from, key) ? from[key] : undefined;
    const b = to[key]!;
    if (isObject(a) && isObject(b)) {
      const inner = diff(a, b);
      if (Object.keys(inner).length > 0) put(patch, key, inner);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      put(patch, key, b);
    }
  }
  return patch;
}

/** Keys from a small set (so that documents and patches overlap), `__proto__` and `constructor` among them. */
const key = fc.constantFrom('a', 'b', 'c', 'metadata', 'labels', '__proto__', 'constructor', 'x.y', '');
/** Random JSON, as it arrives over the wire (JSON.parse makes `__proto__` an own key). */
function jsonOf(withNull: boolean): fc.Arbitrary<Json> {
  const leaf = fc.oneof(fc.boolean(), fc.integer(), fc.string({ maxLength: 4 }), ...(withNull ? [fc.constant(null)] : []));
  const { value } = fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map((entries) => JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Json),
    ),
  }));
  return value;
}
const objectOf = (withNull: boolean): fc.Arbitrary<Record<string, Json>> =>
  fc.array(fc.tuple(key, jsonOf(withNull)), { maxLength: 5 }).map((entries) => JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Record<string, Json>);

describe('merge patch properties (RFC 7386)', () => {
  test('agrees with the RFC definition and leaves its input untouched', () => {
    fc.assert(
      fc.property(objectOf(false), objectOf(true), (doc, patch) => {
        const before = JSON.stringify(doc);
        const result = applyMergePatch(doc, patch);
        assert.deepEqual(JSON.parse(JSON.stringify(result)), JSON.parse(JSON.stringify(rfcMergePatch(doc, patch))));
        assert.equal(JSON.stringify(doc), before, 'the document is not mutated');
      }),
      { numRuns: 500 },
    );
  });

  test('is idempotent', () => {
    fc.assert(
      fc.property(objectOf(false), objectOf(true), (doc, patch) => {
        const once = applyMergePatch(doc, patch);
        assert.deepEqual(applyMergePatch(once, patch), once);
      }),
      { numRuns: 300 },
    );
  });

  test('the difference of two documents, applied to the first, gives the second', () => {
    fc.assert(
      fc.property(objectOf(false), objectOf(false), (from, to) => {
        assert.equal(JSON.stringify(sortKeys(applyMergePatch(from, diff(from, to)))), JSON.stringify(sortKeys(to)));
      }),
      { numRuns: 300 },
    );
  });

  test('__proto__ and constructor are plain keys: no prototype changes, anywhere', () => {
    fc.assert(
      fc.property(objectOf(false), objectOf(true), (doc, patch) => {
        const result = applyMergePatch(doc, patch);
        const walk = (v: unknown): void => {
          if (Array.isArray(v)) v.forEach(walk);
          else if (typeof v === 'object' && v !== null) {
            assert.equal(Object.getPrototypeOf(v), Object.prototype, 'every object of the result is a plain object');
            Object.values(v).forEach(walk);
          }
        };
        walk(result);
        assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      }),
      { numRuns: 300 },
    );
  });

  test('a patch that is not a JSON object is a 400 PatchError', () => {
    fc.assert(
      fc.property(objectOf(false), fc.oneof(fc.constant(null), fc.integer(), fc.string(), fc.array(fc.integer())), (doc, patch) => {
        assert.throws(() => applyMergePatch(doc, patch), (e: unknown) => isPatchError(e) && e.status === 400);
      }),
    );
  });
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}
