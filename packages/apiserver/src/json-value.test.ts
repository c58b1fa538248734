import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonEqual } from './json-value.js';

describe('jsonEqual', () => {
  test('compares JSON values deeply, ignoring object key order but not array order', () => {
    assert.equal(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
    assert.equal(jsonEqual([1, 2], [2, 1]), false);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(jsonEqual({ a: [] }, { a: {} }), false);
    assert.equal(jsonEqual(null, {}), false);
    assert.equal(jsonEqual(1, '1'), false);
  });

  test('treats a property holding undefined as absent, as JSON.stringify would', () => {
    assert.equal(jsonEqual({ a: 1, status: undefined }, { a: 1 }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, status: undefined }), true);
    assert.equal(jsonEqual({ a: undefined }, { a: null }), false);
  });

  test('reads only own properties, so a parsed "__proto__" key is compared like any other', () => {
    const withProto = JSON.parse('{"__proto__":{}}') as unknown;
    assert.equal(jsonEqual(withProto, {}), false);
    assert.equal(jsonEqual({}, withProto), false);
    assert.equal(jsonEqual(withProto, JSON.parse('{"__proto__":{}}')), true);
    assert.equal(jsonEqual({ constructor: 1 }, { constructor: 1 }), true);
  });
});
