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
 * Schemas compiled while validating a CRD, waiting for the type registered right after it from
 * the same stored object to take them: one compilation per CRD version and write. Taken once
 * (the type then holds them), and weak: a CRD that is never registered (a dry run, a refused
 * write) leaves nothing behind, and old CRD objects kept in the watch history hold no compiled
 * schema.
 */
const awaitingRegistration = new WeakMap<Record<string, unknown>, SchemaValidatorLike>();

/**
 * Compiles a schema while validating its CRD, and keeps it for {@link takeCompiledValidator} of the
 * type registered next. `patterns` (default: a new one) is shared by the versions of one CRD: one
 * pattern budget per CRD.
 * @throws SchemaCompileError when the schema does not compile.
 */
export function compileSchemaValidator(schema: Record<string, unknown>, patterns: PatternCompiler = new PatternCompiler()): SchemaValidatorLike {
  const validator = new CrdSchemaValidator(schema, patterns);
  awaitingRegistration.set(schema, validator);
  return validator;
}

/**
 * The validator compiled when the CRD holding `schema` was validated, taken (the caller keeps it:
 * a CRD's served type holds the validators of its versions); undefined when there is none.
 */
export function takeCompiledValidator(schema: Record<string, unknown>): SchemaValidatorLike | undefined {
  const compiled = awaitingRegistration.get(schema);
  awaitingRegistration.delete(schema);
  return compiled;
}

/**
 * Compiles a schema for a type whose CRD was not validated by this server (after a restart's
 * replay). The caller keeps it.
 * @throws SchemaCompileError when the schema does not compile.
 */
export function newSchemaValidator(schema: Record<string, unknown>): SchemaValidatorLike {
  return new CrdSchemaValidator(schema);
}

/** True for a schema that could not be compiled. */
export function isSchemaCompileError(err: unknown): err is SchemaCompileError {
  return err instanceof SchemaCompileError;
}
