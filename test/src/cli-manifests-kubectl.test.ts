/**
 * `kubeloop manifests` against the real kubectl and the embedded API server: the rendered CRD, Namespace,
 * ServiceAccount, RBAC and Deployment pass `kubectl apply --dry-run=server`, then apply for real with the
 * image, namespace and replicas asked for, and the ClusterRole grants exactly the kinds the operator uses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runInit, runManifests } from 'kubeloop';
import type { CliIo } from 'kubeloop';
import { KubectlServer } from './support/kubectl-server.js';
import { TempDirs } from './support/temp-dir.js';

/** Runs a kubeloop command in `cwd`, returning its exit code and what it printed. */
async function kubeloop(run: (argv: string[], io: CliIo) => Promise<number>, argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const plain = (text: string): string => text;
  const io: CliIo = {
    cwd,
    env: {},
    out: (line) => stdout.push(line),
    err: (line) => stderr.push(line),
    style: { bold: plain, dim: plain, red: plain, green: plain, yellow: plain },
    ask: undefined,
  };
  const code = await run(argv, io);
  return { code, stdout: `${stdout.join('\n')}\n`, stderr: stderr.join('\n') };
}

describe('kubeloop manifests with kubectl', { timeout: 120_000 }, () => {
  let env: KubectlServer;
  const temp = new TempDirs();
  let project: string;

  before(async () => {
    env = await KubectlServer.start();
    const work = await temp.make('cli-manifests');
    assert.equal((await kubeloop(runInit, ['shop-operator', '--kind', 'Shop', '--group', 'shops.acme.io'], work)).code, 0);
    project = `${work}/shop-operator`;
  });

  after(async () => {
    await env.stop();
    await temp.removeAll();
  });

  test('the manifests pass kubectl apply --dry-run=server, then apply with the image, namespace and replicas given', async () => {
    const rendered = await kubeloop(runManifests, ['--image', 'registry.example/shop-operator:1.2.3', '--namespace', 'shop-system', '--replicas', '2'], project);
    assert.equal(rendered.code, 0, rendered.stderr);
    // Namespaced objects can be dry-run only in a namespace that exists, as with kube-apiserver.
    await env.kubectl.ok(['create', 'namespace', 'shop-system']);
    const dryRun = await env.kubectl.ok(['apply', '--dry-run=server', '-f', '-'], { input: rendered.stdout });
    for (const object of [
      'customresourcedefinition.apiextensions.k8s.io/shops.shops.acme.io created (server dry run)',
      'serviceaccount/shop-operator created (server dry run)',
      'clusterrole.rbac.authorization.k8s.io/shop-operator created (server dry run)',
      'clusterrolebinding.rbac.authorization.k8s.io/shop-operator created (server dry run)',
      'role.rbac.authorization.k8s.io/shop-operator-leader-election created (server dry run)',
      'rolebinding.rbac.authorization.k8s.io/shop-operator-leader-election created (server dry run)',
      'deployment.apps/shop-operator created (server dry run)',
    ]) {
      assert.ok(dryRun.includes(object), `${object}\nin:\n${dryRun}`);
    }
    await assert.rejects(env.kubectl.ok(['get', 'deployment', 'shop-operator', '-n', 'shop-system']), /NotFound|not found/);

    await env.kubectl.ok(['apply', '-f', '-'], { input: rendered.stdout });
    const deployment = await env.kubectl.json<{ spec: { replicas: number; template: { spec: { serviceAccountName: string; containers: { image: string }[] } } } }>(['get', 'deployment', 'shop-operator', '-n', 'shop-system']);
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(deployment.spec.template.spec.serviceAccountName, 'shop-operator');
    assert.deepEqual(deployment.spec.template.spec.containers.map((c) => c.image), ['registry.example/shop-operator:1.2.3']);
    const role = await env.kubectl.json<{ rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }>(['get', 'clusterrole', 'shop-operator']);
    assert.deepEqual(
      role.rules.map((r) => `${r.apiGroups.join(',')}/${r.resources.join(',')}: ${r.verbs.join(',')}`),
      [
        'shops.acme.io/shops: get,list,watch,update,patch',
        'shops.acme.io/shops/status: get,update,patch',
        'shops.acme.io/shops/finalizers: update',
        'apps/deployments: get,list,watch,create,update,patch,delete',
        '/events: create,patch',
      ],
    );
    // Two replicas: the Lease Role also grants delete, which a sharded operator's replicas need.
    const leases = await env.kubectl.json<{ rules: { resources: string[]; verbs: string[] }[] }>(['get', 'role', 'shop-operator-leader-election', '-n', 'shop-system']);
    assert.deepEqual(
      leases.rules.map((r) => `${r.resources.join(',')}: ${r.verbs.join(',')}`),
      ['leases: get,list,watch,create,update,patch,delete'],
    );
  });

  test('the project defaults need no flags; a bad --replicas is a usage error', async () => {
    const rendered = await kubeloop(runManifests, [], project);
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.match(rendered.stdout, /image: shop-operator:latest/);
    assert.match(rendered.stdout, /namespace: shop-operator-system/);
    const bad = await kubeloop(runManifests, ['--replicas', 'two'], project);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "kubeloop manifests: --replicas must be a whole number from 0 to 1000, not \"two\"\nRun 'kubeloop manifests --help' for usage.");
  });
});
