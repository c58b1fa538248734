/**
 * `.kubeloop/preload.js`: imports the project's runtime dependencies (package.json `dependencies`), for the
 * warm spare process to load ahead of a restart (see `operator-runner.ts`). Inside the project, so they
 * resolve exactly as the operator's own imports do, and are the same module instances.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export async function writePreloadModule(root: string, path: string): Promise<void> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const names = Object.keys(manifest.dependencies ?? {});
  const imports = names.map((name) => `import(${JSON.stringify(name)})`).join(', ');
  const lines = [
    '// Written by kubeloop dev: the dependencies a restart of the operator would load.',
    "import { createRequire } from 'node:module';",
    `await Promise.allSettled([${imports}]);`,
  ];
  // @kubeloop/resource reads kubeconfigs with @kubernetes/client-node, required on first use (about a second).
  if (names.includes('@kubeloop/resource')) {
    lines.push("try { createRequire(import.meta.resolve('@kubeloop/resource'))('@kubernetes/client-node'); } catch { /* loaded later by the operator */ }");
  }
  await writeFile(path, `${lines.join('\n')}\n`);
}
