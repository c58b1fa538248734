/**
 * The exit codes of every kubeloop command, the same for all of them so that scripts can rely on them:
 * 0 the command did what was asked, 1 it failed (a bad input file, stale generated files under `--check`,
 * a directory that is not empty, a failing child command), 2 it was called wrongly (an unknown command or
 * flag, a missing or invalid argument). Errors are one line on stderr, never a stack trace.
 */
export const ExitCode = {
  Ok: 0,
  Failure: 1,
  Usage: 2,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
