// `node scripts/compile.mjs <project>...`: `tsc -b` the given TypeScript projects (and the packages they
// reference), saying so first. The first build of a fresh clone takes most of a minute, which would
// otherwise look like a hung `npm run demo`. Later runs only rebuild what changed.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const projects = process.argv.slice(2);
if (projects.length === 0) {
  console.error('usage: node scripts/compile.mjs <project>...');
  process.exit(2);
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const started = performance.now();
process.stderr.write(`compiling ${projects.join(' ')} with tsc -b (up to a minute on the first run, seconds after that)...\n`);
const result = spawnSync(process.execPath, [tsc, '-b', ...projects], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
process.stderr.write(`compiled in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
