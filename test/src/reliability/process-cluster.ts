/**
 * The API server of a process-mode program in a child process (cluster-process-main.ts): faults go
 * over IPC, and the restart fault is a real crash, SIGKILL, then a new process on the same data
 * directory and port (fsync on every write: nothing acknowledged may be lost).
 */
import { fileURLToPath } from 'node:url';
import { Client, ConfigMapKind, HttpTransport } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { ChildRpc } from './child-rpc.js';
import { WatchedChild } from './child-process-watch.js';
import { GadgetKind } from './cluster.js';
import type { Gadget } from './cluster.js';
import type { FaultCommand, ServingMessage } from './process-protocol.js';
import type { ProgramCluster } from './program-target.js';

const MAIN = fileURLToPath(new URL('./cluster-process-main.js', import.meta.url));
/** How long a server process may take to serve. */
const START_TIMEOUT_MS = 30_000;

/** A server child and the clients of the test. */
class ClusterProcess implements ProgramCluster {
  readonly gadgets: Client<Gadget>;
  readonly configMaps: Client<ConfigMap>;
  private readonly transport: HttpTransport;
  private readonly problems: string[] = [];

  private constructor(
    private server: { watched: WatchedChild; rpc: ChildRpc<FaultCommand> },
    readonly url: string,
    private readonly dataDir: string,
  ) {
    this.transport = new HttpTransport({ server: url });
    this.gadgets = new Client(GadgetKind, this.transport);
    this.configMaps = new Client(ConfigMapKind, this.transport);
  }

  static async start(dataDir: string): Promise<ClusterProcess> {
    const { server, url } = await ClusterProcess.spawn(dataDir, 0);
    return new ClusterProcess(server, url, dataDir);
  }

  private static async spawn(dataDir: string, port: number): Promise<{ server: { watched: WatchedChild; rpc: ChildRpc<FaultCommand> }; url: string }> {
    const watched = new WatchedChild('the API server process', MAIN, [dataDir, String(port)]);
    const rpc = new ChildRpc<FaultCommand>(watched.child, 'the API server process');
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the API server process did not serve within ${START_TIMEOUT_MS} ms${watched.stderrTail()}`)), START_TIMEOUT_MS);
      watched.child.on('message', (message: Partial<ServingMessage>) => {
        if (typeof message.serving !== 'string') return;
        clearTimeout(timer);
        resolve(message.serving);
      });
      void watched.exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`the API server process exited before it served${watched.stderrTail()}`));
      });
    });
    return { server: { watched, rpc }, url };
  }

  async fault(command: FaultCommand): Promise<void> {
    await this.server.rpc.ask(command);
  }

  async restart(): Promise<void> {
    await this.server.watched.stop('SIGKILL', 5000);
    this.problems.push(...this.server.watched.problems);
    this.server = (await ClusterProcess.spawn(this.dataDir, Number(new URL(this.url).port))).server;
  }

  async stop(): Promise<string[]> {
    this.transport.close();
    await this.server.watched.stop('SIGTERM', 10_000);
    return [...this.problems, ...this.server.watched.problems];
  }
}

/** Starts the server of a program in a child process, on `dataDir`. */
export function clusterInChildProcess(dataDir: string): Promise<ProgramCluster> {
  return ClusterProcess.start(dataDir);
}
