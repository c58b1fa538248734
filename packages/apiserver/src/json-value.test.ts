import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cloneJson, jsonEqual } from './json-value.js';

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

describe('cloneJson', () => {
  test('copies a JSON value deeply: equal, and no object or array is shared', () => {
    const source = { a: 1, b: [1, { c: 'x' }], d: { e: null, f: true, g: { h: [] } } };
    const copy = cloneJson(source);
    assert.deepEqual(copy, source);
    assert.notEqual(copy.b, source.b);
    assert.notEqual(copy.b[1], source.b[1]);
    assert.notEqual(copy.d.g, source.d.g);
    assert.notEqual(copy.d.g.h, source.d.g.h);
  });

  test('keeps a parsed "__proto__" key as an own property and leaves the prototype alone', () => {
    const source = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = cloneJson(source);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'a']);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.equal(JSON.stringify(copy), JSON.stringify(source));
  });

  test('copies only own properties, in their order', () => {
    const proto = { inherited: 1 };
    const source = Object.assign(Object.create(proto) as Record<string, unknown>, { z: 1, a: 2 });
    assert.deepEqual(Object.keys(cloneJson(source)), ['z', 'a']);
  });
});
