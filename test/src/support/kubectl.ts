/**
 * Running the real kubectl against a test server: a private kubeconfig and `--cache-dir` per
 * instance (kubectl caches discovery and OpenAPI there), a timeout on every command, and
 * long-running commands (`get -w`, a waiting `delete`) whose output can be awaited.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { exitOf, exitWithin } from './child-exit.js';
import type { Exit } from './child-exit.js';
import { waitFor } from './wait-for.js';

/**
 * The kubectl executable on `PATH`. Throws (never skips) when there is none: the kubectl suite is
 * part of the product's tests.
 */
export function resolveKubectl(): string {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'kubectl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    "kubectl was not found on PATH. The kubectl suite needs the real kubectl: install Debian's kubernetes-client package " +
      '(`apt-get install kubernetes-client`) or put a kubectl >= 1.30 on PATH.',
  );
}

/** The outcome of one kubectl command. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link Kubectl.run}. */
export interface KubectlRunOptions {
  /** Kill the command after this many milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Written to stdin (for `-f -`). Default: nothing. */
  input?: string;
}

/** kubectl bound to one server through its own kubeconfig and cache directory. */
export class Kubectl {
  private constructor(
    /** The executable. */
    readonly bin: string,
    /** The kubeconfig file used. */
    readonly kubeconfigPath: string,
    /** The `--cache-dir` used. */
    readonly cacheDir: string,
    private readonly home: string,
  ) {}

  /** Writes `kubeconfig` into `dir` and prepares a fresh cache; resolves kubectl (throws if absent). */
  static async create(kubeconfig: string, dir: string): Promise<Kubectl> {
    const bin = resolveKubectl();
    const kubeconfigPath = join(dir, 'kubeconfig');
    const cacheDir = join(dir, 'kube-cache');
    const home = join(dir, 'home');
    await writeFile(kubeconfigPath, kubeconfig, 'utf8');
    await mkdir(cacheDir, { recursive: true });
    await mkdir(home, { recursive: true });
    return new Kubectl(bin, kubeconfigPath, cacheDir, home);
  }

  private argv(args: readonly string[]): string[] {
    return [`--kubeconfig=${this.kubeconfigPath}`, `--cache-dir=${this.cacheDir}`, ...args];
  }

  private env(): NodeJS.ProcessEnv {
    // A private HOME keeps the user's ~/.kube out of the test.
    return { PATH: process.env['PATH'] ?? '', HOME: this.home, KUBECONFIG: this.kubeconfigPath };
  }

  /** Runs a command to completion; resolves with its exit code and output (a non-zero exit is not an error). */
  run(args: readonly string[], options: KubectlRunOptions = {}): Promise<KubectlResult> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.bin,
        this.argv(args),
        { env: this.env(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
        (error, stdout, stderr) => {
          if (error && (error as { killed?: boolean }).killed) {
            reject(new Error(`kubectl ${args.join(' ')} timed out after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
            return;
          }
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      child.stdin?.end(options.input ?? '');
    });
  }

  /** Runs a command that must succeed; returns its stdout. */
  async ok(args: readonly string[], options: KubectlRunOptions = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited with ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
    return result.stdout;
  }

  /** Runs a command with `-o json` and parses its output. */
  async json<T = Record<string, unknown>>(args: readonly string[], options: KubectlRunOptions = {}): Promise<T> {
    return JSON.parse(await this.ok([...args, '-o', 'json'], options)) as T;
  }

  /** Starts a long-running command. Kill it (or let it exit) before the test ends. */
  spawn(args: readonly string[]): KubectlProcess {
    return new KubectlProcess(spawn(this.bin, this.argv(args), { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] }), args);
  }
}

/** A running kubectl whose output is collected as it comes. */
export class KubectlProcess {
  /** Everything written to stdout so far. */
  stdout = '';
  /** Everything written to stderr so far. */
  stderr = '';
  /** Set once the process has exited. */
  exit: Exit | undefined;
  /** Resolves when the process exits. */
  readonly exited: Promise<Exit>;

  constructor(
    private readonly child: ChildProcess,
    private readonly args: readonly string[],
  ) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = exitOf(child).then((exit) => (this.exit = exit));
  }

  /** Waits until stdout matches `pattern`. */
  async waitForOutput(pattern: RegExp | string, timeoutMs = 15_000): Promise<void> {
    const matches = (): boolean => (typeof pattern === 'string' ? this.stdout.includes(pattern) : pattern.test(this.stdout));
    const describe = (): string => `${String(pattern)} (stdout: ${JSON.stringify(this.stdout)}, stderr: ${JSON.stringify(this.stderr)})`;
    // Fails at once if kubectl exits without printing it, rather than at the deadline.
    const exitedFirst = this.exited.then(() => {
      if (!matches()) throw new Error(`kubectl ${this.args.join(' ')} exited (${JSON.stringify(this.exit)}) without printing ${describe()}`);
    });
    await Promise.race([waitFor(matches, { timeoutMs, what: `kubectl ${this.args.join(' ')} to print ${describe()}` }), exitedFirst]);
  }

  /** Waits for the process to exit on its own, killing it after `timeoutMs`. */
  async waitForExit(timeoutMs = 30_000): Promise<Exit> {
    const exit = await exitWithin(this.child, this.exited, timeoutMs);
    if (exit.signal === 'SIGKILL') throw new Error(`kubectl ${this.args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
    return exit;
  }

  /** Stops the process (no-op once it has exited) and waits for it. */
  async kill(): Promise<void> {
    if (this.exit === undefined) this.child.kill('SIGTERM');
    await this.exited;
  }
}
