/**
 * The fixture of the kubectl suites: an embedded API server, the real kubectl bound to it (its
 * kubeconfig and cache in a temporary directory), and the long-running kubectl commands started on
 * it, all disposed of by `stop()`.
 */
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer, ApiServerOptions } from '@kubeloop/apiserver';
import { Kubectl } from './kubectl.js';
import type { KubectlProcess } from './kubectl.js';
import { TempDirs } from './temp-dir.js';

/** An embedded API server with a kubectl bound to it. */
export class KubectlServer {
  private readonly running: KubectlProcess[] = [];

  private constructor(
    readonly server: ApiServer,
    readonly kubectl: Kubectl,
    private readonly temp: TempDirs,
  ) {}

  /** Starts a server with `options` (default: in memory, plain HTTP) and prepares kubectl for it; throws when kubectl is not installed. */
  static async start(options: ApiServerOptions = {}): Promise<KubectlServer> {
    const server = await startApiServer(options);
    const temp = new TempDirs();
    try {
      return new KubectlServer(server, await Kubectl.create(server.kubeconfig, await temp.make('kubectl')), temp);
    } catch (error) {
      await server.stop();
      await temp.removeAll();
      throw error;
    }
  }

  /** Starts a long-running kubectl command (`get -w`, a waiting `delete`); {@link stop} kills it if it still runs. */
  spawn(args: string[]): KubectlProcess {
    const p = this.kubectl.spawn(args);
    this.running.push(p);
    return p;
  }

  /** Kills the commands still running, stops the server and removes kubectl's directory. */
  async stop(): Promise<void> {
    await Promise.all(this.running.map((p) => p.kill()));
    await this.server.stop();
    await this.temp.removeAll();
  }
}
