/** The failure of `env.converge()`: the check did not hold in time after the fault schedules named here. */
import { describeFaultSchedule } from './fault-schedule.js';
import type { FaultSchedule } from './fault-schedule.js';

/**
 * Thrown by `env.converge()` when the check still fails at the deadline. The message names the seed
 * of every schedule run on the environment and lists their faults, so that the run can be
 * replayed; `cause` is the last failure of the check.
 */
export class ConvergenceError extends Error {
  override readonly name = 'ConvergenceError';
  /** Always `'ConvergenceError'`: a check that works across two installed copies of the kit. */
  readonly code = 'ConvergenceError';
  /** The schedules run on the environment before the failure, oldest first. */
  readonly schedules: readonly FaultSchedule[];

  constructor(message: string, schedules: readonly FaultSchedule[], cause: unknown) {
    const listing = schedules.length === 0 ? 'no fault schedule was run on this environment' : schedules.map(describeFaultSchedule).join('\n');
    super(`${message}\n${listing}`, { cause });
    this.schedules = schedules;
  }

  /** The seeds of {@link ConvergenceError.schedules}. */
  get seeds(): number[] {
    return this.schedules.map((s) => s.options.seed);
  }
}

/** True for a {@link ConvergenceError}, also one thrown by another installed copy of the kit. */
export function isConvergenceError(error: unknown): error is ConvergenceError {
  return error instanceof Error && (error as { code?: unknown }).code === 'ConvergenceError';
}
