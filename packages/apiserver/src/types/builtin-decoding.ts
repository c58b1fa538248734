/**
 * The field shapes of built-in kinds: one description of a kind's fields serves both to decode
 * bodies and to publish the kind's OpenAPI schema.
 *
 * Decoding stands in for Go's typed JSON decoding: a field of the wrong JSON type (or a byte map
 * value that is not base64) is a 400 BadRequest (`ConfigMap in version "v1" cannot be handled as a
 * ConfigMap: json: cannot unmarshal ...`), and unknown fields are dropped (reported for `fieldValidation`).
 */
import { badRequest } from '../http/status-error.js';
import type { StatusError } from '../http/status-error.js';

/** What a field of a built-in kind holds. */
export type FieldShape =
  | 'string'
  | 'integer'
  | 'boolean'
  | 'stringMap'
  /** A map of base64 strings (`[]byte` values in Go: ConfigMap `binaryData`, Secret `data`). */
  | 'bytesMap'
  | 'stringArray'
  | 'microTime'
  | 'time'
  | 'any'
  | { readonly object: Readonly<Record<string, FieldShape>> };

/** The 400 of an undecodable built-in body. */
export function decodeError(kind: string, version: string, detail: string): StatusError {
  return badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${detail}`);
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

const goTypes: Record<string, string> = {
  string: 'string',
  integer: 'int32',
  boolean: 'bool',
  stringMap: 'map[string]string',
  bytesMap: 'map[string][]uint8',
  stringArray: '[]string',
  microTime: 'v1.MicroTime',
  time: 'v1.Time',
};

// Go's RFC3339Micro layout, and how far a value matches it, for the real error text.
const microLayout = '2006-01-02T15:04:05.000000Z07:00';

function microTimeProblem(value: string): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const head = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.exec(value);
  const rest = head ? value.slice(head[0].length) : value;
  const fraction = /^\.\d{6}/.exec(rest);
  const elem = head ? (fraction ? 'Z07:00' : '.000000') : microLayout;
  const unparsed = fraction ? rest.slice(7) : rest;
  return `parsing time ${JSON.stringify(value)} as ${JSON.stringify(microLayout)}: cannot parse ${JSON.stringify(unparsed)} as ${JSON.stringify(elem)}`;
}

const timePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks `obj` against `shape` and deletes unknown fields in place, collecting their paths.
 * Returns the decode problem (Go's wording), or undefined.
 */
export function checkShape(obj: Record<string, unknown>, shape: Readonly<Record<string, FieldShape>>, path: string, structName: string, unknown: string[]): string | undefined {
  for (const key of Object.keys(obj)) {
    // Own properties only: `constructor`, `toString`, `__proto__` are unknown fields, not Object.prototype's.
    const fieldShape = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const fieldPath = path ? `${path}.${key}` : key;
    if (fieldShape === undefined) {
      unknown.push(fieldPath);
      delete obj[key];
      continue;
    }
    const value = obj[key];
    if (value === null || fieldShape === 'any') continue;
    const problem = checkValue(value, fieldShape, fieldPath, structName, unknown);
    if (problem) return problem;
  }
  return undefined;
}

function checkValue(value: unknown, shape: FieldShape, fieldPath: string, structName: string, unknown: string[]): string | undefined {
  const mismatch = (goType: string): string => `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${structName}.${fieldPath} of type ${goType}`;
  if (typeof shape === 'object') {
    if (jsonKind(value) !== 'object') return mismatch('struct');
    return checkShape(value as Record<string, unknown>, shape.object, fieldPath, structName, unknown);
  }
  switch (shape) {
    case 'string':
      return typeof value === 'string' ? undefined : mismatch(goTypes.string as string);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : mismatch(goTypes.integer as string);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : mismatch(goTypes.boolean as string);
    case 'stringMap':
    case 'bytesMap':
      if (jsonKind(value) !== 'object') return mismatch(goTypes[shape] as string);
      for (const v of Object.values(value as Record<string, unknown>)) {
        if (typeof v !== 'string') return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${structName}.${fieldPath} of type string`;
        if (shape === 'bytesMap' && !isBase64(v)) return `illegal base64 data in ${structName}.${fieldPath}`;
      }
      return undefined;
    case 'stringArray':
      if (!Array.isArray(value)) return mismatch('[]string');
      for (const v of value) if (typeof v !== 'string') return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${structName}.${fieldPath} of type string`;
      return undefined;
    case 'microTime':
      if (typeof value !== 'string') return mismatch('v1.MicroTime');
      return microTimeProblem(value);
    case 'time':
      if (typeof value !== 'string') return mismatch('v1.Time');
      return timePattern.test(value) ? undefined : `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`;
    default:
      return undefined;
  }
}

/** True when `value` is valid standard base64 (Go's `base64.StdEncoding`). */
export function isBase64(value: string): boolean {
  return value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value);
}

const dateTimeSchema = { type: 'string', format: 'date-time' };

/** The OpenAPI v3 schema of a shape (for `/openapi/v3`); `any` is an unconstrained schema. */
export function shapeSchema(shape: FieldShape): Record<string, unknown> {
  if (typeof shape === 'object') return { type: 'object', properties: shapePropertiesSchema(shape.object) };
  switch (shape) {
    case 'string':
      return { type: 'string' };
    case 'integer':
      return { type: 'integer', format: 'int32' };
    case 'boolean':
      return { type: 'boolean' };
    case 'stringMap':
      return { type: 'object', additionalProperties: { type: 'string', default: '' } };
    case 'bytesMap':
      return { type: 'object', additionalProperties: { type: 'string', format: 'byte' } };
    case 'stringArray':
      return { type: 'array', items: { type: 'string', default: '' } };
    case 'microTime':
    case 'time':
      return dateTimeSchema;
    case 'any':
      return {};
  }
}

/** The `properties` of an object schema whose fields have these shapes. */
export function shapePropertiesSchema(fields: Readonly<Record<string, FieldShape>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([name, shape]) => [name, shapeSchema(shape)]));
}
