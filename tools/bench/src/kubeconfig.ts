/** Writes a kubeconfig for a plain-http loopback server, as client-node and @dot-i/k8s-operator need one. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The YAML of a kubeconfig whose only context points at `serverUrl`. client-node 1.4 refuses `http://`
 * unless `insecure-skip-tls-verify` is set, even though no TLS is involved.
 */
export function kubeconfigYaml(serverUrl: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: bench',
    '  cluster:',
    `    server: ${serverUrl}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: bench',
    '  user:',
    '    token: bench',
    'contexts:',
    '- name: bench',
    '  context:',
    '    cluster: bench',
    '    user: bench',
    '    namespace: bench',
    'current-context: bench',
    '',
  ].join('\n');
}

/** Writes {@link kubeconfigYaml} to a fresh temporary file and returns its path. */
export function writeKubeconfig(serverUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-bench-'));
  const path = join(dir, 'kubeconfig.yaml');
  writeFileSync(path, kubeconfigYaml(serverUrl));
  return path;
}
