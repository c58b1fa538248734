import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonCodec, YamlCodec, decodeObject } from './codec.js';
import type { Codec } from './codec.js';
import { isCodecError } from './errors.js';
import type { CodecError } from './errors.js';
import type { KubeObject } from './object.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'prod' }, data: { greeting: 'héllo ✓' } };

function rejects(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: CodecError) => {
    assert.ok(isCodecError(err), String(err));
    assert.equal(err.code, 'CodecError');
    assert.match(err.message, message);
    return true;
  });
}

describe('JSON decoding', () => {
  const codec = new JsonCodec();
  const bad: { name: string; input: string | Uint8Array; message: RegExp }[] = [
    { name: 'malformed JSON', input: '{"apiVersion": "v1",', message: /malformed JSON/ },
    { name: 'an empty body', input: '', message: /malformed JSON/ },
    { name: 'an array instead of an object', input: '[{"apiVersion":"v1"}]', message: /expected a JSON object, got an array/ },
    { name: 'null', input: 'null', message: /got null/ },
    { name: 'a string', input: '"x"', message: /got a string/ },
    { name: 'a missing kind', input: '{"apiVersion":"v1","metadata":{"name":"a"}}', message: /missing kind$/ },
    { name: 'a missing apiVersion', input: '{"kind":"ConfigMap","metadata":{"name":"a"}}', message: /missing apiVersion$/ },
    { name: 'a missing name', input: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}', message: /missing metadata\.name$/ },
    { name: 'missing metadata', input: '{"apiVersion":"v1","kind":"ConfigMap"}', message: /missing metadata$/ },
    { name: 'an array as metadata', input: '{"apiVersion":"v1","kind":"ConfigMap","metadata":[]}', message: /missing metadata$/ },
    { name: 'a numeric kind and empty name', input: '{"apiVersion":"v1","kind":3,"metadata":{"name":""}}', message: /missing kind, metadata\.name$/ },
    { name: 'invalid UTF-8 bytes', input: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), message: /not valid UTF-8/ },
  ];
  for (const { name, input, message } of bad) {
    test(`rejects ${name} with a CodecError`, () => {
      rejects(() => codec.decode(input), message);
      rejects(() => decodeObject(input), message);
    });
  }

  test('keeps a cut copy of the offending input on the error', () => {
    const input = `{"x": "${'a'.repeat(500)}"`;
    assert.throws(
      () => codec.decode(input),
      (err: CodecError) => err.input === input.slice(0, 200),
    );
  });

  test('decodes UTF-8 bytes, including multibyte characters and a byte order mark', () => {
    const bytes = new TextEncoder().encode(`\uFEFF${JSON.stringify(configMap)}`);
    assert.deepEqual(codec.decode(bytes), configMap);
    assert.deepEqual(codec.decode(`\uFEFF${JSON.stringify(configMap)}`), configMap);
  });

  test('accepts an object with generateName instead of name (a create request)', () => {
    const obj = codec.decode('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"web-"}}');
    assert.equal(obj.metadata.generateName, 'web-');
  });

  test('encodes to JSON that decodes to the same object', () => {
    const text = codec.encode(configMap);
    assert.equal(codec.contentType, 'application/json');
    assert.equal(codec.encoding, 'json');
    assert.deepEqual(JSON.parse(text), configMap);
    assert.deepEqual(codec.decode(text), configMap);
  });
});

describe('a codec created for a kind', () => {
  const expect = { apiVersion: 'v1', kind: 'ConfigMap' };
  const codecs: Codec[] = [new JsonCodec({ expect }), new YamlCodec({ expect })];
  for (const codec of codecs) {
    test(`${codec.encoding}: rejects an object of another kind, naming both`, () => {
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } };
      rejects(() => codec.decode(codec.encode(secret)), /expected apiVersion "v1" kind "ConfigMap", got apiVersion "v1" kind "Secret"/);
    });
    test(`${codec.encoding}: rejects the right kind in another apiVersion`, () => {
      const other = { apiVersion: 'example.com/v1', kind: 'ConfigMap', metadata: { name: 'a' } };
      rejects(() => codec.decode(codec.encode(other)), /got apiVersion "example.com\/v1" kind "ConfigMap"/);
    });
    test(`${codec.encoding}: accepts its own kind`, () => {
      assert.deepEqual(codec.decode(codec.encode(configMap)), configMap);
    });
  }
});

describe('YAML', () => {
  const codec = new YamlCodec<KubeObject>();

  test('round-trips an object through encode and decode', () => {
    const obj = { ...configMap, metadata: { ...configMap.metadata, labels: { app: 'web' } }, spec: { n: 3, on: true, list: ['a', 'b'], none: null } };
    const text = codec.encode(obj);
    assert.equal(codec.contentType, 'application/yaml');
    assert.match(text, /^apiVersion: v1\nkind: ConfigMap\n/);
    assert.deepEqual(codec.decode(text), obj);
  });

  test('decodes values with the core schema, like the API server sees JSON', () => {
    const obj = codec.decode('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  date: 2026-01-02\n  "on": "yes"\n');
    assert.deepEqual(obj.data, { date: '2026-01-02', on: 'yes' });
  });

  test('decodes UTF-8 bytes', () => {
    const bytes = new TextEncoder().encode(codec.encode(configMap));
    assert.deepEqual(codec.decode(bytes), configMap);
  });

  const bad: { name: string; input: string; message: RegExp }[] = [
    { name: 'malformed YAML', input: 'apiVersion: v1\nkind: [ConfigMap\n', message: /malformed YAML/ },
    { name: 'several documents', input: 'apiVersion: v1\n---\napiVersion: v1\n', message: /malformed YAML/ },
    { name: 'a list', input: '- a\n- b\n', message: /got an array/ },
    { name: 'a scalar', input: 'hello\n', message: /got a string/ },
    { name: 'a missing name', input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n', message: /missing metadata\.name/ },
  ];
  for (const { name, input, message } of bad) {
    test(`rejects ${name} with a CodecError`, () => rejects(() => codec.decode(input), message));
  }
});
