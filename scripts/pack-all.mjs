// `npm run pack:all [-- <folder>]`: the way to install kubeloop until its packages are on the npm registry.
// Packs @kubeloop/resource, @kubeloop/operator, @kubeloop/apiserver, @kubeloop/codegen, the `kubeloop` CLI and
// `create-kubeloop` (their `prepack` builds them) into one folder (default: <repo>/.kubeloop/packages) and prints
// the `npm install` line for another project.
// scripts/check-packed.mjs packs through the same function, so what it checks is what this produces.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The workspaces that are published, in dependency order. */
export const PUBLISHED_PACKAGES = ['packages/resource', 'packages/operator', 'packages/apiserver', 'tools/codegen', 'packages/cli', 'packages/create-kubeloop'];

/**
 * `npm pack`s every published package into `destination` (created if missing); npm's `--json` report,
 * one entry per package in {@link PUBLISHED_PACKAGES} order. Throws with npm's output when it fails.
 */
export function packAll(destination, timeoutMs = 600_000) {
  mkdirSync(destination, { recursive: true });
  const args = ['pack', ...PUBLISHED_PACKAGES.flatMap((p) => ['-w', p]), '--pack-destination', destination, '--json', '--silent'];
  const result = spawnSync('npm', args, { cwd: root, encoding: 'utf8', timeout: timeoutMs });
  if (result.status !== 0) {
    throw new Error(`npm ${args.join(' ')} failed (${result.error ? String(result.error) : `exit ${result.status ?? result.signal}`})\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
  return JSON.parse(result.stdout);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const destination = resolve(process.argv[2] ?? `${root}.kubeloop/packages`);
  process.stderr.write(`packing ${PUBLISHED_PACKAGES.join(', ')} into ${destination} (builds them first)...\n`);
  try {
    const packed = packAll(destination);
    for (const p of packed) process.stdout.write(`${resolve(destination, p.filename)}  ${(p.size / 1024).toFixed(0)} KiB\n`);
    process.stdout.write(`\nIn your project (Node.js >= 20.19):\n  npm install ${packed.map((p) => resolve(destination, p.filename)).join(' ')}\n`);
    process.stdout.write('(@kubeloop/apiserver is for tests and local development: add --save-dev for it on its own line if you prefer.)\n');

  } catch (error) {
    process.stderr.write(`pack:all failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
