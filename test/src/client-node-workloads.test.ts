/**
 * @kubernetes/client-node 1.4 with the built-in workload kinds, the way an operator uses them: a
 * Deployment and a Service owned by a custom resource, created with the typed clients and with
 * KubernetesObjectApi (which finds the kind through discovery), read back with the server's
 * defaults, scaled, status written, watched by an informer, and collected when the owner goes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, AppsV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import type { Informer, KubernetesObject, V1Deployment, V1OwnerReference } from '@kubernetes/client-node';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { waitFor } from './support/wait-for.js';

const namespace = 'default';

function deployment(name: string, owner?: V1OwnerReference): V1Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels, ...(owner && { ownerReferences: [owner] }) },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'example/app:1', ports: [{ containerPort: 8080, name: 'http' }] }] } },
    },
  };
}

describe('@kubernetes/client-node with owned Deployments and Services', { timeout: 60_000 }, () => {
  let server: ApiServer;
  let apps: AppsV1Api;
  let core: CoreV1Api;
  let objects: KubernetesObjectApi;
  let informer: Informer<V1Deployment> | undefined;

  before(async () => {
    server = await startApiServer();
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig);
    apps = kc.makeApiClient(AppsV1Api);
    core = kc.makeApiClient(CoreV1Api);
    objects = KubernetesObjectApi.makeApiClient(kc);
  });

  after(async () => {
    await informer?.stop();
    await server.stop();
  });

  test('over TLS with a bearer token: the kubeconfig CA verifies the server, the token authenticates', async () => {
    const secured = await startApiServer({ tls: true, token: 'node-token' });
    try {
      const kc = new KubeConfig();
      kc.loadFromString(secured.kubeconfig);
      assert.equal(kc.getCurrentCluster()?.skipTLSVerify, false);
      const created = await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: deployment('tls') });
      assert.equal(created.metadata?.name, 'tls');
      const wrong = new KubeConfig();
      wrong.loadFromString(secured.kubeconfig.replace('node-token', 'not-the-token'));
      await assert.rejects(wrong.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace }), (err: unknown) => err instanceof ApiException && err.code === 401);
    } finally {
      await secured.stop();
    }
  });

  test('AppsV1Api creates a Deployment with the server defaults, and a selector mismatch is an ApiException 422', async () => {
    const created = await apps.createNamespacedDeployment({ namespace, body: deployment('typed') });
    assert.equal(created.spec?.strategy?.type, 'RollingUpdate');
    assert.equal(created.spec?.revisionHistoryLimit, 10);
    assert.equal(created.spec?.template.spec?.containers[0]?.terminationMessagePath, '/dev/termination-log');
    assert.equal(created.metadata?.generation, 1);
    const bad = deployment('bad');
    bad.spec!.template.metadata!.labels = { app: 'other' };
    await assert.rejects(apps.createNamespacedDeployment({ namespace, body: bad }), (err: unknown) => err instanceof ApiException && err.code === 422);
  });

  test('the scale and status subresources work through the typed client', async () => {
    const scale = await apps.readNamespacedDeploymentScale({ name: 'typed', namespace });
    assert.equal(scale.spec?.replicas, 2);
    assert.equal(scale.status?.selector, 'app=typed');
    const replaced = await apps.replaceNamespacedDeploymentScale({ name: 'typed', namespace, body: { ...scale, spec: { replicas: 5 } } });
    assert.equal(replaced.spec?.replicas, 5);
    const current = await apps.readNamespacedDeployment({ name: 'typed', namespace });
    assert.equal(current.spec?.replicas, 5);
    assert.equal(current.metadata?.generation, 2);
    const status = await apps.patchNamespacedDeploymentStatus(
      { name: 'typed', namespace, body: { status: { observedGeneration: 2, replicas: 5, readyReplicas: 5, conditions: [{ type: 'Available', status: 'True' }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(status.status?.readyReplicas, 5);
    assert.equal(status.metadata?.generation, 2, 'a status write does not bump generation');
  });

  test('an owner with a Deployment and a Service (KubernetesObjectApi): informer events, then both collected when the owner is deleted', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owner' } } });
    const ref: V1OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true };
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig);
    const seen: string[] = [];
    informer = makeInformer(kc, `/apis/apps/v1/namespaces/${namespace}/deployments`, () => apps.listNamespacedDeployment({ namespace }));
    informer.on('add', (d) => seen.push(`add ${d.metadata?.name ?? ''}`));
    informer.on('delete', (d) => seen.push(`delete ${d.metadata?.name ?? ''}`));
    await informer.start();

    await objects.create(deployment('owned', ref));
    await objects.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'owned', namespace, ownerReferences: [ref] },
      spec: { selector: { app: 'owned' }, ports: [{ port: 80, targetPort: 'http' }] },
    } as KubernetesObject);
    const service = await core.readNamespacedService({ name: 'owned', namespace });
    assert.equal(service.spec?.ports?.[0]?.targetPort, 'http');
    assert.match(service.spec?.clusterIP ?? '', /^10\./);
    const read = await objects.read<V1Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'owned', namespace } });
    assert.equal(read.spec?.replicas, 2);
    await waitFor(() => seen.includes('add owned'), { what: 'the informer to see the owned Deployment' });

    await core.deleteNamespacedConfigMap({ name: 'owner', namespace });
    await waitFor(() => seen.includes('delete owned'), { what: 'the owned Deployment to be collected' });
    await waitFor(
      async () => {
        try {
          await core.readNamespacedService({ name: 'owned', namespace });
          return false;
        } catch (err) {
          return err instanceof ApiException && err.code === 404;
        }
      },
      { what: 'the owned Service to be collected' },
    );
  });
});
