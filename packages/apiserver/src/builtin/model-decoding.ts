/**
 * Decoding and required-field checks of built-in objects from their model definitions, standing
 * in for Go's typed JSON decoding: a value of the wrong JSON type is a 400 in Go's words
 * (`json: cannot unmarshal string into Go struct field Deployment.spec.replicas of type int32`),
 * unknown fields are dropped and reported (for `fieldValidation`), and numbers in string maps are
 * kept as strings (resource quantities such as `cpu: 1` arrive as numbers; Go's Quantity accepts them).
 */
import { isBase64 } from '../types/builtin-decoding.js';
import { requiredValue } from '../http/status-error.js';
import type { FieldProblem } from '../http/status-error.js';
import { kubernetesModels } from './kubernetes-models.generated.js';
import { parseFieldType } from './model-definition.js';
import type { FieldType, ModelDefinition } from './model-definition.js';

const timePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const parsedTypes = new Map<string, FieldType>();

/** The definition of a model; throws for a name the generated data does not have (a programming error). */
export function modelDefinition(name: string): ModelDefinition {
  const model = kubernetesModels[name];
  if (!model) throw new Error(`no generated definition for ${name}`);
  return model;
}

/** A field's parsed type (cached). */
export function fieldTypeOf(text: string): FieldType {
  let parsed = parsedTypes.get(text);
  if (!parsed) parsedTypes.set(text, (parsed = parseFieldType(text)));
  return parsed;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function goTypeName(type: FieldType): string {
  if ('list' in type) return `[]${goTypeName(type.list)}`;
  if ('map' in type) return `map[string]${goTypeName(type.map)}`;
  if ('model' in type) return `v1.${type.model.replace(/^[A-Za-z]*V\d+(?:(?:alpha|beta)\d+)?/, '')}`;
  switch (type.scalar) {
    case 'double':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'time':
      return 'v1.Time';
    case 'byte':
      return '[]uint8';
    case 'int-or-string':
      return 'intstr.IntOrString';
    case 'any':
      return 'interface {}';
    default:
      return type.scalar;
  }
}

/** Context of one decode: the kind (Go's struct name in messages) and the unknown field paths found. */
interface DecodeContext {
  readonly kind: string;
  readonly unknown: string[];
}

/**
 * Checks `obj` (a whole object of `model`) and drops unknown fields in place, collecting their
 * paths. Returns the decode problem in Go's words, or undefined. `metadata` is left to the
 * ObjectMeta checks every kind shares.
 */
export function decodeModelObject(obj: Record<string, unknown>, model: string, kind: string, unknown: string[]): string | undefined {
  return decodeFields(obj, modelDefinition(model), '', { kind, unknown }, true);
}

function decodeFields(obj: Record<string, unknown>, model: ModelDefinition, path: string, ctx: DecodeContext, top: boolean): string | undefined {
  for (const key of Object.keys(obj)) {
    const fieldPath = path ? `${path}.${key}` : key;
    if (top && key === 'metadata') continue;
    const typeText = model.fields[key];
    if (typeText === undefined) {
      ctx.unknown.push(fieldPath);
      delete obj[key];
      continue;
    }
    const value = obj[key];
    if (value === null) continue;
    const problem = decodeValue(value, fieldTypeOf(typeText), fieldPath, ctx);
    if (problem) return problem;
  }
  return undefined;
}

function decodeValue(value: unknown, type: FieldType, path: string, ctx: DecodeContext): string | undefined {
  // Go names the struct field without list indices and map keys; unknown fields keep them (`spec.containers[0].x`).
  const mismatch = (): string => `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${ctx.kind}.${path.replace(/\[[^\]]*\]/g, '')} of type ${goTypeName(type)}`;
  if ('model' in type) {
    if (!isObject(value)) return mismatch();
    return decodeFields(value, modelDefinition(type.model), path, ctx, false);
  }
  if ('list' in type) {
    if (!Array.isArray(value)) return mismatch();
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === null) continue;
      const problem = decodeValue(item, type.list, `${path}[${i}]`, ctx);
      if (problem) return problem;
    }
    return undefined;
  }
  if ('map' in type) {
    if (!isObject(value)) return mismatch();
    for (const [k, v] of Object.entries(value)) {
      if (v === null) continue;
      if (typeof v === 'number' && 'scalar' in type.map && type.map.scalar === 'string') {
        // A resource quantity (`cpu: 1`): kept as its text, as Go's Quantity does.
        value[k] = String(v);
        continue;
      }
      const problem = decodeValue(v, type.map, `${path}[${k}]`, ctx);
      if (problem) return problem;
    }
    return undefined;
  }
  switch (type.scalar) {
    case 'string':
      return typeof value === 'string' ? undefined : mismatch();
    case 'byte':
      if (typeof value !== 'string') return mismatch();
      return isBase64(value) ? undefined : `illegal base64 data in ${ctx.kind}.${path.replace(/\[[^\]]*\]/g, '')}`;
    case 'int32':
    case 'int64':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : mismatch();
    case 'double':
      return typeof value === 'number' ? undefined : mismatch();
    case 'boolean':
      return typeof value === 'boolean' ? undefined : mismatch();
    case 'time':
      if (typeof value !== 'string') return mismatch();
      return timePattern.test(value) ? undefined : `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`;
    case 'int-or-string':
      return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)) ? undefined : mismatch();
    case 'any':
      return undefined;
  }
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/**
 * The `Required value` problems of an object of `model`: required fields that are missing, null,
 * '' or []. `metadata` and `status` are not checked (ObjectMeta has its own rules; status is
 * written by controllers, which the real server trusts with partial statuses).
 */
export function requiredFieldProblems(obj: Record<string, unknown>, model: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  checkRequired(obj, modelDefinition(model), '', problems, true);
  return problems;
}

function checkRequired(obj: Record<string, unknown>, model: ModelDefinition, path: string, problems: FieldProblem[], top: boolean): void {
  for (const field of model.required ?? []) {
    if (isEmpty(obj[field])) problems.push(requiredValue(path ? `${path}.${field}` : field, ''));
  }
  for (const [key, value] of Object.entries(obj)) {
    if (top && (key === 'metadata' || key === 'status')) continue;
    const typeText = model.fields[key];
    if (typeText === undefined || value === null) continue;
    checkRequiredValue(value, fieldTypeOf(typeText), path ? `${path}.${key}` : key, problems);
  }
}

function checkRequiredValue(value: unknown, type: FieldType, path: string, problems: FieldProblem[]): void {
  if ('model' in type) {
    if (isObject(value)) checkRequired(value, modelDefinition(type.model), path, problems, false);
  } else if ('list' in type) {
    if (Array.isArray(value)) value.forEach((item, i) => checkRequiredValue(item, type.list, `${path}[${i}]`, problems));
  } else if ('map' in type) {
    if (isObject(value)) for (const [k, v] of Object.entries(value)) checkRequiredValue(v, type.map, `${path}[${k}]`, problems);
  }
}
