/**
 * The cluster `kubeloop dev` runs against: the embedded API server (simulated cluster: Deployments get Pods
 * that become Ready) with its data under the project, persisted across restarts, or a real cluster given
 * by `--kubeconfig`. Either way the project's CRDs are installed or brought up to date.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { HttpTransport, ensureCrd, loadKubeConfig } from '@kubeloop/resource';
import type { CustomResourceDefinition } from '@kubeloop/resource';
import type { ApiServer, ApiServerOptions } from '@kubeloop/apiserver';
import { CommandFailure } from '../cli-errors.js';
import { importFromProject } from './project-module.js';

/** A running cluster: where it is, and how to stop what we started. */
export interface DevCluster {
  /** The kubeconfig file the operator and kubectl use. */
  readonly kubeconfig: string;
  /** The server's URL. */
  readonly server: string;
  /** True for the embedded API server. */
  readonly embedded: boolean;
  /** Creates or updates the CRDs and waits until they are served. */
  installCrds(crds: readonly CustomResourceDefinition[]): Promise<void>;
  stop(): Promise<void>;
}

/** Options of {@link startDevCluster}. */
export interface DevClusterOptions {
  readonly root: string;
  /** The state folder (`.kubeloop`): `data/` and `kubeconfig` go there. */
  readonly stateDir: string;
  /** A real cluster's kubeconfig instead of the embedded server. Default: none. */
  readonly kubeconfig?: string | undefined;
  /** The embedded server's port. Default: 0 (any free one). */
  readonly port?: number | undefined;
}

interface ApiServerModule {
  startApiServer(options: ApiServerOptions): Promise<ApiServer>;
}

export async function startDevCluster(options: DevClusterOptions): Promise<DevCluster> {
  if (options.kubeconfig !== undefined) {
    const kubeconfig = resolve(options.root, options.kubeconfig);
    const config = loadKubeConfig({ kubeconfigPath: kubeconfig, kubeconfigPathFrom: '--kubeconfig' });
    const transport = HttpTransport.fromKubeConfig(config);
    return {
      kubeconfig,
      server: config.getCurrentCluster()?.server ?? '(unknown server)',
      embedded: false,
      installCrds: (crds) => install(transport, crds),
      stop: () => Promise.resolve(transport.close()),
    };
  }
  // The project's own (a devDependency of every scaffolded project), at the project's version.
  const module = await importFromProject<ApiServerModule>(options.root, '@kubeloop/apiserver');
  if (module === undefined) throw new CommandFailure('the embedded API server is not installed in this project: `npm install -D @kubeloop/apiserver`, or pass --kubeconfig');
  const dataDir = join(options.stateDir, 'data');
  await mkdir(dataDir, { recursive: true });
  let server: ApiServer;
  try {
    server = await module.startApiServer({ simulate: true, dataDir, port: options.port ?? 0, fsync: 'batch' });
  } catch (error) {
    if ((error as { name?: unknown }).name === 'DataDirLockedError') {
      throw new CommandFailure(`${dataDir} is in use by another kubeloop dev (stop it first)`);
    }
    throw error;
  }
  const kubeconfig = join(options.stateDir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const transport = new HttpTransport({ server: server.url });
  return {
    kubeconfig,
    server: server.url,
    embedded: true,
    installCrds: (crds) => install(transport, crds),
    stop: async () => {
      transport.close();
      await server.stop();
    },
  };
}

async function install(transport: HttpTransport, crds: readonly CustomResourceDefinition[]): Promise<void> {
  await Promise.all(crds.map((crd) => ensureCrd(transport, crd)));
}
