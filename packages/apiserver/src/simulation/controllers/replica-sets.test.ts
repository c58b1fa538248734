import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, ReplicaSet, ReplicationController } from '@kubeloop/resource';
import { SimulatedCluster } from './simulated-cluster.test-helper.js';

const ns = 'default';
const rsPath = `/apis/apps/v1/namespaces/${ns}/replicasets`;
const rcPath = `/api/v1/namespaces/${ns}/replicationcontrollers`;
const podsPath = `/api/v1/namespaces/${ns}/pods`;

function replicaSet(name: string, replicas: number, extra: { minReadySeconds?: number } = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: {
      replicas,
      ...extra,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name, tier: 'web' }, annotations: { note: 'from-template' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

function orphanPod(name: string, labels: Record<string, string>): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
}

describe('simulated ReplicaSet and ReplicationController controllers', () => {
  let cluster: SimulatedCluster;
  before(async () => {
    cluster = await SimulatedCluster.start();
  });
  after(() => cluster.stop());

  const podsOf = async (owner: { metadata: { uid?: string } }): Promise<Pod[]> =>
    (await cluster.list<Pod>(podsPath)).filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid && r.controller));

  test('a ReplicaSet creates its Pods from the template, owned by it, and reports them in its status', async () => {
    const rs = await cluster.ok<ReplicaSet>('POST', rsPath, replicaSet('shop', 3));
    await cluster.settle();
    const pods = await podsOf(rs);
    assert.equal(pods.length, 3);
    for (const pod of pods) {
      assert.match(pod.metadata.name, /^shop-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.deepEqual(pod.metadata.labels, { app: 'shop', tier: 'web' });
      assert.deepEqual(pod.metadata.annotations, { note: 'from-template' });
      assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'shop', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      assert.equal(pod.spec?.containers[0]?.image, 'nginx');
    }
    const stored = await cluster.ok<ReplicaSet>('GET', `${rsPath}/shop`);
    assert.deepEqual(stored.status, { replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1 });
  });

  test('ready Pods count as ready at once and as available once ready for longer than minReadySeconds, on the simulation clock', async () => {
    const rs = await cluster.ok<ReplicaSet>('POST', rsPath, replicaSet('slow', 2, { minReadySeconds: 10 }));
    await cluster.settle();
    for (const pod of await podsOf(rs)) await cluster.markReady(ns, pod.metadata.name);
    await cluster.settle();
    let status = (await cluster.ok<ReplicaSet>('GET', `${rsPath}/slow`)).status;
    assert.deepEqual(status, { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, observedGeneration: 1 });
    await cluster.advance(10_000);
    status = (await cluster.ok<ReplicaSet>('GET', `${rsPath}/slow`)).status;
    assert.equal(status?.availableReplicas, undefined, 'ready for exactly minReadySeconds is not yet available');
    await cluster.advance(1);
    status = (await cluster.ok<ReplicaSet>('GET', `${rsPath}/slow`)).status;
    assert.equal(status?.availableReplicas, 2);
  });

  test('scaling down deletes the not-ready Pods first; scaling up creates new ones', async () => {
    const rs = await cluster.ok<ReplicaSet>('POST', rsPath, replicaSet('pick', 3));
    await cluster.settle();
    const [keep] = await podsOf(rs);
    await cluster.markReady(ns, keep!.metadata.name);
    await cluster.settle();
    await cluster.ok('PATCH', `${rsPath}/pick/scale`, { spec: { replicas: 1 } }, 'application/merge-patch+json');
    await cluster.settle();
    assert.deepEqual((await podsOf(rs)).map((p) => p.metadata.name), [keep!.metadata.name]);
    assert.deepEqual((await cluster.ok<ReplicaSet>('GET', `${rsPath}/pick`)).status, { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 2 });
    await cluster.ok('PATCH', `${rsPath}/pick/scale`, { spec: { replicas: 4 } }, 'application/merge-patch+json');
    await cluster.settle();
    assert.equal((await podsOf(rs)).length, 4);
  });

  test('adopts a matching orphan Pod instead of creating one, and releases (then replaces) a Pod whose labels stop matching', async () => {
    await cluster.ok('POST', podsPath, orphanPod('stray', { app: 'adopt' }));
    const rs = await cluster.ok<ReplicaSet>('POST', rsPath, replicaSet('adopt', 2));
    await cluster.settle();
    let pods = await podsOf(rs);
    assert.equal(pods.length, 2);
    assert.ok(pods.some((p) => p.metadata.name === 'stray'), 'the orphan was adopted');
    const stray = await cluster.ok<Pod>('GET', `${podsPath}/stray`);
    assert.deepEqual(stray.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'adopt', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);

    await cluster.ok('PATCH', `${podsPath}/stray`, { metadata: { labels: { app: 'elsewhere' } } }, 'application/merge-patch+json');
    await cluster.settle();
    const released = await cluster.ok<Pod>('GET', `${podsPath}/stray`);
    assert.equal(released.metadata.ownerReferences, undefined);
    pods = await podsOf(rs);
    assert.equal(pods.length, 2);
    assert.ok(!pods.some((p) => p.metadata.name === 'stray'));
  });

  test('a ReplicationController keeps its Pods the same way, owned as a ReplicationController', async () => {
    const rc: ReplicationController = {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'legacy' },
      spec: { replicas: 2, selector: { app: 'legacy' }, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const created = await cluster.ok<ReplicationController>('POST', rcPath, rc);
    await cluster.settle();
    const pods = await podsOf(created);
    assert.equal(pods.length, 2);
    assert.deepEqual(pods[0]!.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    await cluster.markReady(ns, pods[0]!.metadata.name);
    await cluster.settle();
    assert.deepEqual((await cluster.ok<ReplicationController>('GET', `${rcPath}/legacy`)).status, { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 });
  });
});
