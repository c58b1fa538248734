/**
 * The operator as a child process: `node <build>/main.js --kubeconfig <file> --metrics-port <port>`, in a
 * process group of its own (a Ctrl-C at the terminal reaches `kubeloop dev` only, which then stops the
 * operator with one SIGTERM: a graceful stop that releases its Lease, so that the next one leads at once).
 * Its output goes to a log file; its readiness is its own `/readyz`. The next process is started ahead
 * (`prepare`, see `operator-runner.ts`): it has loaded the libraries by the time a change comes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** How to start the operator. */
export interface OperatorProcessOptions {
  /** The compiled entry point. */
  readonly main: string;
  /** A module that imports the project's dependencies (see `operator-runner.ts`). */
  readonly preload: string;
  readonly cwd: string;
  readonly kubeconfig: string;
  /** The port of its metrics server (and status page), on 127.0.0.1. */
  readonly metricsPort: number;
  /** Where its stdout and stderr are appended. */
  readonly logFile: string;
  /** Called when it exits on its own (not stopped by us), with its exit code and the end of its output. */
  readonly onExit: (code: number | null, tail: string) => void;
}

/** How long a stop waits for a graceful exit before SIGKILL. */
const STOP_GRACE_MS = 10_000;
/** Characters of output kept to show why it exited. */
const TAIL_CHARS = 2_000;

export class OperatorProcess {
  private child: ChildProcess | undefined;
  private spare: ChildProcess | undefined;
  private log: WriteStream | undefined;
  private stopping = false;
  private tail = '';

  constructor(private readonly options: OperatorProcessOptions) {}

  /** The metrics server's base URL. */
  get url(): string {
    return `http://127.0.0.1:${this.options.metricsPort}`;
  }

  /** Starts the next operator process ahead of time, loading the libraries that `preload` imports. */
  prepare(): void {
    if (this.spare === undefined) this.spare = this.spawnRunner();
  }

  /** Starts it (the prepared process when there is one); returns at once (see {@link waitReady}). */
  start(): void {
    this.stopping = false;
    this.tail = '';
    this.log = createWriteStream(this.options.logFile, { flags: 'a' });
    const child = this.spare ?? this.spawnRunner();
    this.spare = undefined;
    child.send('go');
    this.child = child;
    const record = (chunk: Buffer): void => {
      this.log?.write(chunk);
      this.tail = (this.tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
    };
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    child.on('exit', (code) => {
      if (this.child === child) this.child = undefined;
      if (!this.stopping) this.options.onExit(code, this.tail);
    });
  }

  private spawnRunner(): ChildProcess {
    const { main, preload, cwd, kubeconfig, metricsPort } = this.options;
    const runner = fileURLToPath(new URL('./operator-runner.js', import.meta.url));
    const child = spawn(process.execPath, ['--enable-source-maps', runner, preload, main, '--kubeconfig', kubeconfig, '--metrics-port', String(metricsPort)], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, KUBECONFIG: kubeconfig, METRICS_HOST: '127.0.0.1', METRICS_PORT: String(metricsPort) },
    });
    child.on('error', () => undefined);
    return child;
  }

  /** True while the child runs. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Polls `/readyz` until it answers 200; false when the process exited or `deadlineMs` passed first. */
  async waitReady(deadlineMs: number, signal?: AbortSignal): Promise<boolean> {
    const until = performance.now() + deadlineMs;
    while (performance.now() < until && this.running && signal?.aborted !== true) {
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(1_000) });
        await res.arrayBuffer();
        if (res.status === 200) return true;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  }

  /** Stops it: SIGTERM to its group, SIGKILL after the grace period; resolves once it exited. */
  async stop(): Promise<void> {
    const child = this.child;
    this.stopping = true;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
      this.closeLog();
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    // Anything it started in its group goes with it.
    signalGroup(child, 'SIGKILL');
    this.child = undefined;
    this.closeLog();
  }

  /** Last resort on our own exit: kills the group at once, synchronously. */
  killNow(): void {
    for (const child of [this.child, this.spare]) if (child !== undefined) signalGroup(child, 'SIGKILL');
  }

  /** Stops the prepared process, if any (at the end). */
  dropSpare(): void {
    if (this.spare !== undefined) signalGroup(this.spare, 'SIGKILL');
    this.spare = undefined;
  }

  private closeLog(): void {
    this.log?.end();
    this.log = undefined;
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
