/**
 * Loads a package as the project sees it (from the project's node_modules), so that `kubeloop dev` uses the
 * project's own esbuild, TypeScript and embedded API server, at the project's versions.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The resolved path of `specifier` from the project at `root`, or undefined when the project cannot resolve it. */
export function resolveFromProject(root: string, specifier: string): string | undefined {
  try {
    return createRequire(join(root, 'package.json')).resolve(specifier);
  } catch {
    return undefined;
  }
}

/** Imports `specifier` as the project resolves it; undefined when the project does not have it. */
export async function importFromProject<M>(root: string, specifier: string): Promise<M | undefined> {
  const path = resolveFromProject(root, specifier);
  return path === undefined ? undefined : ((await import(pathToFileURL(path).href)) as M);
}
