/**
 * The `kubeloop-apiserver` CLI as a child process, for tests that must kill the server for real
 * (SIGKILL) and restart it on the same data directory.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitOf } from './child-exit.js';
import type { Exit } from './child-exit.js';

/** The compiled CLI (`tsc -b` builds it). Same depth from `test/src/support` and `test/dist/support`. */
export const APISERVER_CLI = fileURLToPath(new URL('../../../packages/apiserver/dist/cli.js', import.meta.url));

/** Options of {@link ApiServerProcess.start}. */
export interface ApiServerProcessOptions {
  /** `--data-dir`. */
  dataDir: string;
  /** Where `--kubeconfig-out` writes. Default: `<dataDir>/../kubeconfig`. */
  kubeconfigOut?: string;
  /** `--fsync`. Default: the CLI's (always). */
  fsync?: 'always' | 'batch' | 'never';
  /** `--repair`. Default false. */
  repair?: boolean;
  /** Fail if the server does not print its listening line within this many ms. Default 15000. */
  startTimeoutMs?: number;
}

/** A running `kubeloop-apiserver`. */
export class ApiServerProcess {
  /** Everything the process wrote to stderr so far (diagnostics such as log corruption). */
  stderr = '';
  /** Resolves with the exit code or signal. */
  readonly exited: Promise<Exit>;

  private constructor(
    private readonly child: ChildProcess,
    /** `http://127.0.0.1:<port>`. */
    readonly url: string,
    stderrSoFar: string,
    exited: Promise<Exit>,
  ) {
    this.stderr = stderrSoFar;
    this.exited = exited;
    child.stderr?.on('data', (chunk: string) => (this.stderr += chunk));
  }

  /** The process id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Starts the CLI on port 0 and resolves once it prints `kubeloop-apiserver listening on <url>`. */
  static start(options: ApiServerProcessOptions): Promise<ApiServerProcess> {
    if (!existsSync(APISERVER_CLI)) return Promise.reject(new Error(`${APISERVER_CLI} is missing: run \`npx tsc -b\` first`));
    const args = [APISERVER_CLI, '--port', '0', '--data-dir', options.dataDir, '--kubeconfig-out', options.kubeconfigOut ?? join(options.dataDir, '..', 'kubeconfig')];
    if (options.fsync !== undefined) args.push('--fsync', options.fsync);
    if (options.repair === true) args.push('--repair');
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    const exited = exitOf(child);
    const timeoutMs = options.startTimeoutMs ?? 15_000;
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      const onStderr = (chunk: string): void => {
        stderr += chunk;
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`kubeloop-apiserver did not start within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
      }, timeoutMs);
      const onStdout = (chunk: string): void => {
        stdout += chunk;
        const match = /kubeloop-apiserver listening on (\S+)\n/.exec(stdout);
        if (!match) return;
        clearTimeout(timer);
        child.stdout.off('data', onStdout);
        child.stderr.off('data', onStderr);
        child.stdout.resume();
        resolve(new ApiServerProcess(child, match[1]!, stderr, exited));
      };
      child.stdout.on('data', onStdout);
      child.stderr.on('data', onStderr);
      void exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`kubeloop-apiserver exited before listening (${JSON.stringify(exit)})\nstdout: ${stdout}\nstderr: ${stderr}`));
      });
    });
  }

  /** Sends `signal` (default SIGKILL: a crash, nothing flushed by the process) and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}
