import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isKubeloopError } from '../errors.js';
import { httpTransportConfigFromKubeConfig, loadKubeConfig } from './kube-config.js';

function kubeconfigYaml(server: string, contexts: string[]): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: c\n  cluster:\n    server: ${server}\n    insecure-skip-tls-verify: true\n    tls-server-name: api.internal`,
    'users:',
    '- name: u\n  user:\n    token: t0',
    'contexts:',
    ...contexts.map((name) => `- name: ${name}\n  context:\n    cluster: c\n    user: u`),
    `current-context: ${contexts[0]}`,
    '',
  ].join('\n');
}

describe('loadKubeConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-kubeconfig-'));
  const explicit = join(dir, 'explicit.yaml');
  const fromEnv = join(dir, 'env.yaml');
  writeFileSync(explicit, kubeconfigYaml('https://explicit.example:6443', ['one', 'two']));
  writeFileSync(fromEnv, kubeconfigYaml('https://env.example:6443', ['env']));
  const savedKubeconfig = process.env.KUBECONFIG;

  after(() => {
    if (savedKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = savedKubeconfig;
    rmSync(dir, { recursive: true, force: true });
  });

  test('prefers an explicit path over KUBECONFIG and selects the requested context', () => {
    process.env.KUBECONFIG = fromEnv;
    const kc = loadKubeConfig({ kubeconfigPath: explicit, context: 'two' });
    assert.equal(kc.getCurrentCluster()?.server, 'https://explicit.example:6443');
    assert.equal(kc.getCurrentContext(), 'two');
  });

  test('reads KUBECONFIG when no path is given', () => {
    process.env.KUBECONFIG = fromEnv;
    assert.equal(loadKubeConfig().getCurrentCluster()?.server, 'https://env.example:6443');
  });

  test('throws a ConfigError for a context the kubeconfig does not have', () => {
    assert.throws(
      () => loadKubeConfig({ kubeconfigPath: explicit, context: 'missing' }),
      (err: unknown) => isKubeloopError(err) && err.code === 'ConfigError',
    );
  });

  test('turns the current context into a transport config with TLS settings read once', () => {
    const config = httpTransportConfigFromKubeConfig(loadKubeConfig({ kubeconfigPath: explicit }), { maxSockets: 3 });
    assert.equal(config.server, 'https://explicit.example:6443');
    assert.equal(config.maxSockets, 3);
    assert.deepEqual(config.tls, { rejectUnauthorized: false, servername: 'api.internal' });
    assert.equal(typeof config.authenticate, 'function');
  });
});
