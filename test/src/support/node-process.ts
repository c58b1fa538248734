/**
 * A compiled Node.js program run as a child process by a test, as users run an operator: its own
 * process, its output read line by line (stdout and stderr together, in arrival order per stream).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { exitOf, exitWithin } from './child-exit.js';
import type { Exit } from './child-exit.js';
import { waitFor } from './wait-for.js';

/** A running program and everything it printed. */
export class NodeProcess {
  readonly child: ChildProcess;
  /** Every line printed so far, stdout and stderr. */
  readonly lines: string[] = [];
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;

  /**
   * @param script the compiled entry point
   * @param args its arguments
   * @param env added to (or, with `undefined` values, removed from) the test's environment
   */
  constructor(script: string, args: readonly string[], env: Record<string, string | undefined> = {}) {
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete childEnv[name];
      else childEnv[name] = value;
    }
    this.child = spawn(process.execPath, [script, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    collectLines(this.child.stdout!, this.lines);
    collectLines(this.child.stderr!, this.lines);
    this.exited = exitOf(this.child).then((exit) => (this.exit = exit));
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** How many lines so far match `pattern`. */
  count(pattern: RegExp): number {
    return this.lines.filter((l) => pattern.test(l)).length;
  }

  /**
   * Waits until `pattern` has matched `times` lines (default 1); fails early, with the transcript, if the
   * process exits first.
   */
  async line(pattern: RegExp, timeoutMs: number, times = 1): Promise<void> {
    try {
      await waitFor(() => this.exit !== undefined || this.count(pattern) >= times, { timeoutMs, what: `${times} x ${pattern} in the output of pid ${this.pid}` });
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${this.transcript()}`);
    }
    if (this.count(pattern) < times) throw new Error(`pid ${this.pid} exited (${JSON.stringify(this.exit)}) before printing ${pattern}\n${this.transcript()}`);
  }

  /** Waits for the exit, SIGKILL after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<Exit> {
    return exitWithin(this.child, this.exited, timeoutMs);
  }

  /** Sends `signal` and waits for the exit, SIGKILL after `timeoutMs`. */
  stop(signal: NodeJS.Signals, timeoutMs: number): Promise<Exit> {
    if (this.exit === undefined) this.child.kill(signal);
    return exitWithin(this.child, this.exited, timeoutMs);
  }

  /** Everything printed so far, for assertion messages. */
  transcript(): string {
    return `--- output of pid ${this.pid}\n${this.lines.join('\n')}`;
  }

  /** Kills the process if it still runs (for `after()` hooks). */
  async dispose(): Promise<void> {
    if (this.exit !== undefined) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** Appends each complete line of `stream` to `into` (the last one too, when the stream ends without a newline). */
export function collectLines(stream: NodeJS.ReadableStream, into: string[]): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    into.push(...parts);
  });
  stream.on('end', () => {
    if (rest) into.push(rest);
  });
}
