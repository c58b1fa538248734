// `node scripts/check-packed.mjs [--client-node=<range>] [--keep]`: what a user gets from npm.
//
// 1. `npm pack`s every published package (scripts/pack-all.mjs; their `prepack` builds them).
// 2. Checks each tarball ships exactly its public files: no build info, no tests or test helpers, every
//    `exports`/`bin` target present, every relative import and every source map resolving inside the tarball.
// 3. Installs the tarballs (their dependencies from the npm registry) into a fresh strict NodeNext project
//    (scripts/packed-consumer, `skipLibCheck: false`), type-checks it, runs it against the embedded API
//    server, and runs its test of the test kit under Vitest. `--client-node=^2.0.1` installs that @kubernetes/client-node instead, through an npm override.
//
// Every step is bounded in time; the temporary directory is removed unless `--keep`.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize, posix } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { PUBLISHED_PACKAGES, packAll } from './pack-all.mjs';

const root = new URL('..', import.meta.url).pathname;
const packages = PUBLISHED_PACKAGES;
const { values: args } = parseArgs({ options: { 'client-node': { type: 'string' }, keep: { type: 'boolean' } } });

/** Files that must never be in a tarball, with the reason printed when one is. */
const forbidden = [
  [/\.tsbuildinfo$/, 'TypeScript build info'],
  [/\.test\.[^/]*$/, 'a test'],
  [/\.test-helper\.[^/]*$/, 'a test helper'],
  [/(^|\/)testing\/(fake-informer|test-client)\./, 'an internal test utility'],
];

function run(command, commandArgs, options) {
  const started = performance.now();
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', timeout: options.timeoutMs, cwd: options.cwd, env: { ...process.env, ...options.env } });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    const why = result.error ? String(result.error) : `exit ${result.status ?? result.signal}`;
    throw new Error(`${command} ${commandArgs.join(' ')} failed (${why}, ${seconds} s)\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
  console.log(`check-packed: ${options.what} (${seconds} s)`);
  return result.stdout;
}

/**
 * The relative module specifiers of a JavaScript or declaration file, by TypeScript's own scanner: code that
 * writes code (the CLI's templates, codegen's output) has `import ... from './x.js'` inside strings, which is not an import.
 */
function relativeImports(text) {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName).filter((name) => /^\.{1,2}\//.test(name));
}

/** Problems of one packed package: forbidden files, missing entry points, dangling imports and source maps. */
function problemsOf(dir, files) {
  const shipped = new Set(files);
  const problems = [];
  for (const file of files) {
    for (const [pattern, what] of forbidden) if (pattern.test(file)) problems.push(`${file} is ${what}`);
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const targets = [];
  const collect = (value) => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect(manifest.exports);
  collect(manifest.bin);
  for (const target of targets) {
    const file = posix.normalize(target);
    if (!shipped.has(file)) problems.push(`exports/bin target ${target} is not shipped`);
  }
  for (const file of files) {
    if (/\.(js|d\.ts)$/.test(file)) {
      for (const spec of relativeImports(readFileSync(join(dir, file), 'utf8'))) {
        const target = posix.join(posix.dirname(file), spec);
        const candidates = file.endsWith('.d.ts') ? [target, target.replace(/\.js$/, '.d.ts')] : [target];
        if (!candidates.some((c) => shipped.has(c))) problems.push(`${file} imports ${spec}, which is not shipped`);
      }
    }
    if (file.endsWith('.map')) {
      const map = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      for (const source of map.sources ?? []) {
        const target = posix.normalize(posix.join(posix.dirname(file), map.sourceRoot ?? '', source));
        if (!shipped.has(target)) problems.push(`${file} maps to ${source}, which is not shipped`);
      }
    }
  }
  return problems;
}

const work = mkdtempSync(join(tmpdir(), 'kubeloop-packed-'));
let failed = false;
try {
  const packDir = join(work, 'packs');
  const packStarted = performance.now();
  const packed = packAll(packDir);
  console.log(`check-packed: packed the packages, as npm run pack:all does (prepack builds them) (${((performance.now() - packStarted) / 1000).toFixed(1)} s)`);
  const problems = [];
  for (const [i, pack] of packed.entries()) {
    const files = pack.files.map((f) => normalize(f.path));
    for (const problem of problemsOf(join(root, packages[i]), files)) problems.push(`${pack.name}: ${problem}`);
    console.log(`check-packed: ${pack.filename}: ${files.length} files, ${(pack.size / 1024).toFixed(0)} KiB`);
  }
  if (problems.length > 0) throw new Error(`the tarballs do not ship exactly their public files:\n  ${problems.join('\n  ')}`);

  const consumer = join(work, 'consumer');
  cpSync(join(root, 'scripts/packed-consumer'), consumer, { recursive: true });
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const installed = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  const manifest = {
    name: 'kubeloop-packed-consumer',
    private: true,
    type: 'module',
    dependencies: Object.fromEntries(packed.map((p) => [p.name, `file:${join(packDir, p.filename)}`])),
    devDependencies: {
      typescript: rootManifest.devDependencies.typescript,
      '@types/node': `^${installed('@types/node')}`,
      // The test kit must work under another runner than node:test.
      vitest: '^4.1.12',
    },
  };
  if (args['client-node']) manifest.overrides = { '@kubernetes/client-node': args['client-node'] };
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: consumer,
    timeoutMs: 600_000,
    what: `installed the tarballs into a fresh project${args['client-node'] ? ` with @kubernetes/client-node ${args['client-node']}` : ''}`,
  });
  const clientNode = JSON.parse(readFileSync(join(consumer, 'node_modules/@kubernetes/client-node/package.json'), 'utf8')).version;
  run(process.execPath, [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', consumer], {
    cwd: consumer,
    timeoutMs: 300_000,
    what: 'type-checked it (strict, NodeNext, skipLibCheck: false)',
  });
  const output = run(process.execPath, ['dist/main.js'], { cwd: consumer, timeoutMs: 120_000, what: `ran it on Node ${process.version} with @kubernetes/client-node ${clientNode}` });
  process.stdout.write(`${output.trimEnd().replace(/^/gm, '  | ')}\n`);
  run(join(consumer, 'node_modules/.bin/vitest'), ['run', 'dist'], { cwd: consumer, timeoutMs: 120_000, what: 'ran the test kit under Vitest' });
  console.log('check-packed: ok');
} catch (err) {
  failed = true;
  console.error(`check-packed: FAILED: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  if (args.keep) console.log(`check-packed: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
