/** The two errors a command reports to its user as one line: a usage error (exit 2) and a failure (exit 1). */
import { KubeloopError } from '@kubeloop/resource';

/** The command was called wrongly: an unknown flag, a missing argument, an invalid value. Exit code 2. */
export class UsageError extends KubeloopError {
  constructor(message: string) {
    super('UsageError', message);
  }
}

/** The command could not do what was asked, for a reason its message explains to the user. Exit code 1. */
export class CommandFailure extends KubeloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CommandFailure', message, options);
  }
}

/** Whether `error` is a {@link UsageError} (by `code`, so it works across two installed copies). */
export function isUsageError(error: unknown): error is UsageError {
  return error instanceof Error && (error as { code?: unknown }).code === 'UsageError';
}
