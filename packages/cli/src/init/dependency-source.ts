/**
 * Where the new project gets kubeloop's packages from: the npm registry (the default: this CLI's own
 * version), a folder of packed tarballs (`--packages`, what `npm run pack:all` leaves), or this
 * repository's workspace packages (`--local`, when the CLI runs from a clone).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandFailure } from '../cli-errors.js';
import { kubeloopVersion } from '../version.js';

/** kubeloop's packages a project depends on: npm name -> the tarball's base name and the workspace folder. */
const PACKAGES = {
  '@kubeloop/resource': { tarball: 'kubeloop-resource', workspace: 'packages/resource' },
  '@kubeloop/operator': { tarball: 'kubeloop-operator', workspace: 'packages/operator' },
  '@kubeloop/apiserver': { tarball: 'kubeloop-apiserver', workspace: 'packages/apiserver' },
  '@kubeloop/codegen': { tarball: 'kubeloop-codegen', workspace: 'tools/codegen' },
  kubeloop: { tarball: 'kubeloop', workspace: 'packages/cli' },
} as const;

export type KubeloopPackage = keyof typeof PACKAGES;

/** The dependency spec of each of kubeloop's packages. */
export type DependencySpecs = Record<KubeloopPackage, string>;

/** The published packages at this CLI's version. */
export function registrySpecs(): DependencySpecs {
  const range = `^${kubeloopVersion()}`;
  return Object.fromEntries(Object.keys(PACKAGES).map((name) => [name, range])) as DependencySpecs;
}

/** `file:` specs of the tarballs in `dir` (the newest version of each when there are several). */
export function tarballSpecs(dir: string): DependencySpecs {
  const folder = resolve(dir);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    throw new CommandFailure(`--packages ${dir}: no such folder (make one with \`npm run pack:all\` in the kubeloop repository)`);
  }
  const specs: Partial<DependencySpecs> = {};
  for (const [name, { tarball }] of Object.entries(PACKAGES) as [KubeloopPackage, (typeof PACKAGES)[KubeloopPackage]][]) {
    const pattern = new RegExp(`^${tarball}-(\\d+\\.\\d+\\.\\d+[^/]*)\\.tgz$`);
    const found = names.filter((n) => pattern.test(n)).sort();
    const newest = found.at(-1);
    if (newest === undefined) throw new CommandFailure(`--packages ${dir}: no ${tarball}-<version>.tgz in it (make them with \`npm run pack:all\`)`);
    specs[name] = `file:${join(folder, newest)}`;
  }
  return specs as DependencySpecs;
}

/** `file:` specs of this repository's workspace folders; fails when this CLI does not run from a clone. */
export function workspaceSpecs(): DependencySpecs {
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const manifest = join(root, 'package.json');
  const isClone = existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown }).workspaces !== undefined;
  if (!isClone || !existsSync(join(root, 'packages/cli'))) throw new CommandFailure('--local works only with the kubeloop CLI of a clone of the kubeloop repository');
  return Object.fromEntries(Object.entries(PACKAGES).map(([name, { workspace }]) => [name, `file:${join(root, workspace)}`])) as DependencySpecs;
}
