/** `npm create kubeloop` runs this package's bin: it must be `kubeloop init`, flags, prompts-off and exit codes included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/create-kubeloop.js', import.meta.url));

function createKubeloop(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

test('create-kubeloop is kubeloop init: its help, its usage errors, and a project with the flags given', async () => {
  const work = await mkdtemp(join(tmpdir(), 'kubeloop-create-'));
  try {
    const help = await createKubeloop(['--help'], work);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: kubeloop init <dir> \[flags\]/);
    const bad = await createKubeloop(['x', '--kinds', 'Shop'], work);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "kubeloop init: Unknown option '--kinds'\nRun 'kubeloop init --help' for usage.\n");
    const made = await createKubeloop(['shop-operator', '--kind', 'Shop'], work);
    assert.equal(made.code, 0, made.stderr);
    assert.match(await readFile(join(work, 'shop-operator/src/kinds/shop.ts'), 'utf8'), /export const ShopKind/);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
