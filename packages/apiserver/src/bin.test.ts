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

test('npm links the command at the repository root, so `npx kubeloop-apiserver` works there', () => {
  const linked = `${packageDir}../../node_modules/.bin/kubeloop-apiserver`;
  assert.ok(existsSync(linked), `${linked} is missing: run npm install`);
  assert.equal(realpathSync(linked), realpathSync(bin));
});
