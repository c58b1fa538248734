// Runs every compiled test file (`dist/**/*.test.js` of every workspace) with Node's own test runner.
// Node 20's `--test` takes no globs, so the file list is built here. The TAP reporter prints the
// `# pass N` / `# fail N` summary that CI reads. Extra arguments filter files by substring.
// Files named `*.freeze.test.js` time the embedded server's event loop under a hostile request
// (the freeze probe): they run after the others, one at a time, so that no other test file shares
// the machine's two cores with them.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const roots = ['packages/resource', 'packages/operator', 'packages/apiserver', 'packages/cli', 'packages/create-kubeloop', 'examples', 'tools', 'test'];

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (name.endsWith('.test.js') && full.includes(`${'/'}dist${'/'}`)) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .map((r) => join(root, r))
  .filter((d) => existsSync(d))
  .flatMap((d) => walk(d, []))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error('run-tests: no compiled test files found (did `tsc -b` run?)');
  process.exit(1);
}

const isFreezeTest = (f) => f.endsWith('.freeze.test.js');
const phases = [
  { files: files.filter((f) => !isFreezeTest(f)), concurrency: 2 },
  { files: files.filter(isFreezeTest), concurrency: 1 },
].filter((phase) => phase.files.length > 0);

/**
 * Runs one phase, passing its TAP output through and keeping each failure's block (its `not ok`
 * line and diagnostics), so that the end of a long CI log names what failed.
 */
function runPhase(phase, failures) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--test', '--test-reporter=tap', `--test-concurrency=${phase.concurrency}`, '--test-timeout=120000', ...phase.files],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, KUBELOOP_TEST: '1' } },
    );
    let block; // the lines of the failure being read, until its diagnostics end
    createInterface({ input: child.stdout }).on('line', (line) => {
      process.stdout.write(`${line}\n`);
      if (/^\s*not ok \d+ - /.test(line)) {
        block = [line];
        failures.push(block);
      } else if (block !== undefined) {
        if (/^\s*\.\.\.$/.test(line) || block.length > 40) block = undefined;
        else block.push(line);
      }
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

let status = 0;
const failures = [];
for (const phase of phases) {
  const code = await runPhase(phase, failures);
  if (code !== 0) status = code;
}
if (failures.length > 0) {
  // A suite fails with its test: the innermost (most indented) blocks say what failed.
  console.log(`\nrun-tests: ${failures.length} failed (suites included):`);
  for (const block of failures) console.log(block.join('\n'));
}
process.exit(status);
