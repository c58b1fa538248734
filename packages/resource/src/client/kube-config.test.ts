import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { isKubeconfigError, isKubeloopError } from '../errors.js';
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

  test('a missing or unreadable kubeconfig is a KubeconfigError naming the file and where its path came from', () => {
    const missing = join(dir, 'missing.yaml');
    const garbage = join(dir, 'garbage.yaml');
    const empty = join(dir, 'empty.yaml');
    writeFileSync(garbage, 'clusters: [unclosed\n  - : :\n');
    writeFileSync(empty, 'hello\n');
    const fails = (load: () => unknown, message: RegExp, source: string): void =>
      assert.throws(load, (err: unknown) => isKubeconfigError(err) && message.test(err.message) && err.source === source && !err.message.includes('\n'));

    fails(() => loadKubeConfig({ kubeconfigPath: missing, kubeconfigPathFrom: '--kubeconfig' }), /^kubeconfig .*missing\.yaml \(from --kubeconfig\) does not exist$/, 'option');
    fails(() => loadKubeConfig({ kubeconfigPath: garbage }), /^kubeconfig .*garbage\.yaml \(from the kubeconfigPath option\) cannot be read: .+/, 'option');
    fails(() => loadKubeConfig({ kubeconfigPath: empty }), /^kubeconfig .*empty\.yaml \(from the kubeconfigPath option\) has no cluster for its current context/, 'option');
    process.env.KUBECONFIG = missing;
    fails(() => loadKubeConfig(), /^kubeconfig .*missing\.yaml \(from KUBECONFIG\) does not exist$/, 'KUBECONFIG');
    process.env.KUBECONFIG = garbage;
    fails(() => loadKubeConfig(), /^kubeconfig .*garbage\.yaml \(from KUBECONFIG\) cannot be read/, 'KUBECONFIG');
    // As kubectl: a KUBECONFIG list may name files that do not exist, as long as one does.
    process.env.KUBECONFIG = [missing, fromEnv].join(delimiter);
    assert.equal(loadKubeConfig().getCurrentCluster()?.server, 'https://env.example:6443');
  });

  test('with KUBECONFIG unset, outside a cluster, a missing ~/.kube/config is a KubeconfigError from the default location', () => {
    const savedHome = process.env.HOME;
    delete process.env.KUBECONFIG;
    process.env.HOME = join(dir, 'no-home');
    try {
      assert.throws(
        () => loadKubeConfig(),
        (err: unknown) => isKubeconfigError(err) && err.source === 'default' && /no-home\/\.kube\/config \(from the default location \(KUBECONFIG is not set\)\) does not exist/.test(err.message),
      );
    } finally {
      process.env.HOME = savedHome;
    }
  });

  test('turns the current context into a transport config with TLS settings read once', () => {
    const config = httpTransportConfigFromKubeConfig(loadKubeConfig({ kubeconfigPath: explicit }), { maxSockets: 3 });
    assert.equal(config.server, 'https://explicit.example:6443');
    assert.equal(config.maxSockets, 3);
    assert.deepEqual(config.tls, { rejectUnauthorized: false, servername: 'api.internal' });
    assert.equal(typeof config.authenticate, 'function');
  });
});
