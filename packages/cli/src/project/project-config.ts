/**
 * A kubeloop project's settings: the `kubeloop` section of its package.json, with defaults. `init` writes
 * it; `generate` and `manifests` read it, so a project is always described in one place.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandFailure } from '../cli-errors.js';

/** A resource the operator uses beside its own kinds, for RBAC: `{ group: 'apps', resource: 'deployments' }`. */
export interface ResourceRef {
  /** '' for the core group. */
  readonly group: string;
  readonly resource: string;
}

/** The `kubeloop` section of package.json (every field optional there; these are the values with defaults). */
export interface ProjectConfig {
  /** The project's directory. */
  readonly root: string;
  /** Where the kind schemas are (`*.yaml`), each the source of one CRD. Default: `kinds`. */
  readonly schemas: string;
  /** Where the CRDs are (`*.yaml`, `*.yml`, `*.json`): generated from a schema or written by hand. Default: `crds`. */
  readonly crds: string;
  /** Where the TypeScript kinds are generated, one `<kind>.ts` per CRD. Default: `src/kinds`. */
  readonly types: string;
  /** The generated deployable manifests (what `kubeloop manifests` prints with the defaults). Default: `deploy/operator.yaml`. */
  readonly manifests: string;
  /** What the operator's Deployment is. */
  readonly deploy: DeployConfig;
  /** Resources the operator creates and owns (full access). Default: none. */
  readonly owns: readonly ResourceRef[];
  /** Resources the operator only reads (get, list, watch). Default: none. */
  readonly reads: readonly ResourceRef[];
}

export interface DeployConfig {
  /** The name of the Deployment, ServiceAccount, roles and Lease. Default: the package name without its scope. */
  readonly name: string;
  /** Default: `<name>-system`. */
  readonly namespace: string;
  /** Default: `<name>:latest`. */
  readonly image: string;
  /** Default: 1. */
  readonly replicas: number;
}

type Section = Partial<Omit<ProjectConfig, 'root' | 'deploy'>> & { deploy?: Partial<DeployConfig> };

/** Reads `<dir>/package.json`; fails with one line when it is missing, is not JSON, or has no `kubeloop` section. */
export async function readProjectConfig(dir: string): Promise<ProjectConfig> {
  const path = join(dir, 'package.json');
  let manifest: { name?: unknown; kubeloop?: unknown };
  try {
    manifest = JSON.parse(await readFile(path, 'utf8')) as typeof manifest;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') throw new CommandFailure(`no package.json in ${dir}: run this in a project made by \`kubeloop init\``);
    throw new CommandFailure(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof manifest.kubeloop !== 'object' || manifest.kubeloop === null) {
    throw new CommandFailure(`${path} has no "kubeloop" section: run this in a project made by \`kubeloop init\``);
  }
  const section = manifest.kubeloop as Section;
  const name = section.deploy?.name ?? (typeof manifest.name === 'string' ? manifest.name : 'operator').replace(/^@[^/]+\//, '');
  return {
    root: dir,
    schemas: section.schemas ?? 'kinds',
    crds: section.crds ?? 'crds',
    types: section.types ?? 'src/kinds',
    manifests: section.manifests ?? 'deploy/operator.yaml',
    deploy: {
      name,
      namespace: section.deploy?.namespace ?? `${name}-system`,
      image: section.deploy?.image ?? `${name}:latest`,
      replicas: section.deploy?.replicas ?? 1,
    },
    owns: section.owns ?? [],
    reads: section.reads ?? [],
  };
}
