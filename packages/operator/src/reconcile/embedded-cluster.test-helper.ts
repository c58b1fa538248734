/**
 * Integration-test plumbing of the front-ends: an embedded API server on 127.0.0.1:0, typed clients
 * for it over one shared HTTP transport, and a polling `waitFor`.
 *
 * Clients talk to the server's URL directly rather than through `createClient(kind, kubeConfig)`:
 * loading a kubeconfig loads @kubernetes/client-node, which costs seconds per test file on a busy
 * machine and is covered by the cross-package tests in `test/`.
 */
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { Client, HttpTransport } from '@kubeloop/resource';
import type { Kind, KubeObject } from '@kubeloop/resource';

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

/** Polls `condition` (sync or async) every 10 ms until it holds; throws after `timeoutMs` (default 10 s) with `what`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, options: { timeoutMs?: number; what?: string } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`waitFor: ${options.what ?? 'condition'} not met in time`);
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
  }
}
