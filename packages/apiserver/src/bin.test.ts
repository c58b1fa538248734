import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The same from src/ and dist/: the package directory, and the repository root two levels up.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const bin = `${packageDir}bin/kubeloop-apiserver.js`;

test('the kubeloop-apiserver command runs the compiled CLI with its arguments', () => {
  assert.match(execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8', timeout: 30_000 }), /^usage: kubeloop-apiserver /);
});

test('--help describes every flag the CLI accepts, each with its default', () => {
  const help = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8', timeout: 30_000 });
  const usage = help.split('\n')[0]!;
  const flags = [...usage.matchAll(/\[(--[a-z-]+)/g)].map((m) => m[1]!);
  assert.ok(flags.length >= 9, usage);
  for (const flag of flags) {
    // The flag's own description: from its line to the next option line.
    const described = new RegExp(`\\n  ${flag}\\b[^]*?(?=\\n  -|\\n\\n)`).exec(help)?.[0];
    assert.ok(described !== undefined, `--help does not describe ${flag}:\n${help}`);
    assert.match(described, /\(default: [^)]+\)/, `--help gives no default for ${flag}: ${described}`);
  }
});

test('npm links the command at the repository root, so `npx kubeloop-apiserver` works there', () => {
  const linked = `${packageDir}../../node_modules/.bin/kubeloop-apiserver`;
  assert.ok(existsSync(linked), `${linked} is missing: run npm install`);
  assert.equal(realpathSync(linked), realpathSync(bin));
});
