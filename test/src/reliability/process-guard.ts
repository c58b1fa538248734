/**
 * Notices what must never happen in an operator process: a promise rejected with nobody to handle
 * it, an exception nobody caught. Either is recorded (with its stack) as a violation.
 */

/** Records unhandled rejections and uncaught exceptions while started. */
export class ProcessGuard {
  readonly problems: string[] = [];
  private readonly onRejection = (reason: unknown): void => {
    this.problems.push(`unhandled rejection: ${describe(reason)}`);
  };
  private readonly onException = (error: unknown): void => {
    this.problems.push(`uncaught exception: ${describe(error)}`);
  };

  start(): void {
    process.on('unhandledRejection', this.onRejection);
    process.on('uncaughtException', this.onException);
  }

  stop(): void {
    process.off('unhandledRejection', this.onRejection);
    process.off('uncaughtException', this.onException);
  }
}

function describe(value: unknown): string {
  return value instanceof Error ? (value.stack ?? value.message) : String(value);
}
