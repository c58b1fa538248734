/**
 * The official Python Kubernetes client (Debian's python3-kubernetes, run as /usr/bin/python3)
 * against the embedded API server: CRUD, watch, patch, custom objects, and a Deployment owning a
 * Service. Each scenario lives in `test/python/client_scenarios.py` and prints `ok NAME`; the
 * suite fails, never skips, when the client is not installed (.ci/run installs it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTestEnv } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';

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
  let env: TestEnv;

  before(async () => {
    env = await startTestEnv();
  });

  after(() => env.stop());

  for (const scenario of ['crud', 'watch', 'patch', 'custom-objects', 'deployment-service', 'apiservice-yaml']) {
    test(`scenario ${scenario} passes`, async () => {
      const result = await runScenario(env.kubeconfigPath, scenario);
      assert.equal(result.code, 0, `python3 ${scenario} failed:\n${result.stdout}\n${result.stderr}`);
      assert.equal(result.stdout.trim(), `ok ${scenario}`);
    });
  }

  test('with the cluster simulation, waits for a Pod to be Running and Ready and for a Deployment to be Available', async () => {
    const simulated = await startTestEnv({ simulate: { kubelet: { podStartMs: 300 } } });
    try {
      for (const scenario of ['pod-running', 'deployment-available']) {
        const result = await runScenario(simulated.kubeconfigPath, scenario);
        assert.equal(result.code, 0, `python3 ${scenario} failed:\n${result.stdout}\n${result.stderr}`);
        assert.equal(result.stdout.trim(), `ok ${scenario}`);
      }
    } finally {
      await simulated.stop();
    }
  });

  test('over TLS with a bearer token (the CA and token from the kubeconfig), CRUD and watch pass', async () => {
    const secured = await startTestEnv({ server: { tls: true, token: 'python-token' } });
    try {
      for (const scenario of ['crud', 'watch']) {
        const result = await runScenario(secured.kubeconfigPath, scenario);
        assert.equal(result.code, 0, `python3 ${scenario} over TLS failed:\n${result.stdout}\n${result.stderr}`);
      }
    } finally {
      await secured.stop();
    }
  });
});
