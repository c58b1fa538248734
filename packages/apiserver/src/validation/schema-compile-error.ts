import { KubeloopError } from '@kubeloop/resource';

/**
 * A CRD `openAPIV3Schema` that cannot be turned into a validator (a `pattern` that is not a valid
 * regular expression, a keyword with a value of the wrong type). The API server answers such a
 * CRD with 422 Invalid, naming {@link SchemaCompileError.field}.
 */
export class SchemaCompileError extends KubeloopError {
  /** Path of the offending keyword inside the schema, e.g. `properties.spec.properties.name.pattern`. */
  readonly field: string;

  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super('SchemaCompileError', `${field}: ${message}`, options);
    this.field = field;
  }
}
