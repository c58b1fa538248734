import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '@kubeloop/resource';
import { isCodegenError } from './codegen-error.js';
import { SchemaEmitter } from './schema-to-type.js';
import { pascalCase, singularTypeName } from './ts-syntax.js';

const context = { where: 'test.yaml: CustomResourceDefinition widgets.example.com version v1', owner: 'Widget' };

function typeOf(schema: JSONSchemaProps, emitter = new SchemaEmitter()): string {
  return emitter.typeOf(schema, 'WidgetSpecField', context, 'spec.field').join(' | ');
}

describe('SchemaEmitter.typeOf', () => {
  const cases: [string, JSONSchemaProps, string][] = [
    ['a string is string', { type: 'string' }, 'string'],
    ['a formatted string is still string', { type: 'string', format: 'date-time' }, 'string'],
    ['an integer is number', { type: 'integer', format: 'int64' }, 'number'],
    ['a number is number', { type: 'number' }, 'number'],
    ['a boolean is boolean', { type: 'boolean' }, 'boolean'],
    ['an array is an array of its items', { type: 'array', items: { type: 'string' } }, 'string[]'],
    ['an array of unions parenthesizes the element', { type: 'array', items: { type: 'string', nullable: true } }, '(string | null)[]'],
    ['a string enum is a union of literals', { type: 'string', enum: ['A', "it's"] }, "'A' | 'it\\'s'"],
    ['a mixed enum keeps numbers, booleans and null', { enum: [1, true, null, 'x'] }, "1 | true | null | 'x'"],
    ['int-or-string is number | string', { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'number | string'],
    ['preserve-unknown-fields on an object is a record of unknown', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'Record<string, unknown>'],
    ['preserve-unknown-fields without a type is unknown', { 'x-kubernetes-preserve-unknown-fields': true }, 'unknown'],
    ['additionalProperties with a schema is a record of it', { type: 'object', additionalProperties: { type: 'integer' } }, 'Record<string, number>'],
    ['additionalProperties true is a record of unknown', { type: 'object', additionalProperties: true }, 'Record<string, unknown>'],
    ['an object without fields holds nothing', { type: 'object' }, 'Record<string, never>'],
    ['an embedded resource is a KubeObject', { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, 'KubeObject'],
    ['nullable adds null', { type: 'integer', nullable: true }, 'number | null'],
    ['nullable does not repeat a null enum value', { type: 'string', enum: ['a', null], nullable: true }, "'a' | null"],
    ['an object with properties is a named interface', { type: 'object', properties: { a: { type: 'string' } } }, 'WidgetSpecField'],
    ['the type of an object can be inferred from its properties', { properties: { a: { type: 'string' } } }, 'WidgetSpecField'],
  ];
  for (const [name, schema, expected] of cases) {
    test(name, () => assert.equal(typeOf(schema), expected));
  }

  test('object fields become interfaces with docs, required fields and quoted names', () => {
    const emitter = new SchemaEmitter();
    const schema: JSONSchemaProps = {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', description: 'The name.' },
        'app.kubernetes.io/part-of': { type: 'string', format: 'hostname', default: 'web' },
        ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } } } },
      },
    };
    assert.equal(typeOf(schema, emitter), 'WidgetSpecField');
    assert.deepEqual(emitter.declarations, [
      [
        '/** `spec.field` of {@link Widget}. */',
        'export interface WidgetSpecField {',
        '  /** The name. */',
        '  name: string;',
        '  /** Format: `hostname`. Default: `"web"`. */',
        "  'app.kubernetes.io/part-of'?: string;",
        '  ports?: WidgetSpecFieldPort[];',
        '}',
      ].join('\n'),
      ['/** `spec.field.ports[]` of {@link Widget}. */', 'export interface WidgetSpecFieldPort {', '  port?: number;', '}'].join('\n'),
    ]);
  });

  test('nested interface names stay unique and avoid reserved names', () => {
    const emitter = new SchemaEmitter(['WidgetSpecField']);
    const object: JSONSchemaProps = { type: 'object', properties: { a: { type: 'string' } } };
    assert.equal(typeOf(object, emitter), 'WidgetSpecField2');
    assert.equal(typeOf(object, emitter), 'WidgetSpecField3');
  });

  test('an object that keeps unknown fields gets an index signature', () => {
    const emitter = new SchemaEmitter();
    typeOf({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'boolean' } } }, emitter);
    assert.match(emitter.declarations[0] ?? '', /\n {2}\[field: string\]: unknown;\n\}$/);
  });

  test('a long union is written one member per line', () => {
    const emitter = new SchemaEmitter();
    const values = Array.from({ length: 12 }, (_, i) => `VeryLongEnumerationValueNumber${i}`);
    typeOf({ type: 'object', properties: { phase: { type: 'string', enum: values } } }, emitter);
    const lines = (emitter.declarations[0] ?? '').split('\n');
    assert.equal(lines[2], '  phase?:');
    assert.equal(lines[3], "    | 'VeryLongEnumerationValueNumber0'");
    assert.equal(lines[14], "    | 'VeryLongEnumerationValueNumber11';");
  });

  const failures: [string, JSONSchemaProps, RegExp][] = [
    ['a field without a type', { description: 'x' }, /spec\.field: has no "type"/],
    ['an unknown type', { type: 'date' }, /has type "date", which kubeloop-codegen cannot map/],
    ['an array without items', { type: 'array' }, /spec\.field: is an array without "items"/],
    ['an array with tuple items', { type: 'array', items: [{ type: 'string' }] }, /tuple "items"/],
    ['an object with properties beside additionalProperties', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }, /both "properties" and "additionalProperties"/],
    ['an enum of objects', { enum: [{ a: 1 }] }, /enum value \{"a":1\} that is not a string/],
    ['a $ref', { $ref: '#/definitions/x' } as JSONSchemaProps, /uses "\$ref"/],
    ['a bad nested field', { type: 'object', properties: { a: { type: 'array', items: { type: 'null' } } } }, /spec\.field\.a\[\]: has type "null"/],
  ];
  for (const [name, schema, message] of failures) {
    test(`${name} is a CodegenError naming the CRD and the path`, () => {
      assert.throws(
        () => typeOf(schema),
        (err: unknown) => isCodegenError(err) && err.message.startsWith(`${context.where}: `) && message.test(err.message),
      );
    });
  }
});

describe('type names', () => {
  const pascal: [string, string][] = [['targetRef', 'TargetRef'], ['app.kubernetes.io/name', 'AppKubernetesIoName'], ['v1beta1', 'V1beta1'], ['3d', 'N3d'], ['--', 'Field']];
  for (const [input, expected] of pascal) test(`pascalCase turns ${JSON.stringify(input)} into ${expected}`, () => assert.equal(pascalCase(input), expected));
  const singular: [string, string][] = [['Targets', 'Target'], ['Policies', 'Policy'], ['Addresses', 'Address'], ['Patches', 'Patch'], ['Status', 'StatusItem'], ['Data', 'DataItem'], ['Keys', 'Key']];
  for (const [input, expected] of singular) test(`the element of an array named ${input} is ${expected}`, () => assert.equal(singularTypeName(input), expected));
});
