/** The end of a child process, as the process-running test helpers wait for it. */
import type { ChildProcess } from 'node:child_process';

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves with how `child` ended, on 'close': by then all its output has been read. */
export function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
}

/** Waits for `exited` (from {@link exitOf}), killing `child` with SIGKILL if it takes longer than `timeoutMs`. */
export async function exitWithin(child: ChildProcess, exited: Promise<Exit>, timeoutMs: number): Promise<Exit> {
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
