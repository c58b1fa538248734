/**
 * Validation, pruning and defaulting of custom resources against their CRD's structural
 * `openAPIV3Schema`, the way kube-apiserver does it: Ajv does the validating, this module only
 * translates the schema dialect in ({@link toAjvSchema}) and the errors out ({@link causesFromAjvErrors}).
 *
 * Flow on a write, as in the real server: {@link CrdSchemaValidator.prune} ->
 * {@link CrdSchemaValidator.applyDefaults} -> {@link CrdSchemaValidator.validate}; a non-empty
 * result is a 422 Invalid whose `details.causes` are the returned causes.
 *
 * Caveats: CEL rules (`x-kubernetes-validations`) are not evaluated; `metadata` is validated only
 * against what the schema itself declares (name rules are the server's job).
 */
import { Ajv } from 'ajv';
import type { ErrorObject, SchemaValidateFunction, ValidateFunction } from 'ajv';
import { canonicalJson } from './canonical-json.js';
import { causesFromAjvErrors } from './field-cause.js';
import type { FieldCause } from './field-cause.js';
import { addKubernetesFormats } from './kubernetes-formats.js';
import { linearRegExpEngine } from './linear-regexp.js';
import { SchemaCompileError } from './schema-compile-error.js';
import { applyDefaultValues, pruneValue, structuralNodeOf } from './structural-pruner.js';
import type { StructuralNode } from './structural-pruner.js';
import { isRecord, toAjvSchema } from './structural-schema-converter.js';

export type { FieldCause } from './field-cause.js';

// `x-kubernetes-list-type: map`: no two items may share the values of the map keys.
const validateListMapKeys: SchemaValidateFunction = function (keys: string[], data: unknown): boolean {
  if (!Array.isArray(data)) return true;
  const seen = new Set<string>();
  const errors: Partial<ErrorObject>[] = [];
  data.forEach((item, index) => {
    if (!isRecord(item)) return;
    const key: Record<string, unknown> = {};
    for (const k of keys) key[k] = item[k];
    const id = JSON.stringify(keys.map((k) => item[k] ?? null));
    if (seen.has(id)) errors.push({ keyword: 'kubeListMapKeys', params: { index, key }, message: 'duplicate map key' });
    seen.add(id);
  });
  validateListMapKeys.errors = errors;
  return errors.length === 0;
};

// `x-kubernetes-embedded-resource`: an embedded object needs its apiVersion and kind.
const validateEmbeddedResource: SchemaValidateFunction = function (enabled: boolean, data: unknown): boolean {
  if (!enabled || !isRecord(data)) return true;
  const errors: Partial<ErrorObject>[] = [];
  for (const field of ['apiVersion', 'kind']) {
    if (typeof data[field] !== 'string' || data[field] === '') {
      errors.push({ keyword: 'kubeEmbeddedResource', params: { missingProperty: field }, message: 'must not be empty' });
    }
  }
  validateEmbeddedResource.errors = errors;
  return errors.length === 0;
};

// `x-kubernetes-list-type: set`: no two items may be equal. Linear (a map of canonical JSON texts),
// where Ajv's `uniqueItems` compares every pair of non-scalar items. As kube-apiserver, a duplicated
// value is reported once, at its first repetition (50,000 equal items: one error, not 49,999).
const validateListSet: SchemaValidateFunction = function (enabled: boolean, data: unknown): boolean {
  if (!enabled || !Array.isArray(data)) return true;
  const seen = new Map<string, number>();
  const errors: Partial<ErrorObject>[] = [];
  data.forEach((item, index) => {
    const id = canonicalJson(item);
    const times = seen.get(id) ?? 0;
    if (times === 1) errors.push({ keyword: 'kubeListSet', params: { index }, message: 'duplicate item' });
    seen.set(id, times + 1);
  });
  validateListSet.errors = errors;
  return errors.length === 0;
};

/**
 * A new Ajv with the Kubernetes formats and keywords. One per compiled schema, never shared: an Ajv
 * keeps every function it ever compiled (in its code-generation scope, which `removeSchema` does
 * not clear), so a shared one grows with every CRD version, CRD validation and server of the
 * process; this way the compiled code goes with its validator. It is also faster: compiling in an
 * Ajv that holds many schemas slows down as they pile up.
 */
function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, validateSchema: false, addUsedSchema: false, code: { regExp: linearRegExpEngine } });
  addKubernetesFormats(ajv);
  ajv.addKeyword({ keyword: 'kubeFormatName', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'kubeListMapKeys', type: 'array', schemaType: 'array', errors: true, validate: validateListMapKeys });
  ajv.addKeyword({ keyword: 'kubeListSet', type: 'array', schemaType: 'boolean', errors: true, validate: validateListSet });
  ajv.addKeyword({ keyword: 'kubeEmbeddedResource', type: 'object', schemaType: 'boolean', errors: true, validate: validateEmbeddedResource });
  return ajv;
}

/**
 * A compiled CRD schema. Construct once per CRD version (the server compiles one per served version
 * of a registered CRD, released with it); {@link validate}, {@link prune} and {@link applyDefaults}
 * are then cheap.
 *
 * @throws {@link SchemaCompileError} when the schema cannot be compiled (answer the CRD with 422).
 */
export class CrdSchemaValidator {
  private readonly check: ValidateFunction;
  private readonly structure: StructuralNode;

  constructor(openAPIV3Schema: Record<string, unknown>) {
    const converted = toAjvSchema(openAPIV3Schema);
    try {
      this.check = newAjv().compile(converted);
    } catch (cause) {
      // Ajv compiles recursively: a schema nested a few hundred levels deep overflows the stack.
      const detail = cause instanceof RangeError ? 'the schema is nested too deeply to compile' : cause instanceof Error ? cause.message : String(cause);
      throw new SchemaCompileError('<root>', detail, { cause });
    }
    this.structure = structuralNodeOf(openAPIV3Schema);
  }

  /** Validates a whole object (apiVersion, kind, metadata included); an empty array means valid. */
  validate(obj: Record<string, unknown>): FieldCause[] {
    if (this.check(obj)) return [];
    return causesFromAjvErrors(this.check.errors ?? [], obj);
  }

  /**
   * Removes, in place, the fields the schema does not declare (kept under
   * `x-kubernetes-preserve-unknown-fields`) and `null` values of non-nullable fields. Never touches
   * the top-level `apiVersion`, `kind` and `metadata` (the server handles metadata).
   *
   * @returns the paths of the undeclared fields removed (`spec.foo`, `spec.items[0].bar`), for
   *   `fieldValidation=Strict` (400 `strict decoding error: unknown field "spec.foo"`) and `Warn`.
   */
  prune(obj: Record<string, unknown>): string[] {
    return pruneValue(obj, this.structure, true);
  }

  /** Sets, in place, every missing field whose schema declares a `default` (a deep copy of it). */
  applyDefaults(obj: Record<string, unknown>): void {
    applyDefaultValues(obj, this.structure, true);
  }
}

export { SchemaCompileError };
