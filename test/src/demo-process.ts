/**
 * Test support for the demo tests: run the compiled demo (`examples/playlist-operator/dist/main.js`)
 * as a child process and read its output line by line.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from './support/wait-for.js';

/** The compiled demo entry point (`tsc -b` builds it with the rest of the tree). */
export const DEMO_MAIN = fileURLToPath(new URL('../../examples/playlist-operator/dist/main.js', import.meta.url));

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running demo process with its output collected. */
export class DemoProcess {
  readonly child: ChildProcess;
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    if (!existsSync(DEMO_MAIN)) throw new Error(`${DEMO_MAIN} is missing: run \`npx tsc -b\` first`);
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    // The demo must never pick up a developer's cluster from the environment.
    if (!('KUBECONFIG' in env)) delete childEnv.KUBECONFIG;
    if (!('OTEL_EXPORTER_OTLP_ENDPOINT' in env)) delete childEnv.OTEL_EXPORTER_OTLP_ENDPOINT;
    this.child = spawn(process.execPath, [DEMO_MAIN, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    collectLines(this.child.stdout!, this.stdout);
    collectLines(this.child.stderr!, this.stderr);
    this.exited = new Promise<Exit>((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  /** Resolves with the first stdout line matching `pattern` (also one printed earlier). */
  async line(pattern: RegExp, timeoutMs: number): Promise<string> {
    try {
      // An exit ends the wait early: the line will never come.
      await waitFor(() => this.exit !== undefined || this.stdout.some((l) => pattern.test(l)), { timeoutMs, what: `${pattern} in the demo's output` });
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${this.transcript()}`);
    }
    const found = this.stdout.find((l) => pattern.test(l));
    if (found === undefined) throw new Error(`the demo exited (${JSON.stringify(this.exit)}) before printing ${pattern}\n${this.transcript()}`);
    return found;
  }

  /** Waits for the exit, killing the process (SIGKILL) if it takes longer than `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<Exit> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Everything printed so far, for assertion messages. */
  transcript(): string {
    return `--- stdout\n${this.stdout.join('\n')}\n--- stderr\n${this.stderr.join('\n')}`;
  }

  /** Kills the process if it still runs (for `after()` hooks). */
  async dispose(): Promise<void> {
    if (this.exit) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

function collectLines(stream: NodeJS.ReadableStream, into: string[]): void {
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
