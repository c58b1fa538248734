/**
 * `--replicas N`: the demo starts N-1 more replicas of itself, each a process of its own as a
 * Deployment's pods would be, and prints their lines tagged with their identity. A replica learns
 * that it was started this way from {@link replicaEnv}; it stops by itself when the demo goes
 * (its IPC channel closes), since the embedded API server it talks to goes with the demo.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Set in the environment of a replica the demo started. */
export const replicaEnv = 'KUBELOOP_DEMO_REPLICA';

/** One started replica. */
interface Replica {
  readonly identity: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

/** The replicas the demo started. */
export class ReplicaProcesses {
  readonly #replicas: Replica[] = [];

  /**
   * Starts one replica per identity: the demo's own entry point with `args(identity)`, its output
   * lines passed to `print` and `printError` tagged `[identity]`.
   */
  constructor(identities: readonly string[], args: (identity: string) => string[], print: (line: string) => void, printError: (line: string) => void) {
    const main = fileURLToPath(new URL('./main.js', import.meta.url));
    for (const identity of identities) {
      const child = spawn(process.execPath, [main, ...args(identity)], {
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        env: { ...process.env, [replicaEnv]: identity },
      });
      const tag = `[${identity}]`;
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => print(`${tag} ${line}`));
      createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => printError(`${tag} ${line}`));
      const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
        if (code !== 0) printError(`${tag} exited with ${signal ?? `code ${code}`}`);
        resolve();
      }));
      this.#replicas.push({ identity, child, exited });
    }
  }

  /** Asks every replica to shut down gracefully (SIGTERM) and waits for them, at most `timeoutMs` before SIGKILL. */
  async stop(timeoutMs: number): Promise<void> {
    for (const { child } of this.#replicas) if (child.exitCode === null) child.kill('SIGTERM');
    const all = Promise.all(this.#replicas.map((r) => r.exited));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    if ((await Promise.race([all, late])) === 'late') for (const { child } of this.#replicas) child.kill('SIGKILL');
    clearTimeout(timer);
    await all;
  }
}

/** In a replica the demo started: stop (abort `stop`) when the demo's channel closes, without that channel holding the process open. */
export function stopWithTheDemo(stop: AbortController): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => stop.abort());
}
