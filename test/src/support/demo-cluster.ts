/**
 * The fixture of the tests that run the demo operator as child processes: an embedded API server, a
 * temporary directory holding its kubeconfig and the processes' work directories, a transport for
 * the test's own clients, and every demo process started on it, all disposed of by `stop()`.
 */
import { join } from 'node:path';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { Client, HttpTransport } from '@kubeloop/resource';
import { DemoProcess, PlaylistKind, demoOperatorArgs } from './demo-process.js';
import type { DemoOperatorArgs, Playlist } from './demo-process.js';
import { TempDirs } from './temp-dir.js';

/** An embedded API server and the demo processes running against it. */
export class DemoCluster {
  readonly server: ApiServer;
  /** Holds `kubeconfig`, the processes' work directories and anything the test writes. */
  readonly dir: string;
  /** The kubeconfig the demo processes load. */
  readonly kubeconfig: string;
  /** For the test's own clients. */
  readonly transport: HttpTransport;
  /** Playlists in every namespace, over {@link transport}. */
  readonly playlists: Client<Playlist>;
  private readonly temp: TempDirs;
  private readonly processes: DemoProcess[] = [];

  private constructor(parts: { server: ApiServer; dir: string; kubeconfig: string; temp: TempDirs }) {
    this.server = parts.server;
    this.dir = parts.dir;
    this.kubeconfig = parts.kubeconfig;
    this.temp = parts.temp;
    this.transport = new HttpTransport({ server: parts.server.url });
    this.playlists = new Client(PlaylistKind, this.transport);
  }

  /** Starts a server and writes its kubeconfig into a new directory named `kubeloop-<name>-XXXXXX`. */
  static async start(name: string): Promise<DemoCluster> {
    const server = await startApiServer();
    const temp = new TempDirs();
    const dir = await temp.make(name);
    const kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
    return new DemoCluster({ server, dir, kubeconfig, temp });
  }

  /** Starts the demo as an operator only (see {@link demoOperatorArgs}) against this server. */
  operator(args: Omit<DemoOperatorArgs, 'kubeconfig' | 'dir'>): DemoProcess {
    const p = new DemoProcess(demoOperatorArgs({ ...args, kubeconfig: this.kubeconfig, dir: this.dir }));
    this.processes.push(p);
    return p;
  }

  /** Creates one Playlist per name in `default`, each with one item. */
  async createPlaylists(names: readonly string[]): Promise<void> {
    for (const name of names) {
      await this.playlists.create({
        apiVersion: PlaylistKind.apiVersion,
        kind: PlaylistKind.kind,
        metadata: { name, namespace: 'default' },
        spec: { title: name, interval: '30s', items: [{ type: 'dashboard_by_uid', value: name }] },
      });
    }
  }

  /** True when every named Playlist in `default` is Ready for its generation. */
  async allReady(names: readonly string[]): Promise<boolean> {
    const items = (await this.playlists.list('default')).items;
    return names.every((n) => {
      const p = items.find((i) => i.metadata.name === n);
      const c = p?.status?.conditions?.find((x) => x.type === 'Ready');
      return c?.status === 'True' && c.observedGeneration === p?.metadata.generation;
    });
  }

  /** Disposes of every process started, then stops the server and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.dispose()));
    this.transport.close();
    await this.server.stop();
    await this.temp.removeAll();
  }
}
