import { CrdSchemaValidator } from './schema-validator.js';

/**
 * Compiled validators by key, so that each CRD version's schema is compiled once. Use a key that
 * changes when the schema does, e.g. `${crd.metadata.uid}/${version}/${crd.metadata.generation}`
 * (a CRD's generation bumps on every spec change).
 */
export class SchemaValidatorCache {
  private readonly validators = new Map<string, CrdSchemaValidator>();

  /** The validator for `key`, compiling `openAPIV3Schema` on first use. Throws {@link SchemaCompileError} like the constructor. */
  get(key: string, openAPIV3Schema: Record<string, unknown>): CrdSchemaValidator {
    let validator = this.validators.get(key);
    if (validator === undefined) {
      validator = new CrdSchemaValidator(openAPIV3Schema);
      this.validators.set(key, validator);
    }
    return validator;
  }

  /** Forgets every validator whose key starts with `prefix` (e.g. a deleted CRD's uid). */
  deleteByPrefix(prefix: string): void {
    for (const key of [...this.validators.keys()]) if (key.startsWith(prefix)) this.validators.delete(key);
  }

  /** Number of compiled validators held. */
  get size(): number {
    return this.validators.size;
  }
}
