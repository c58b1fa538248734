/**
 * Turns a Kubernetes structural `openAPIV3Schema` (OpenAPI 3.0 dialect plus `x-kubernetes-*`
 * extensions) into the JSON Schema draft-07 dialect that Ajv validates, keeping only what the real
 * API server checks:
 *
 * - `nullable: true` -> `null` added to `type` (and to `enum`);
 * - `x-kubernetes-int-or-string` -> `type: ["integer", "string"]`;
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` (OpenAPI 3.0) -> their numeric draft-07 form;
 * - `format`: the formats Kubernetes knows, others dropped (the real server ignores them);
 * - `pattern` -> compiled as RE2 (Go's syntax, linear-time matching: see `linear-regexp.ts`);
 * - `x-kubernetes-list-type: set` -> the `kubeListSet` keyword (linear time); `map` -> the `kubeListMapKeys` keyword;
 * - `uniqueItems` dropped: kube-apiserver forbids it in CRDs (see `schema-restrictions.ts`);
 * - `x-kubernetes-embedded-resource` -> the `kubeEmbeddedResource` keyword (apiVersion and kind required);
 * - annotations (`description`, `default`, `example`...) and `x-kubernetes-validations` (CEL,
 *   not supported) dropped.
 */
import { kubernetesFormatName } from './kubernetes-formats.js';
import { patternProblem } from './linear-regexp.js';
import { SchemaCompileError } from './schema-compile-error.js';

/** A JSON Schema node as Ajv receives it. */
export type AjvSchema = Record<string, unknown>;

const copiedNumbers = [
  'maximum',
  'minimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
] as const;

const knownTypes = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** Converts one structural schema node; `path` names it in errors. */
export function toAjvSchema(schema: unknown, path = ''): AjvSchema {
  if (schema === true || schema === undefined) return {};
  if (!isRecord(schema)) throw new SchemaCompileError(path || '<root>', 'must be an object');
  const out: AjvSchema = {};
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`);

  const nullable = schema['nullable'] === true;
  const type = schema['type'];
  if (schema['x-kubernetes-int-or-string'] === true) {
    out['type'] = nullable ? ['integer', 'string', 'null'] : ['integer', 'string'];
  } else if (typeof type === 'string' && type !== '') {
    if (!knownTypes.has(type)) throw new SchemaCompileError(at('type'), `Unsupported value: "${type}"`);
    out['type'] = nullable ? [type, 'null'] : type;
  }

  for (const key of copiedNumbers) {
    const v = schema[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new SchemaCompileError(at(key), 'must be a number', { value: v });
    out[key] = v;
  }
  convertExclusiveBound(schema, out, 'Maximum');
  convertExclusiveBound(schema, out, 'Minimum');

  const pattern = schema['pattern'];
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') throw new SchemaCompileError(at('pattern'), 'must be a string', { value: pattern });
    const problem = patternProblem(pattern);
    if (problem !== undefined) throw new SchemaCompileError(at('pattern'), problem, { value: pattern });
    out['pattern'] = pattern;
  }

  const format = schema['format'];
  if (typeof format === 'string') {
    const ajvFormat = kubernetesFormatName(format);
    if (ajvFormat !== undefined) {
      out['format'] = ajvFormat;
      // Kept for messages: the real server names the format as written in the schema.
      out['kubeFormatName'] = format;
    }
  }

  const enumValues = schema['enum'];
  if (enumValues !== undefined) {
    if (!Array.isArray(enumValues)) throw new SchemaCompileError(at('enum'), 'must be an array', { value: enumValues });
    out['enum'] = nullable && !enumValues.includes(null) ? [...(enumValues as unknown[]), null] : enumValues;
  }

  const required = schema['required'];
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      throw new SchemaCompileError(at('required'), 'must be an array of strings', { value: required });
    }
    out['required'] = required;
  }

  const properties = schema['properties'];
  if (properties !== undefined) {
    if (!isRecord(properties)) throw new SchemaCompileError(at('properties'), 'must be an object', { value: properties });
    const converted: Record<string, AjvSchema> = {};
    for (const [name, child] of Object.entries(properties)) converted[name] = toAjvSchema(child, at(`properties[${name}]`));
    out['properties'] = converted;
  }
  const additional = schema['additionalProperties'];
  if (typeof additional === 'boolean') out['additionalProperties'] = additional;
  else if (additional !== undefined) out['additionalProperties'] = toAjvSchema(additional, at('additionalProperties'));

  const items = schema['items'];
  if (Array.isArray(items)) out['items'] = items.map((item, i) => toAjvSchema(item, at(`items[${i}]`)));
  else if (items !== undefined) out['items'] = toAjvSchema(items, at('items'));

  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[combinator];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new SchemaCompileError(at(combinator), 'must be an array', { value: list });
    out[combinator] = list.map((s, i) => toAjvSchema(s, at(`${combinator}[${i}]`)));
  }
  if (schema['not'] !== undefined) out['not'] = toAjvSchema(schema['not'], at('not'));

  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') out['kubeListSet'] = true;
  if (listType === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'];
    if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
      throw new SchemaCompileError(at('x-kubernetes-list-map-keys'), 'Required value: must not be empty if x-kubernetes-list-type is map');
    }
    out['kubeListMapKeys'] = keys;
  }
  if (schema['x-kubernetes-embedded-resource'] === true) out['kubeEmbeddedResource'] = true;
  return out;
}

// OpenAPI 3.0: `exclusiveMaximum: true` qualifies `maximum`; draft-07: `exclusiveMaximum: <number>`.
function convertExclusiveBound(schema: Record<string, unknown>, out: AjvSchema, which: 'Maximum' | 'Minimum'): void {
  const flag = schema[`exclusive${which}`];
  const bound = out[which.toLowerCase()];
  if (flag === true && typeof bound === 'number') {
    delete out[which.toLowerCase()];
    out[`exclusive${which}`] = bound;
  } else if (typeof flag === 'number') {
    out[`exclusive${which}`] = flag;
  }
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
