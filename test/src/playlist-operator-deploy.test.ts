/**
 * The demo operator's checked-in deploy manifests (examples/playlist-operator/deploy/operator.yaml): they are
 * what `kubeloop manifests` renders from the example's package.json today, and the real kubectl's
 * `apply --dry-run=server` against the embedded API server accepts every object in them; applied for real,
 * the Deployment runs 3 replicas and the Lease Role grants what a shard ring needs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runManifests } from 'kubeloop';
import type { CliIo } from 'kubeloop';
import { KubectlServer } from './support/kubectl-server.js';
import { TempDirs } from './support/temp-dir.js';

const EXAMPLE_DIR = fileURLToPath(new URL('../../examples/playlist-operator/', import.meta.url));
const MANIFESTS = join(EXAMPLE_DIR, 'deploy/operator.yaml');
const NAMESPACE = 'playlist-operator-system';

/** Every object of operator.yaml, as kubectl names them, in the file's order. */
const OBJECTS = [
  'customresourcedefinition.apiextensions.k8s.io/playlists.playlist.kubeloop.dev',
  `namespace/${NAMESPACE}`,
  'serviceaccount/playlist-operator',
  'clusterrole.rbac.authorization.k8s.io/playlist-operator',
  'clusterrolebinding.rbac.authorization.k8s.io/playlist-operator',
  'role.rbac.authorization.k8s.io/playlist-operator-leader-election',
  'rolebinding.rbac.authorization.k8s.io/playlist-operator-leader-election',
  'deployment.apps/playlist-operator',
];

function quietIo(cwd: string, stderr: string[]): CliIo {
  const plain = (text: string): string => text;
  return { cwd, env: {}, out: () => undefined, err: (line) => stderr.push(line), style: { bold: plain, dim: plain, red: plain, green: plain, yellow: plain }, ask: undefined };
}

describe('the playlist operator deploy manifests', { timeout: 120_000 }, () => {
  let env: KubectlServer;
  const temp = new TempDirs();

  before(async () => {
    env = await KubectlServer.start();
  });

  after(async () => {
    await env.stop();
    await temp.removeAll();
  });

  test('deploy/operator.yaml is what `kubeloop manifests --dir examples/playlist-operator` writes (regenerate it when this fails)', async () => {
    const out = join(await temp.make('playlist-manifests'), 'operator.yaml');
    const stderr: string[] = [];
    assert.equal(await runManifests(['--dir', EXAMPLE_DIR, '-o', out], quietIo(EXAMPLE_DIR, stderr)), 0, stderr.join('\n'));
    assert.equal(await readFile(MANIFESTS, 'utf8'), await readFile(out, 'utf8'));
  });

  test('kubectl apply --dry-run=server accepts every object; applied for real, 3 replicas and Lease delete', async () => {
    const text = await readFile(MANIFESTS, 'utf8');
    assert.equal(text.split(/^---$/m).length - 1, OBJECTS.length, 'one document per expected object');
    // A namespaced object can be dry-run only in a namespace that exists, as with kube-apiserver.
    await env.kubectl.ok(['create', 'namespace', NAMESPACE]);
    const dryRun = (await env.kubectl.ok(['apply', '--dry-run=server', '-f', MANIFESTS])).trimEnd().split('\n');
    assert.deepEqual(
      dryRun,
      OBJECTS.map((name) => `${name} ${name.startsWith('namespace/') ? 'configured' : 'created'} (server dry run)`),
    );
    await assert.rejects(env.kubectl.ok(['get', 'deployment', 'playlist-operator', '-n', NAMESPACE]), /NotFound|not found/);

    const applied = (await env.kubectl.ok(['apply', '-f', MANIFESTS])).trimEnd().split('\n');
    assert.equal(applied.length, OBJECTS.length, applied.join('\n'));
    const deployment = await env.kubectl.json<{ spec: { replicas: number; template: { spec: { serviceAccountName: string; containers: { env: { name: string }[] }[] } } } }>(['get', 'deployment', 'playlist-operator', '-n', NAMESPACE]);
    assert.equal(deployment.spec.replicas, 3);
    assert.equal(deployment.spec.template.spec.serviceAccountName, 'playlist-operator');
    // The Dockerfile's --in-cluster takes the lease namespace and the identity from these.
    assert.deepEqual(deployment.spec.template.spec.containers[0]?.env.map((e) => e.name), ['POD_NAME', 'POD_NAMESPACE']);
    const role = await env.kubectl.json<{ rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }>(['get', 'role', 'playlist-operator-leader-election', '-n', NAMESPACE]);
    assert.deepEqual(role.rules, [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }]);
    // The CRD is served: the operator's kind can be listed once it is applied.
    assert.equal((await env.kubectl.ok(['get', 'playlists', '-A'], {})).trim(), '');
  });
});
