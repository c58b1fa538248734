/**
 * `startTestEnv()`: what controller-runtime's envtest gives Go operators, on the embedded API server:
 * a real API server over HTTP on 127.0.0.1 with the operator's CRDs installed and served, a
 * kubeconfig file for it, typed clients, the server's fault injection, and `stop()`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, HttpTransport, NamespaceKind, ensureCrd } from '@kubeloop/resource';
import type { CustomResourceDefinition, EnsureCrdOptions, Kind, KubeObject } from '@kubeloop/resource';
import { startApiServer } from '../api-server.js';
import type { ApiServer, ApiServerOptions } from '../api-server.js';
import type { Faults } from '../faults.js';

/** Options of {@link startTestEnv}. */
export interface TestEnvOptions {
  /** CRDs installed before `startTestEnv` resolves, each Established and served. Default: none. */
  crds?: readonly CustomResourceDefinition[] | undefined;
  /** Namespaces created besides `default` and `kube-system`. Default: none. */
  namespaces?: readonly string[] | undefined;
  /** Options of the embedded server. Default: `startApiServer`'s (127.0.0.1, a free port, in memory). */
  server?: ApiServerOptions | undefined;
}

/** A running test environment. */
export interface TestEnv {
  /** The embedded API server. */
  readonly server: ApiServer;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Kubeconfig YAML for the server (context `kubeloop`, namespace `default`). */
  readonly kubeconfig: string;
  /**
   * A file holding {@link TestEnv.kubeconfig}, removed by `stop()`: for `loadKubeConfig({ kubeconfigPath })`,
   * `KUBECONFIG` of a child process, or `kubectl --kubeconfig`.
   */
  readonly kubeconfigPath: string;
  /** The HTTP transport the clients of {@link TestEnv.client} share. */
  readonly transport: HttpTransport;
  /**
   * The server's fault injection, to drive faults by hand: drop every watch, fail the next requests
   * with a status (5xx, 429), forget watch history (410 on resume), add latency.
   */
  readonly faults: Faults;
  /** A typed client for `kind` on this server, over {@link TestEnv.transport}. */
  client<T extends KubeObject>(kind: Kind<T>): Client<T>;
  /** Installs or updates one more CRD and waits until it is served (`ensureCrd`). */
  ensureCrd(crd: CustomResourceDefinition, options?: EnsureCrdOptions): Promise<CustomResourceDefinition>;
  /** Closes the clients' connections, stops the server, removes the kubeconfig file. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts an embedded API server, installs `crds` and creates `namespaces`; resolves once every CRD
 * is served. If any of that fails, what was started is stopped and the error is thrown.
 */
export async function startTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  const server = await startApiServer(options.server);
  const transport = new HttpTransport({ server: server.url });
  let dir: string | undefined;
  const cleanUp = async (): Promise<void> => {
    transport.close();
    await server.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  };
  try {
    dir = await mkdtemp(join(tmpdir(), 'kubeloop-test-env-'));
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, server.kubeconfig, 'utf8');
    for (const crd of options.crds ?? []) await ensureCrd(transport, crd);
    const namespaces = new Client(NamespaceKind, transport);
    for (const name of options.namespaces ?? []) await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    let stopping: Promise<void> | undefined;
    return {
      server,
      url: server.url,
      kubeconfig: server.kubeconfig,
      kubeconfigPath,
      transport,
      faults: server.faults,
      client: (kind) => new Client(kind, transport),
      ensureCrd: (crd, ensureOptions) => ensureCrd(transport, crd, ensureOptions),
      stop: () => (stopping ??= cleanUp()),
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
