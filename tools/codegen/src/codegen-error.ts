/** The one error type of the generator: bad input it can explain, never a bug. */
import { KubeloopError } from '@kubeloop/resource';

/**
 * An input the generator cannot turn into TypeScript: an unreadable file, a document that is not
 * a CustomResourceDefinition, or a schema construct without a TypeScript mapping. The message
 * names the file, the CRD and the schema path, and is meant to be shown to a user as is.
 */
export class CodegenError extends KubeloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CodegenError', message, options);
  }
}

/** Whether `err` is a {@link CodegenError} (checked by `code`, so it works across two installed copies). */
export function isCodegenError(err: unknown): err is CodegenError {
  return err instanceof Error && (err as { code?: unknown }).code === 'CodegenError';
}
