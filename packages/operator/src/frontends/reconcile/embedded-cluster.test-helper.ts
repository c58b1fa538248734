/**
 * Integration-test plumbing of the front-ends: an embedded API server on 127.0.0.1:0, typed clients
 * for it over one shared HTTP transport, and the test kit's polling `waitFor` (from @kubeloop/apiserver/testing).
 *
 * Clients talk to the server's URL directly rather than through `createClient(kind, kubeConfig)`:
 * loading a kubeconfig loads @kubernetes/client-node, which costs seconds per test file on a busy
 * machine and is covered by the cross-package tests in `test/`.
 */
import { after, before } from 'node:test';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { Client, HttpTransport } from '@kubeloop/resource';
import type { Kind, KubeObject } from '@kubeloop/resource';

export { waitFor } from '@kubeloop/apiserver/testing';

/** A running embedded API server and a way to get clients for it. */
export interface EmbeddedCluster {
  server: ApiServer;
  client<T extends KubeObject>(kind: Kind<T>): Client<T>;
  /** Closes the clients' connections and stops the server. */
  stop(): Promise<void>;
}

/** Starts an embedded API server. */
export async function startEmbeddedCluster(): Promise<EmbeddedCluster> {
  const server = await startApiServer();
  const transport = new HttpTransport({ server: server.url });
  return {
    server,
    client: (kind) => new Client(kind, transport),
    stop: async () => {
      transport.close();
      await server.stop();
    },
  };
}

/**
 * Registers hooks on the enclosing suite: an embedded cluster starts before its tests and stops after
 * them. The handle returned is usable from the suite's later `before` hooks and its tests.
 */
export function useEmbeddedCluster(): EmbeddedCluster {
  let cluster: EmbeddedCluster | undefined;
  before(async () => {
    cluster = await startEmbeddedCluster();
  });
  after(() => cluster?.stop());
  const running = (): EmbeddedCluster => {
    if (cluster === undefined) throw new Error('useEmbeddedCluster: the cluster starts in the suite\'s before hook; use it in a later hook or a test');
    return cluster;
  };
  return {
    get server() {
      return running().server;
    },
    client: (kind) => running().client(kind),
    stop: () => running().stop(),
  };
}
