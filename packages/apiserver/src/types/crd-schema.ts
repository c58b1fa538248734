/**
 * The bridge between CRD handling and the schema validator (`validation/`): compiling a CRD
 * version's schema, and telling a schema that does not compile.
 */
import { CrdSchemaValidator, SchemaCompileError } from '../validation/index.js';
import type { FieldCause } from '../validation/index.js';

/** What the server uses of a compiled schema. */
export interface SchemaValidatorLike {
  validate(obj: Record<string, unknown>): FieldCause[];
  prune(obj: Record<string, unknown>): void;
  applyDefaults?(obj: Record<string, unknown>): void;
}

/**
 * Compiles a schema. Whoever compiles one keeps it (a CRD's served type holds the validators of its
 * versions): nothing here is kept for the process, so a stopped server or a replaced CRD leaves
 * no compiled schema behind.
 * @throws SchemaCompileError when the schema does not compile.
 */
export function compileSchemaValidator(schema: Record<string, unknown>): SchemaValidatorLike {
  return new CrdSchemaValidator(schema);
}

/** True for a schema that could not be compiled. */
export function isSchemaCompileError(err: unknown): err is SchemaCompileError {
  return err instanceof SchemaCompileError;
}
