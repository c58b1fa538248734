/**
 * The bridge between CRD handling and the schema validator (`validation/`): compiling a CRD
 * version's schema, and telling a schema that does not compile.
 */
import { CrdSchemaValidator, PatternCompiler, SchemaCompileError } from '../validation/index.js';
import type { FieldCause } from '../validation/index.js';

/** What the server uses of a compiled schema. */
export interface SchemaValidatorLike {
  validate(obj: Record<string, unknown>): FieldCause[];
  /** Removes undeclared fields in place; returns their paths (`spec.foo`). */
  prune(obj: Record<string, unknown>): string[];
  applyDefaults?(obj: Record<string, unknown>): void;
}

/**
 * The compiled schemas, by the schema object they were compiled from. A CRD's schema compiles
 * when the CRD is validated, and the type registered right after it from the same stored object
 * reuses it: one compilation per CRD version and write. Weak: a stopped server, a replaced or
 * deleted CRD takes its compiled schemas with it (the process keeps none).
 */
const compiledBySchema = new WeakMap<Record<string, unknown>, SchemaValidatorLike>();

/**
 * Compiles a schema, or returns the validator already compiled from this very object. Whoever
 * compiles one keeps it (a CRD's served type holds the validators of its versions). `patterns`
 * (default: a new one) is shared by the versions of one CRD: one pattern budget per CRD.
 * @throws SchemaCompileError when the schema does not compile.
 */
export function compileSchemaValidator(schema: Record<string, unknown>, patterns: PatternCompiler = new PatternCompiler()): SchemaValidatorLike {
  let validator = compiledBySchema.get(schema);
  if (validator === undefined) {
    validator = new CrdSchemaValidator(schema, patterns);
    compiledBySchema.set(schema, validator);
  }
  return validator;
}

/** True for a schema that could not be compiled. */
export function isSchemaCompileError(err: unknown): err is SchemaCompileError {
  return err instanceof SchemaCompileError;
}
