/**
 * Maps the structural OpenAPI v3 schemas of CRDs to TypeScript types. Objects with properties
 * become named interfaces (collected in file order); everything else is a type expression.
 */
import type { JSONSchemaProps } from '@kubeloop/resource';
import { CodegenError } from './codegen-error.js';
import { docComment, pascalCase, propertyName, singularTypeName, stringLiteral } from './ts-syntax.js';

/** Where a schema comes from, for messages and docs. */
export interface SchemaContext {
  /** Prefix of error messages, e.g. `fixtures/a.yaml: CustomResourceDefinition backups.example.com version v1`. */
  readonly where: string;
  /** The object type the schema belongs to, linked from the docs of nested interfaces, e.g. `Backup`. */
  readonly owner: string;
}

/** Keys that would change the shape of a value but have no faithful TypeScript mapping here. */
const unsupportedKeys = ['$ref', 'patternProperties', 'additionalItems', 'dependencies'] as const;
const maxLineLength = 120;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Whether a root schema becomes an interface of its own (rather than a type alias). */
function isObjectWithProperties(schema: unknown): boolean {
  if (!isRecord(schema) || schema['x-kubernetes-int-or-string'] === true || schema['x-kubernetes-embedded-resource'] === true) return false;
  const { type, properties, enum: values } = schema;
  return values === undefined && (type === undefined || type === 'object') && isRecord(properties) && Object.keys(properties).length > 0;
}

/** A line `head type;`, broken into one union member per line when it is too long. */
function typeLines(head: string, union: readonly string[], indent: string): string[] {
  const single = `${head} ${union.join(' | ')};`;
  if (single.length <= maxLineLength || union.length < 2) return [single];
  return [head, ...union.map((t, i) => `${indent}  | ${t}${i === union.length - 1 ? ';' : ''}`)];
}

/** The TSDoc notes of a property beyond its description: format and default. */
function notes(schema: JSONSchemaProps): string | undefined {
  const parts: string[] = [];
  if (typeof schema.format === 'string') parts.push(`Format: \`${schema.format}\`.`);
  if (schema.default !== undefined) parts.push(`Default: \`${JSON.stringify(schema.default)}\`.`);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/**
 * Turns schemas into TypeScript declarations for one output file. Nested interface names are
 * derived from their path (`BackupSpecTarget` for `spec.targets[]`) and kept unique in the file.
 */
export class SchemaEmitter {
  readonly #names: Set<string>;
  readonly #declarations: string[] = [];

  /** @param reserved names nested interfaces must not take (the top-level names of the file). */
  constructor(reserved: Iterable<string> = []) {
    this.#names = new Set(reserved);
  }

  /** Every declaration so far, in file order, each a block of text without a trailing newline. */
  get declarations(): readonly string[] {
    return this.#declarations;
  }

  /** Appends a declaration written elsewhere (the object type, the Kind constant). */
  add(text: string): void {
    this.#declarations.push(text);
  }

  /**
   * Declares `name` for a root schema (`spec`, `status`): an interface when it is an object with
   * properties, a type alias otherwise. `doc` is used when the schema has no description.
   * @throws CodegenError for a construct without a mapping.
   */
  declareRoot(name: string, schema: JSONSchemaProps, context: SchemaContext, path: string, doc: string): void {
    this.#names.add(name);
    if (isObjectWithProperties(schema)) {
      this.declareInterface(name, schema, context, path, docComment([schema.description ?? doc]));
      return;
    }
    const union = this.typeOf(schema, name, context, path);
    this.#declarations.push([...docComment([schema.description ?? doc, notes(schema)]), ...typeLines(`export type ${name} =`, union, '')].join('\n'));
  }

  /**
   * Declares `export interface name` for an object schema with properties.
   * @param heritage e.g. `extends KubeObject<Spec, Status>`. Default: none.
   */
  declareInterface(name: string, schema: JSONSchemaProps, context: SchemaContext, path: string, doc: string[], heritage = ''): void {
    // Reserve the slot first so a parent precedes the interfaces of its fields.
    const slot = this.#declarations.push('') - 1;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const lines = [...doc, `export interface ${name} ${heritage === '' ? '' : `${heritage} `}{`];
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const union = this.typeOf(property, `${name}${pascalCase(key)}`, context, join(path, key));
      lines.push(...docComment([property.description, notes(property)], '  '));
      lines.push(...typeLines(`  ${propertyName(key)}${required.has(key) ? '' : '?'}:`, union, '  '));
    }
    if (schema['x-kubernetes-preserve-unknown-fields'] === true) {
      lines.push('  /** Fields the schema does not name are kept (`x-kubernetes-preserve-unknown-fields`). */');
      lines.push('  [field: string]: unknown;');
    }
    lines.push('}');
    this.#declarations[slot] = lines.join('\n');
  }

  /**
   * The TypeScript type of a schema as union members (`['string', 'null']`). Object fields become
   * interfaces named from `hint`.
   * @throws CodegenError for a construct without a mapping.
   */
  typeOf(schema: JSONSchemaProps, hint: string, context: SchemaContext, path: string): string[] {
    const fail = (problem: string): never => {
      throw new CodegenError(`${context.where}: ${path === '' ? 'schema' : path}: ${problem}`);
    };
    if (!isRecord(schema)) return fail('is not a schema object');
    for (const key of unsupportedKeys) {
      if (key in schema) fail(`uses "${key}", which kubeloop-codegen cannot map to a TypeScript type`);
    }
    let union: string[];
    if (schema['x-kubernetes-int-or-string'] === true) {
      union = ['number', 'string'];
    } else if (schema['x-kubernetes-embedded-resource'] === true) {
      union = ['KubeObject'];
    } else if (schema.enum !== undefined) {
      union = this.#enum(schema.enum, fail);
    } else {
      const inferred = schema.properties || schema.additionalProperties !== undefined ? 'object' : schema.items ? 'array' : undefined;
      const type = schema.type ?? inferred;
      switch (type) {
        case 'string':
          union = ['string'];
          break;
        case 'integer':
        case 'number':
          union = ['number'];
          break;
        case 'boolean':
          union = ['boolean'];
          break;
        case 'array':
          union = [this.#array(schema, hint, context, path, fail)];
          break;
        case 'object':
          union = [this.#object(schema, hint, context, path, fail)];
          break;
        case undefined:
          // Only allowed with x-kubernetes-preserve-unknown-fields: any JSON value.
          if (schema['x-kubernetes-preserve-unknown-fields'] === true) return ['unknown'];
          return fail('has no "type"');
        default:
          return fail(`has type ${JSON.stringify(type)}, which kubeloop-codegen cannot map to a TypeScript type`);
      }
    }
    if (schema.nullable === true && !union.includes('null')) union.push('null');
    return union;
  }

  #enum(values: unknown, fail: (problem: string) => never): string[] {
    if (!Array.isArray(values) || values.length === 0) return fail('has an "enum" that is not a non-empty array');
    const literals = values.map((v) => {
      if (typeof v === 'string') return stringLiteral(v);
      if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean' || v === null) return String(v);
      return fail(`has an enum value ${JSON.stringify(v)} that is not a string, number, boolean or null`);
    });
    return [...new Set(literals)];
  }

  #array(schema: JSONSchemaProps, hint: string, context: SchemaContext, path: string, fail: (problem: string) => never): string {
    if (Array.isArray(schema.items)) return fail('uses tuple "items" (a list of schemas), which kubeloop-codegen cannot map');
    if (!isRecord(schema.items)) return fail('is an array without "items"');
    const element = this.typeOf(schema.items, singularTypeName(hint), context, `${path}[]`);
    return element.length > 1 ? `(${element.join(' | ')})[]` : `${element.join('')}[]`;
  }

  #object(schema: JSONSchemaProps, hint: string, context: SchemaContext, path: string, fail: (problem: string) => never): string {
    const { properties, additionalProperties } = schema;
    if (properties !== undefined && !isRecord(properties)) return fail('has "properties" that is not an object');
    const hasProperties = properties !== undefined && Object.keys(properties).length > 0;
    if (hasProperties && additionalProperties !== undefined && additionalProperties !== false) {
      return fail('has both "properties" and "additionalProperties" (not allowed in a structural schema)');
    }
    if (hasProperties) {
      const name = this.#claim(hint);
      this.declareInterface(name, schema, context, path, docComment([`\`${path}\` of {@link ${context.owner}}.`]));
      return name;
    }
    if (isRecord(additionalProperties)) {
      const value = this.typeOf(additionalProperties, `${hint}Value`, context, `${path}.*`);
      return `Record<string, ${value.join(' | ')}>`;
    }
    if (additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields'] === true) return 'Record<string, unknown>';
    if (additionalProperties !== undefined && additionalProperties !== false) return fail('has "additionalProperties" that is neither a boolean nor a schema');
    // A structural schema prunes every field it does not name: nothing can be stored here.
    return 'Record<string, never>';
  }

  #claim(hint: string): string {
    let name = hint;
    for (let n = 2; this.#names.has(name); n++) name = `${hint}${n}`;
    this.#names.add(name);
    return name;
  }
}
