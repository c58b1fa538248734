/**
 * The bridge between CRD handling and the schema validator (`validation/`): one compiled
 * validator per CRD version and generation, shared by every write.
 */
import { CrdSchemaValidator, SchemaCompileError, SchemaValidatorCache } from '../validation/index.js';
import type { FieldCause } from '../validation/index.js';

/** What the server uses of a compiled schema. */
export interface SchemaValidatorLike {
  validate(obj: Record<string, unknown>): FieldCause[];
  prune(obj: Record<string, unknown>): void;
  applyDefaults?(obj: Record<string, unknown>): void;
}

const cache = new SchemaValidatorCache();

/**
 * The validator of a schema, compiled once per `key` (CRD uid, generation and version).
 * @throws SchemaCompileError when the schema does not compile.
 */
export function schemaValidatorFor(key: string, schema: Record<string, unknown>, options?: { cache?: boolean }): SchemaValidatorLike {
  if (options?.cache === false) return new CrdSchemaValidator(schema);
  return cache.get(key, schema);
}

/** Forgets the compiled validators of a CRD (by uid) once it is deleted or changed. */
export function forgetSchemaValidators(crdUid: string): void {
  cache.deleteByPrefix(`${crdUid}/`);
}

/** True for a schema that could not be compiled. */
export function isSchemaCompileError(err: unknown): err is SchemaCompileError {
  return err instanceof SchemaCompileError;
}
