/**
 * The official Python Kubernetes client (Debian's python3-kubernetes, run as /usr/bin/python3)
 * against the embedded API server: CRUD, watch, patch, custom objects, and a Deployment owning a
 * Service. Each scenario lives in `test/python/client_scenarios.py` and prints `ok NAME`; the
 * suite fails, never skips, when the client is not installed (.ci/run installs it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { TempDirs } from './support/temp-dir.js';

const python = '/usr/bin/python3';
const scenarios = fileURLToPath(new URL('../python/client_scenarios.py', import.meta.url));

function runScenario(kubeconfig: string, scenario: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(python, [scenarios, kubeconfig, scenario], { timeout: 60_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('the Python Kubernetes client against the embedded API server', { timeout: 180_000 }, () => {
  const temp = new TempDirs();
  let server: ApiServer;
  let kubeconfig: string;

  before(async () => {
    server = await startApiServer();
    kubeconfig = join(await temp.make('python'), 'kubeconfig');
    await writeFile(kubeconfig, server.kubeconfig, 'utf8');
  });

  after(async () => {
    await server.stop();
    await temp.removeAll();
  });

  for (const scenario of ['crud', 'watch', 'patch', 'custom-objects', 'deployment-service']) {
    test(`scenario ${scenario} passes`, async () => {
      const result = await runScenario(kubeconfig, scenario);
      assert.equal(result.code, 0, `python3 ${scenario} failed:\n${result.stdout}\n${result.stderr}`);
      assert.equal(result.stdout.trim(), `ok ${scenario}`);
    });
  }

  test('over TLS with a bearer token (the CA and token from the kubeconfig), CRUD and watch pass', async () => {
    const secured = await startApiServer({ tls: true, token: 'python-token' });
    try {
      const path = join(await temp.make('python-tls'), 'kubeconfig');
      await writeFile(path, secured.kubeconfig, 'utf8');
      for (const scenario of ['crud', 'watch']) {
        const result = await runScenario(path, scenario);
        assert.equal(result.code, 0, `python3 ${scenario} over TLS failed:\n${result.stdout}\n${result.stderr}`);
      }
    } finally {
      await secured.stop();
    }
  });
});
