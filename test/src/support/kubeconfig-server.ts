/**
 * The embedded API server reached the way a user's program reaches a cluster: through its
 * kubeconfig, loaded by @kubernetes/client-node's `KubeConfig`, and `HttpTransport.fromKubeConfig`.
 * For the tests of informers and controllers over real HTTP.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer, ApiServerOptions } from '@kubeloop/apiserver';
import { Client, HttpTransport, NamespaceKind } from '@kubeloop/resource';

/** A running embedded API server, its kubeconfig loaded, and the transports made from it. */
export class KubeconfigServer {
  /** The server, for its faults and URL. */
  readonly server: ApiServer;
  /** The server's kubeconfig as client-node loads it (for `makeApiClient`, or another transport). */
  readonly kubeConfig: KubeConfig;
  /** A transport made from {@link kubeConfig}; {@link stop} closes it. */
  readonly transport: HttpTransport;
  private readonly transports: HttpTransport[] = [];

  private constructor(server: ApiServer) {
    this.server = server;
    this.kubeConfig = new KubeConfig();
    this.kubeConfig.loadFromString(server.kubeconfig);
    this.transport = this.newTransport();
  }

  /** Starts an in-memory server on 127.0.0.1 and a free port, with `options` (default: the server's defaults). */
  static async start(options?: ApiServerOptions): Promise<KubeconfigServer> {
    return new KubeconfigServer(await startApiServer(options));
  }

  /** One more transport with its own connections (a second client, e.g. a writer beside an informer); {@link stop} closes it. */
  newTransport(): HttpTransport {
    const transport = HttpTransport.fromKubeConfig(this.kubeConfig);
    this.transports.push(transport);
    return transport;
  }

  /** Creates the namespace `name` over {@link transport}. */
  async createNamespace(name: string): Promise<void> {
    await new Client(NamespaceKind, this.transport).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  /** Closes every transport made, then stops the server. */
  async stop(): Promise<void> {
    for (const transport of this.transports) transport.close();
    await this.server.stop();
  }
}
