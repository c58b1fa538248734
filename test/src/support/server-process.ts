/**
 * An API server in a child process of the test (server-process-main.ts), for tests that run
 * operators as the separate processes users deploy: faults over IPC, a real crash (SIGKILL), and a
 * restart of the process on the same data directory and port, so clients and kubeconfigs keep working.
 */
import { fileURLToPath } from 'node:url';
import { writeFile } from 'node:fs/promises';
import { ChildRpc } from './child-rpc.js';
import type { FaultCommand, ServerChildOptions, ServingMessage } from './child-protocol.js';
import { WatchedChild } from './watched-child.js';

const MAIN = fileURLToPath(new URL('./server-process-main.js', import.meta.url));
/** How long a server process may take to serve. */
const START_TIMEOUT_MS = 30_000;

/** Options of {@link ServerProcess.start}. */
export interface ServerProcessOptions {
  /** Where the objects are kept (across restarts). */
  dataDir: string;
  /** Watch history kept per kind. Default: the server's. */
  historyWindow?: number | undefined;
  /** Where to write a kubeconfig for it. Default: none. */
  kubeconfigPath?: string | undefined;
}

/** A running (or crashed, between {@link ServerProcess.crash} and {@link ServerProcess.restart}) server process. */
export class ServerProcess {
  /** Exits nobody asked for, over every process of this server so far. */
  readonly problems: string[] = [];
  private current: { watched: WatchedChild; rpc: ChildRpc<FaultCommand> } | undefined;

  private constructor(
    private readonly options: ServerProcessOptions,
    /** `http://127.0.0.1:<port>`, the same across restarts. */
    readonly url: string,
    current: { watched: WatchedChild; rpc: ChildRpc<FaultCommand> },
  ) {
    this.current = current;
  }

  /** Starts the server on a free port; resolves once it serves (and the kubeconfig is written). */
  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    const { child, serving } = await spawnServer({ dataDir: options.dataDir, port: 0, historyWindow: options.historyWindow });
    if (options.kubeconfigPath !== undefined) await writeFile(options.kubeconfigPath, serving.kubeconfig);
    return new ServerProcess(options, serving.serving, child);
  }

  /** The current process's pid, if one runs. */
  get pid(): number | undefined {
    return this.current?.watched.child.pid;
  }

  /** Applies a fault in the running server. */
  async fault(command: FaultCommand): Promise<void> {
    if (this.current === undefined) throw new Error('the server process is down');
    await this.current.rpc.ask(command);
  }

  /** SIGKILL: the server is gone at once, nothing flushed by the process (what was acknowledged is on disk). */
  async crash(): Promise<void> {
    await this.end('SIGKILL');
  }

  /** Starts a new process on the same data directory and port (after {@link crash}, or restarting a running one with a crash). */
  async restart(): Promise<void> {
    if (this.current !== undefined) await this.crash();
    const port = Number(new URL(this.url).port);
    this.current = (await spawnServer({ dataDir: this.options.dataDir, port, historyWindow: this.options.historyWindow })).child;
  }

  /** Stops the server; every exit nobody asked for, described. */
  async stop(): Promise<string[]> {
    await this.end('SIGTERM');
    return this.problems;
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const current = this.current;
    if (current === undefined) return;
    this.current = undefined;
    await current.watched.stop(signal, 10_000);
    this.problems.push(...current.watched.problems);
  }
}

async function spawnServer(options: ServerChildOptions): Promise<{ child: { watched: WatchedChild; rpc: ChildRpc<FaultCommand> }; serving: ServingMessage }> {
  const watched = new WatchedChild('the API server process', MAIN, [JSON.stringify(options)]);
  const rpc = new ChildRpc<FaultCommand>(watched.child, 'the API server process');
  const serving = await new Promise<ServingMessage>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the API server process did not serve within ${START_TIMEOUT_MS} ms${watched.stderrTail()}`)), START_TIMEOUT_MS);
    watched.child.on('message', (message: Partial<ServingMessage>) => {
      if (typeof message.serving !== 'string' || typeof message.kubeconfig !== 'string') return;
      clearTimeout(timer);
      resolve({ serving: message.serving, kubeconfig: message.kubeconfig });
    });
    void watched.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the API server process exited before it served${watched.stderrTail()}`));
    });
  });
  return { child: { watched, rpc }, serving };
}
