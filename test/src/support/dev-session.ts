/**
 * `kubeloop dev` run by a test as a user runs it at a terminal: in a process group of its own (Ctrl-C
 * is SIGINT to that group), its output read as it comes, bounded in time; and the check that nothing
 * it started outlives it (any process whose command line or working directory is in the project).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { waitFor } from './wait-for.js';

export interface DevSessionOptions {
  /** The `kubeloop` executable (its bin file). */
  readonly kubeloop: string;
  /** The project. */
  readonly cwd: string;
  /** Extra arguments after `dev`. Default: none. */
  readonly args?: readonly string[] | undefined;
}

export class DevSession {
  stdout = '';
  stderr = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(options: DevSessionOptions) {
    this.child = spawn(process.execPath, [options.kubeloop, 'dev', ...(options.args ?? [])], {
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', NODE_TEST_CONTEXT: '' },
    });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Waits until standard output matches `pattern`; returns the match. */
  async waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return waitFor(() => this.stdout.match(pattern), { timeoutMs, what: `kubeloop dev to print ${String(pattern)}\nstdout so far:\n${this.stdout}\nstderr:\n${this.stderr}` });
  }

  /** Ctrl-C: SIGINT to its process group; resolves with how it exited (killing it after `timeoutMs`). */
  async interrupt(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    signalGroup(this.pid, 'SIGINT');
    const timer = setTimeout(() => signalGroup(this.pid, 'SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Last resort for `after()`: kills its group. */
  kill(): void {
    signalGroup(this.pid, 'SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // gone
  }
}

/** Pids of the processes (other than this one) whose command line or working directory mentions `dir`. */
export function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cmdline.includes(dir) || cwd === dir || cwd.startsWith(`${dir}/`)) found.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
