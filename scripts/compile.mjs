// `node scripts/compile.mjs <project>...`: `tsc -b` the given TypeScript projects and the packages they
// reference (only those: the demo does not wait for the tools and tests), showing which project is
// being compiled and how many of how many, so that the first build of a fresh clone does not look like
// a hung `npm run demo`. Later runs only rebuild what changed, and say so.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { createInterface } from 'node:readline';

const projects = process.argv.slice(2);
if (projects.length === 0) {
  console.error('usage: node scripts/compile.mjs <project>...');
  process.exit(2);
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
const name = (tsconfig) => relative(process.cwd(), tsconfig).replace(/\/tsconfig\.json$/, '') || '.';

// `tsc -b --verbose` lists the projects of the build, then says "Building project '<path>'..." for each
// one it compiles; everything else it prints (up-to-date reasons) is noise here. Errors pass through.
const child = spawn(process.execPath, [tsc, '-b', '--verbose', ...projects], { stdio: ['ignore', 'pipe', 'inherit'] });
let total = 0;
let listing = false;
let built = 0;
for await (const line of createInterface({ input: child.stdout })) {
  // Lines start with a locale-dependent time ("6:08:31 PM - "); match past it.
  if (/ - Projects in this build:/.test(line)) {
    listing = true;
    continue;
  }
  if (listing && /^\s+\* /.test(line)) {
    total++;
    continue;
  }
  listing = false;
  const building = / - Building project '(.+)'\.\.\.$/.exec(line);
  if (building) {
    built++;
    process.stderr.write(`compiling ${name(building[1])} (${built} of ${total} projects, ${seconds()} s so far)...\n`);
  } else if (!/ - Project '|^\s*$/.test(line)) {
    process.stderr.write(`${line}\n`);
  }
}
const code = await new Promise((resolve) => child.once('close', resolve));
if (code !== 0) process.exit(code ?? 1);
process.stderr.write(built === 0 ? `up to date (${total} projects checked in ${seconds()} s)\n` : `compiled ${built} of ${total} projects in ${seconds()} s\n`);
