import { KubeloopError } from '@kubeloop/resource';

/**
 * The error of a phase that the phase's `onError` did not handle (it threw), as passed to the
 * {@link K8sReconciler}'s `onError` (operator-sdk-extra wraps it the same way:
 * `errors.Wrapf(err, "Error when run phase %s", name)`). `cause` is the phase's error, so
 * `isTerminalError` still sees a `TerminalError` through it.
 */
export class PhaseError extends KubeloopError {
  /** The name of the phase (`getName()`). */
  readonly phase: string;

  constructor(phase: string, cause: unknown) {
    super('PhaseError', `Error when run phase ${phase}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.phase = phase;
  }
}

/** True for a {@link PhaseError} (works across installed copies). */
export function isPhaseError(err: unknown): err is PhaseError {
  return typeof err === 'object' && err !== null && ((err as { code?: unknown }).code === 'PhaseError' || (err as { name?: unknown }).name === 'PhaseError');
}
