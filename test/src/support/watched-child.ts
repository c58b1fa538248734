/**
 * A forked child of a process-mode program: its stderr tail kept for reports, and any exit the test
 * did not ask for recorded as a problem (an operator or a server must never exit by itself).
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/** The words of every violation that reports an exit nobody asked for (counted as "unexpected exits"). */
export const EXITED_BY_ITSELF = 'exited by itself';

/** Lines of stderr kept for a report. */
const STDERR_TAIL_LINES = 15;

/** A child process and how it ended. */
export class WatchedChild {
  readonly child: ChildProcess;
  /** Exits nobody asked for, described. */
  readonly problems: string[] = [];
  /** Resolves with the exit code (null after a signal) and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private expectExit = false;
  private stderr: string[] = [];

  /**
   * @param what how reports name it ("the operator process")
   * @param module the compiled entry
   * @param args its arguments
   */
  constructor(
    private readonly what: string,
    module: string,
    args: string[],
  ) {
    this.child = fork(module, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.stderr.push(...chunk.split('\n').filter((l) => l !== ''));
      if (this.stderr.length > STDERR_TAIL_LINES) this.stderr = this.stderr.slice(-STDERR_TAIL_LINES);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (!this.expectExit) this.problems.push(`${this.what} (pid ${this.child.pid}) ${EXITED_BY_ITSELF}: ${describeExit(code, signal)}${this.stderrTail()}`);
        resolve({ code, signal });
      });
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` (the exit that follows is expected) and waits for the exit, SIGKILL after `timeoutMs`. */
  async stop(signal: NodeJS.Signals, timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; killedAfterTimeout: boolean }> {
    this.expectExit = true;
    if (!this.running) return { ...(await this.exited), killedAfterTimeout: false };
    this.child.kill(signal);
    let killedAfterTimeout = false;
    const timer = setTimeout(() => {
      killedAfterTimeout = true;
      this.child.kill('SIGKILL');
    }, timeoutMs);
    try {
      return { ...(await this.exited), killedAfterTimeout };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The last lines of its stderr, for a report ('' when it wrote none). */
  stderrTail(): string {
    return this.stderr.length === 0 ? '' : `; its last stderr lines:\n      ${this.stderr.join('\n      ')}`;
  }
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) return `signal ${signal}`;
  return code === 13 ? 'code 13 (a top-level await never settled: nothing held the event loop)' : `code ${code}`;
}
