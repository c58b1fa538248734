/**
 * A value the worker thread cuts into pieces comes back as the same value: same members in the
 * same order, `__proto__` keys as plain data, containers cut at any depth; and the loop pauses
 * between pieces rather than parsing a large value in one turn.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cutJson, joinJsonPieces, jsonPieceChars } from './json-pieces.js';

/** JSON values with keys that include the prototype's names. */
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 8 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf')), tie('value'), { maxKeys: 8 }),
})).value;

describe('JSON pieces', () => {
  test('any value, cut into pieces of any size, joins back to itself with its keys in order', async () => {
    await fc.assert(
      fc.asyncProperty(jsonValue, fc.integer({ min: 1, max: 64 }), async (value, maxChars) => {
        const joined = await joinJsonPieces(cutJson(value, maxChars));
        // The text compares order too; deepEqual compares `__proto__` as an own key.
        assert.equal(JSON.stringify(joined), JSON.stringify(value));
        assert.deepEqual(joined, JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  test('a `__proto__` key stays an own member and never changes a prototype', async () => {
    const value = JSON.parse('{"a":{"__proto__":{"polluted":true},"b":[1,2,3]},"__proto__":[{"x":1}]}') as Record<string, unknown>;
    const joined = (await joinJsonPieces(cutJson(value, 4))) as Record<string, unknown>;
    assert.ok(Object.hasOwn(joined, '__proto__'));
    assert.equal(Object.getPrototypeOf(joined), Object.prototype);
    assert.equal(Object.getPrototypeOf(joined['a']), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(JSON.stringify(joined), JSON.stringify(value));
  });

  test('a large value is cut into pieces of about the piece size; a small one is one piece', () => {
    const containers = Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, image: 'nginx' }));
    const deployment = { spec: { template: { spec: { containers } } }, metadata: { name: 'wide' } };
    const pieces = cutJson(deployment);
    const total = JSON.stringify(deployment).length;
    assert.ok(pieces.length >= total / jsonPieceChars, `${pieces.length} pieces for ${total} characters`);
    assert.ok(pieces.every((p) => p.json.length <= jsonPieceChars + 100), 'no piece much over the size');
    assert.equal(cutJson({ small: true }).length, 1);
  });

  test('joining pieces lets the event loop turn: a timer set before the join fires before it ends', async () => {
    const data = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`key-${i}`, `value-${i}`]));
    const pieces = cutJson({ data });
    let fired = false;
    setTimeout(() => (fired = true), 0);
    const joined = (await joinJsonPieces(pieces)) as { data: Record<string, string> };
    assert.equal(Object.keys(joined.data).length, 200_000);
    assert.ok(fired, 'the loop turned while the pieces were joined');
  });
});
