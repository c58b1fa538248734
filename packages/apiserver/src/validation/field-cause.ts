/**
 * Field causes as the Kubernetes API server reports them in `Status.details.causes` of a 422
 * Invalid, built from the schema check's errors with the reasons and message shapes of
 * `k8s.io/apimachinery/pkg/util/validation/field` and apiextensions-apiserver.
 */
import type { PatternBudgetExceeded, SchemaError } from './schema-check.js';
import { maxPatternMatchCost } from './pattern-budget.js';
import { isRecord } from './structural-schema-converter.js';

/** One field-level failure. */
export interface FieldCause {
  /**
   * The real server's cause type: `FieldValueRequired`, `FieldValueInvalid`,
   * `FieldValueNotSupported`, `FieldValueTypeInvalid`, `FieldValueTooLong`, `FieldValueTooMany`,
   * `FieldValueDuplicate` or `FieldValueForbidden`.
   */
  reason: string;
  /** The message without the field, e.g. `Required value` or `Unsupported value: "x": supported values: "a", "b"`. */
  message: string;
  /** The field path, e.g. `spec.replicas` or `spec.items[0].name`. */
  field: string;
}

/** Formats a bad value the way Go's `field.Error.ErrorBody` prints it. */
export function formatBadValue(value: unknown): string {
  if (value === null || value === undefined) return '"null"';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The JSON type name kube-openapi reports for a value. */
export function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Maps schema errors to causes, each (field, message) once. */
export function causesFromSchemaErrors(errors: readonly SchemaError[]): FieldCause[] {
  const causes: FieldCause[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const cause = causeOf(e);
    const id = `${cause.field}\u0000${cause.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    causes.push(cause);
  }
  return causes;
}

/** The cause of a write refused because its pattern matches would cost more than the budget. */
export function patternBudgetCause(e: PatternBudgetExceeded): FieldCause {
  const name = e.field === '' ? 'body' : `${e.field} in body`;
  // The value may be megabytes: the message shows its start only.
  const shown = e.value.length > 64 ? `${e.value.slice(0, 64)}...` : e.value;
  const { source, programSize } = e.pattern;
  const cost = Math.max(e.value.length, 1) * programSize;
  const left = e.remaining === maxPatternMatchCost ? '' : ` (${e.remaining} left after the object's other matches)`;
  return {
    reason: 'FieldValueInvalid',
    message:
      `Invalid value: ${JSON.stringify(shown)}: ${name} is too long to match against the pattern '${source}' within the server's budget: ` +
      `${e.value.length} characters x ${programSize} pattern instructions = ${cost}, over the limit of ${maxPatternMatchCost} per object${left}`,
    field: e.field,
  };
}

function causeOf(e: SchemaError): FieldCause {
  const path = e.field;
  const data: unknown = e.data;
  const params = e.params;
  const name = path === '' ? 'body' : `${path} in body`;
  const invalid = (detail: string): FieldCause => ({
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${formatBadValue(data)}: ${name} ${detail}`,
    field: path,
  });

  switch (e.keyword) {
    case 'required':
      return { reason: 'FieldValueRequired', message: 'Required value', field: child(path, String(params['missingProperty'])) };
    case 'type': {
      const declared = (Array.isArray(params['type']) ? (params['type'] as string[]) : String(params['type']).split(','))
        .filter((t) => t !== 'null')
        .join(',');
      const actual = jsonTypeName(data);
      return {
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: "${actual}": ${name} must be of type ${declared}: "${actual}"`,
        field: path,
      };
    }
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? (params['allowedValues'] as unknown[]) : [];
      const supported = allowed
        .filter((v) => v !== null)
        .map((v) => JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v)))
        .join(', ');
      return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${formatBadValue(data)}: supported values: ${supported}`, field: path };
    }
    case 'format': {
      const format = String(params['format']);
      return {
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: ${formatBadValue(data)}: ${name} must be of type ${format}: ${JSON.stringify(String(data))}`,
        field: path,
      };
    }
    case 'pattern':
      return invalid(`should match '${String(params['pattern'])}'`);
    case 'maxLength': {
      const limit = Number(params['limit']);
      return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${limit} ${limit === 1 ? 'byte' : 'bytes'}`, field: path };
    }
    case 'minLength':
      return invalid(`should be at least ${String(params['limit'])} chars long`);
    case 'maximum':
      return invalid(`should be less than or equal to ${String(params['limit'])}`);
    case 'exclusiveMaximum':
      return invalid(`should be less than ${String(params['limit'])}`);
    case 'minimum':
      return invalid(`should be greater than or equal to ${String(params['limit'])}`);
    case 'exclusiveMinimum':
      return invalid(`should be greater than ${String(params['limit'])}`);
    case 'multipleOf':
      return invalid(`should be a multiple of ${String(params['multipleOf'])}`);
    case 'maxItems':
      return {
        reason: 'FieldValueTooMany',
        message: `Too many: ${Array.isArray(data) ? data.length : '?'}: must have at most ${String(params['limit'])} items`,
        field: path,
      };
    case 'minItems':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${Array.isArray(data) ? data.length : 0}: ${name} should have at least ${String(params['limit'])} items`,
        field: path,
      };
    case 'maxProperties':
      return {
        reason: 'FieldValueTooMany',
        message: `Too many: ${isRecord(data) ? Object.keys(data).length : '?'}: must have at most ${String(params['limit'])} items`,
        field: path,
      };
    case 'minProperties':
      return {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${isRecord(data) ? Object.keys(data).length : 0}: ${name} should have at least ${String(params['limit'])} properties`,
        field: path,
      };
    case 'kubeListSet': {
      const index = Number(params['index']);
      const item: unknown = Array.isArray(data) ? data[index] : undefined;
      return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${formatBadValue(item)}`, field: `${path}[${index}]` };
    }
    case 'kubeListMapKeys':
      return {
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${JSON.stringify(params['key'])}`,
        field: `${path}[${String(params['index'])}]`,
      };
    case 'kubeEmbeddedResource':
      return { reason: 'FieldValueRequired', message: 'Required value: must not be empty', field: child(path, String(params['missingProperty'])) };
    case 'additionalProperties':
      return {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: field not declared in schema',
        field: child(path, String(params['additionalProperty'])),
      };
    case 'anyOf':
      return invalid('must validate at least one schema (anyOf)');
    case 'oneOf':
      return invalid('must validate one and only one schema (oneOf)');
    case 'not':
      return invalid('must not validate the schema (not)');
    default:
      return invalid(`failed ${e.keyword}`);
  }
}
