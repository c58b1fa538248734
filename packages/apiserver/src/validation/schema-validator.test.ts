import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CrdSchemaValidator } from './schema-validator.js';
import type { FieldCause } from './schema-validator.js';
import { SchemaCompileError } from './schema-compile-error.js';

const header = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' } };

function objectSchema(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', properties: { spec: { type: 'object', properties, ...extra } } };
}

function causesFor(specSchema: Record<string, unknown>, spec: unknown, extra: Record<string, unknown> = {}): FieldCause[] {
  return new CrdSchemaValidator(objectSchema(specSchema, extra)).validate({ ...header, spec });
}

describe('CrdSchemaValidator.validate', () => {
  const cases: { name: string; schema: Record<string, unknown>; spec: unknown; extra?: Record<string, unknown>; want: FieldCause[] }[] = [
    {
      name: 'accepts a value of the declared type',
      schema: { replicas: { type: 'integer' }, name: { type: 'string' }, on: { type: 'boolean' }, ratio: { type: 'number' } },
      spec: { replicas: 3, name: 'x', on: true, ratio: 0.5 },
      want: [],
    },
    {
      name: 'reports a string where an integer is declared like the real server',
      schema: { replicas: { type: 'integer' } },
      spec: { replicas: 'string' },
      want: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
          field: 'spec.replicas',
        },
      ],
    },
    {
      name: 'reports a fraction where an integer is declared as a number',
      schema: { replicas: { type: 'integer' } },
      spec: { replicas: 1.5 },
      want: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "number": spec.replicas in body must be of type integer: "number"',
          field: 'spec.replicas',
        },
      ],
    },
    {
      name: 'reports an object where a string is declared',
      schema: { name: { type: 'string' } },
      spec: { name: { a: 1 } },
      want: [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "object": spec.name in body must be of type string: "object"', field: 'spec.name' }],
    },
    {
      name: 'reports a missing required field with its full path',
      schema: { replicas: { type: 'integer' } },
      extra: { required: ['replicas'] },
      spec: {},
      want: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.replicas' }],
    },
    {
      name: 'reports a value outside the enum with the supported values',
      schema: { color: { type: 'string', enum: ['red', 'blue'] } },
      spec: { color: 'x' },
      want: [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "x": supported values: "red", "blue"', field: 'spec.color' }],
    },
    {
      name: 'quotes non-string enum values as JSON',
      schema: { size: { type: 'integer', enum: [1, 2] } },
      spec: { size: 3 },
      want: [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: 3: supported values: "1", "2"', field: 'spec.size' }],
    },
    {
      name: 'checks the date-time format',
      schema: { when: { type: 'string', format: 'date-time' } },
      spec: { when: 'yesterday' },
      want: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
          field: 'spec.when',
        },
      ],
    },
    {
      name: 'accepts a valid date-time, byte, uuid, email and ipv4',
      schema: {
        when: { type: 'string', format: 'date-time' },
        data: { type: 'string', format: 'byte' },
        id: { type: 'string', format: 'uuid' },
        mail: { type: 'string', format: 'email' },
        ip: { type: 'string', format: 'ipv4' },
      },
      spec: { when: '2024-05-01T10:00:00Z', data: 'aGVsbG8=', id: '0b6ad2b6-4d65-4bde-9b36-8a5d6d0e8f3a', mail: 'a@example.com', ip: '10.0.0.1' },
      want: [],
    },
    {
      name: 'rejects base64 that is not base64 for format byte',
      schema: { data: { type: 'string', format: 'byte' } },
      spec: { data: 'not base64!' },
      want: [
        { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "not base64!": spec.data in body must be of type byte: "not base64!"', field: 'spec.data' },
      ],
    },
    {
      name: 'ignores numeric formats and formats Kubernetes does not know',
      schema: { n: { type: 'integer', format: 'int32' }, m: { type: 'integer', format: 'int64' }, s: { type: 'string', format: 'made-up' } },
      spec: { n: 2 ** 40, m: 1, s: 'anything' },
      want: [],
    },
    {
      name: 'accepts Go durations for format duration',
      schema: { every: { type: 'string', format: 'duration' } },
      spec: { every: '1h30m' },
      want: [],
    },
    {
      name: 'reports pattern, minLength and maxLength failures',
      schema: { name: { type: 'string', pattern: '^[a-z]+$', minLength: 2, maxLength: 4 } },
      spec: { name: 'ABCDEF' },
      want: [
        { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 4 bytes', field: 'spec.name' },
        { reason: 'FieldValueInvalid', message: `Invalid value: "ABCDEF": spec.name in body should match '^[a-z]+$'`, field: 'spec.name' },
      ],
    },
    {
      name: 'reports minimum and OpenAPI 3.0 boolean exclusiveMaximum',
      schema: { low: { type: 'integer', minimum: 1 }, high: { type: 'integer', maximum: 10, exclusiveMaximum: true } },
      spec: { low: 0, high: 10 },
      want: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: 0: spec.low in body should be greater than or equal to 1', field: 'spec.low' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: 10: spec.high in body should be less than 10', field: 'spec.high' },
      ],
    },
    {
      name: 'reports maxItems as too many and minItems as invalid',
      schema: { many: { type: 'array', maxItems: 2, items: { type: 'string' } }, few: { type: 'array', minItems: 1, items: { type: 'string' } } },
      spec: { many: ['a', 'b', 'c'], few: [] },
      want: [
        { reason: 'FieldValueTooMany', message: 'Too many: 3: must have at most 2 items', field: 'spec.many' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: 0: spec.few in body should have at least 1 items', field: 'spec.few' },
      ],
    },
    {
      name: 'names fields inside nested arrays of objects with indexes',
      schema: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, ports: { type: 'array', items: { type: 'integer' } } },
          },
        },
      },
      spec: { items: [{ name: 'a', ports: [80, 'http'] }, { ports: [] }] },
      want: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "string": spec.items[0].ports[1] in body must be of type integer: "string"',
          field: 'spec.items[0].ports[1]',
        },
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.items[1].name' },
      ],
    },
    {
      name: 'validates the values of a map declared with additionalProperties',
      schema: { limits: { type: 'object', additionalProperties: { type: 'integer' } } },
      spec: { limits: { cpu: 1, memory: 'lots' } },
      want: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "string": spec.limits.memory in body must be of type integer: "string"',
          field: 'spec.limits.memory',
        },
      ],
    },
    {
      name: 'accepts an integer or a string for x-kubernetes-int-or-string',
      schema: { a: { 'x-kubernetes-int-or-string': true }, b: { 'x-kubernetes-int-or-string': true } },
      spec: { a: 8080, b: 'http' },
      want: [],
    },
    {
      name: 'rejects other types for x-kubernetes-int-or-string',
      schema: { port: { 'x-kubernetes-int-or-string': true } },
      spec: { port: true },
      want: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
          field: 'spec.port',
        },
      ],
    },
    {
      name: 'accepts null only in nullable fields',
      schema: { a: { type: 'string', nullable: true }, b: { type: 'array', items: { type: 'string' } } },
      spec: { a: null, b: [null] },
      want: [
        { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "null": spec.b[0] in body must be of type string: "null"', field: 'spec.b[0]' },
      ],
    },
    {
      name: 'accepts anything under x-kubernetes-preserve-unknown-fields without a type',
      schema: { config: { 'x-kubernetes-preserve-unknown-fields': true } },
      spec: { config: { deeply: { nested: [1, 'two', null] } } },
      want: [],
    },
    {
      name: 'reports duplicates in a list of type set',
      schema: { tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
      spec: { tags: ['a', 'b', 'a'] },
      want: [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"', field: 'spec.tags[2]' }],
    },
    {
      name: 'compares items of a set of atomic objects by value, whatever their key order',
      schema: { pairs: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': true } } },
      spec: { pairs: [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, { a: 1, b: [{ c: 2 }, 1] }] },
      want: [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: {"b":[1,{"c":2}],"a":1}', field: 'spec.pairs[1]' }],
    },
    {
      name: 'reports duplicate keys in a list of type map',
      schema: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
      },
      spec: { ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }] },
      want: [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: {"name":"http"}', field: 'spec.ports[1]' }],
    },
    {
      name: 'requires apiVersion and kind in an embedded resource',
      schema: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
      spec: { template: { kind: 'Pod' } },
      want: [{ reason: 'FieldValueRequired', message: 'Required value: must not be empty', field: 'spec.template.apiVersion' }],
    },
    {
      name: 'reports a failed anyOf once, not each branch',
      schema: { choice: { anyOf: [{ type: 'string', pattern: '^a' }, { type: 'integer' }] } },
      spec: { choice: 'b' },
      want: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: "b": spec.choice in body must validate at least one schema (anyOf)', field: 'spec.choice' },
      ],
    },
    {
      name: 'reports every failure at once',
      schema: { a: { type: 'integer' }, b: { type: 'string', enum: ['x'] } },
      extra: { required: ['c'] },
      spec: { a: 'no', b: 'y' },
      want: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.c' },
        { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.a in body must be of type integer: "string"', field: 'spec.a' },
        { reason: 'FieldValueNotSupported', message: 'Unsupported value: "y": supported values: "x"', field: 'spec.b' },
      ],
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(causesFor(c.schema, c.spec, c.extra), c.want);
    });
  }

  test('validates a required spec at the top level', () => {
    const v = new CrdSchemaValidator({ type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } });
    assert.deepEqual(v.validate({ ...header }), [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec' }]);
  });

  test('validates metadata only against what the schema declares', () => {
    const v = new CrdSchemaValidator({
      type: 'object',
      properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 3 } } } },
    });
    assert.deepEqual(v.validate({ ...header, metadata: { name: 'ok', labels: { a: 'b' } } }), []);
    assert.deepEqual(v.validate({ ...header, metadata: { name: 'toolong' } }), [
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 3 bytes', field: 'metadata.name' },
    ]);
  });

  test('is fast once compiled', () => {
    const v = new CrdSchemaValidator(objectSchema({ replicas: { type: 'integer' }, name: { type: 'string', pattern: '^[a-z]+$' } }));
    const obj = { ...header, spec: { replicas: 1, name: 'abc' } };
    const start = performance.now();
    for (let i = 0; i < 10_000; i++) v.validate(obj);
    assert.ok(performance.now() - start < 500, 'validating 10k objects should take well under 500 ms');
  });
});

describe('CrdSchemaValidator.prune', () => {
  test('removes undeclared fields at every depth and keeps declared ones', () => {
    const v = new CrdSchemaValidator(
      objectSchema({
        replicas: { type: 'integer' },
        template: { type: 'object', properties: { image: { type: 'string' } } },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      }),
    );
    const obj = {
      ...header,
      spec: { replicas: 1, unknown: true, template: { image: 'nginx', extra: 1 }, items: [{ name: 'a', junk: 2 }] },
      other: 'top-level unknown',
    };
    const removed = v.prune(obj);
    assert.deepEqual(obj, { ...header, spec: { replicas: 1, template: { image: 'nginx' }, items: [{ name: 'a' }] } });
    assert.deepEqual(removed, ['spec.unknown', 'spec.template.extra', 'spec.items[0].junk', 'other']);
  });

  test('never touches apiVersion, kind or metadata', () => {
    const v = new CrdSchemaValidator({ type: 'object', properties: { spec: { type: 'object' } } });
    const obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' }, anything: 1 }, spec: {} };
    v.prune(obj);
    assert.deepEqual(obj, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' }, anything: 1 }, spec: {} });
  });

  test('keeps unknown fields under x-kubernetes-preserve-unknown-fields but still prunes declared subtrees', () => {
    const v = new CrdSchemaValidator(
      objectSchema(
        { known: { type: 'object', properties: { a: { type: 'string' } } } },
        { 'x-kubernetes-preserve-unknown-fields': true },
      ),
    );
    const obj = { ...header, spec: { free: { x: [1] }, known: { a: 'x', b: 'pruned' } } };
    v.prune(obj);
    assert.deepEqual(obj.spec, { free: { x: [1] }, known: { a: 'x' } });
  });

  test('keeps every key of a map declared with additionalProperties and prunes inside the values', () => {
    const v = new CrdSchemaValidator(
      objectSchema({ byName: { type: 'object', additionalProperties: { type: 'object', properties: { port: { type: 'integer' } } } } }),
    );
    const obj = { ...header, spec: { byName: { web: { port: 80, junk: 1 }, db: { port: 5432 } } } };
    v.prune(obj);
    assert.deepEqual(obj.spec, { byName: { web: { port: 80 }, db: { port: 5432 } } });
  });

  test('removes null from fields that are not nullable and keeps it in nullable ones', () => {
    const v = new CrdSchemaValidator(objectSchema({ a: { type: 'string' }, b: { type: 'string', nullable: true } }));
    const obj = { ...header, spec: { a: null, b: null } };
    assert.deepEqual(v.prune(obj), [], 'a dropped null is not an unknown field');
    assert.deepEqual(obj.spec, { b: null });
    assert.deepEqual(v.validate(obj), []);
  });

  test('keeps apiVersion, kind and metadata inside an embedded resource', () => {
    const v = new CrdSchemaValidator(
      objectSchema({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } } }),
    );
    const obj = { ...header, spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {}, junk: 1 } } };
    v.prune(obj);
    assert.deepEqual(obj.spec, { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } });
  });

  test('removes every field of an object schema without properties', () => {
    const v = new CrdSchemaValidator(objectSchema({ empty: { type: 'object' } }));
    const obj = { ...header, spec: { empty: { a: 1 } } };
    v.prune(obj);
    assert.deepEqual(obj.spec, { empty: {} });
  });
});

describe('CrdSchemaValidator.applyDefaults', () => {
  test('fills missing fields with a copy of their default, at every depth', () => {
    const v = new CrdSchemaValidator(
      objectSchema({
        replicas: { type: 'integer', default: 1 },
        tags: { type: 'array', items: { type: 'string' }, default: ['a'] },
        items: { type: 'array', items: { type: 'object', properties: { weight: { type: 'integer', default: 5 } } } },
      }),
    );
    const one: Record<string, unknown> = { ...header, spec: { items: [{}, { weight: 2 }] } };
    const two: Record<string, unknown> = { ...header, spec: { replicas: 3 } };
    v.applyDefaults(one);
    v.applyDefaults(two);
    assert.deepEqual(one['spec'], { replicas: 1, tags: ['a'], items: [{ weight: 5 }, { weight: 2 }] });
    assert.deepEqual(two['spec'], { replicas: 3, tags: ['a'] });
    ((one['spec'] as { tags: string[] }).tags).push('mutated');
    assert.deepEqual((two['spec'] as { tags: string[] }).tags, ['a'], 'defaults must be copies');
  });
});

describe('validation cost', () => {
  test('a set of 20,000 atomic objects is checked for duplicates in linear time', () => {
    const validator = new CrdSchemaValidator(
      objectSchema({ pairs: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': true } } }),
    );
    const pairs = Array.from({ length: 20_000 }, (_, i) => ({ key: `k${i}`, value: { n: i, tags: ['x', 'y'] } }));
    pairs.push({ key: 'k7', value: { n: 7, tags: ['x', 'y'] } });
    // Comparing every pair (Ajv's uniqueItems) is 2 * 10^8 deep comparisons: tens of seconds.
    const started = performance.now();
    const causes = validator.validate({ ...header, spec: { pairs } });
    const elapsedMs = performance.now() - started;
    assert.deepEqual(causes.map((c) => c.field), ['spec.pairs[20000]']);
    assert.ok(elapsedMs < 3000, `validated in ${Math.round(elapsedMs)} ms`);
  });
});

describe('schema compilation', () => {
  test('rejects a pattern that is not a regular expression with a SchemaCompileError naming it', () => {
    assert.throws(
      () => new CrdSchemaValidator(objectSchema({ name: { type: 'string', pattern: '([a-z' } })),
      (err: unknown) => err instanceof SchemaCompileError && err.field === 'properties[spec].properties[name].pattern' && err.code === 'SchemaCompileError',
    );
  });

  test('rejects an unknown type', () => {
    assert.throws(() => new CrdSchemaValidator(objectSchema({ a: { type: 'map' } })), SchemaCompileError);
  });

  test('validators are independent: one compiled schema does not change another', () => {
    const integers = new CrdSchemaValidator(objectSchema({ a: { type: 'integer' } }));
    const strings = new CrdSchemaValidator(objectSchema({ a: { type: 'string' } }));
    assert.deepEqual(integers.validate({ ...header, spec: { a: 1 } }), []);
    assert.deepEqual(strings.validate({ ...header, spec: { a: 'x' } }), []);
    assert.equal(integers.validate({ ...header, spec: { a: 'x' } }).length, 1);
    assert.equal(strings.validate({ ...header, spec: { a: 1 } }).length, 1);
  });
});
