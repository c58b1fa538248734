/**
 * `tsc --noEmit` of the project, beside the restart rather than in front of it: each change starts a
 * new check (the previous one, if still running, is stopped) and its outcome is reported when it ends.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { resolveFromProject } from './project-module.js';

/** The outcome of one check. */
export interface TypeCheckResult {
  readonly errors: number;
  /** The first error line, when there are errors. */
  readonly first?: string | undefined;
  readonly ms: number;
}

export class TypeChecker {
  private running: ChildProcess | undefined;
  private readonly tsc: string | undefined;

  /** @param onResult called when a check ends (not when it was stopped by a newer one). */
  constructor(
    private readonly root: string,
    private readonly onResult: (result: TypeCheckResult) => void,
  ) {
    this.tsc = resolveFromProject(root, 'typescript/bin/tsc');
  }

  /** True when the project has TypeScript to check with. */
  get available(): boolean {
    return this.tsc !== undefined;
  }

  /** Starts a check, stopping the one still running. */
  start(): void {
    if (this.tsc === undefined) return;
    this.stop();
    const started = performance.now();
    const child = spawn(process.execPath, [this.tsc, '--noEmit', '-p', this.root, '--pretty', 'false'], { cwd: this.root, stdio: ['ignore', 'pipe', 'pipe'] });
    this.running = child;
    // Background work: the operator's restart comes first.
    try {
      if (child.pid !== undefined) setPriority(child.pid, 19);
    } catch {
      // Not allowed here: it runs at normal priority.
    }
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('close', () => {
      if (this.running !== child) return;
      this.running = undefined;
      const lines = output.split('\n').filter((line) => /error TS\d+:/.test(line));
      this.onResult({ errors: lines.length, first: lines[0], ms: performance.now() - started });
    });
  }

  /** Stops the running check, if any. */
  stop(): void {
    const child = this.running;
    this.running = undefined;
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  }
}
