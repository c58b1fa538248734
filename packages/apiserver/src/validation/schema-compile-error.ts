import { KubeloopError } from '@kubeloop/resource';

/**
 * A CRD `openAPIV3Schema` that cannot be turned into a validator (a `pattern` that is not a valid
 * RE2 regular expression, a keyword with a value of the wrong type). The API server answers such a
 * CRD with 422 Invalid: `<field>: Invalid value: <value>: <detail>`.
 */
export class SchemaCompileError extends KubeloopError {
  /**
   * Path of the offending keyword inside the schema, in kube-apiserver's form, e.g.
   * `properties[spec].properties[name].pattern`.
   */
  readonly field: string;
  /** What is wrong, e.g. `must be a valid regular expression, but isn't: ...`. */
  readonly detail: string;
  /** The offending value (undefined when there is none to show). */
  readonly value: unknown;

  constructor(field: string, detail: string, options?: { cause?: unknown; value?: unknown }) {
    super('SchemaCompileError', `${field}: ${detail}`, options);
    this.field = field;
    this.detail = detail;
    this.value = options?.value;
  }
}
