import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { conditionOf, createPod, podManifest, startSimulatedServer } from './simulated-cluster.test-helper.js';
import type { SimulatedServer } from './simulated-cluster.test-helper.js';

describe('the simulated scheduler', () => {
  let cluster: SimulatedServer;
  before(async () => {
    cluster = await startSimulatedServer({ nodes: 3, nodeCapacity: { cpu: '2', memory: '4Gi', pods: '10' } });
  });
  after(() => cluster.stop());

  test('spreads Pods over the Nodes with the fewest Pods', async () => {
    for (const name of ['s1', 's2', 's3']) await createPod(cluster, podManifest(name));
    const nodes = await Promise.all(['s1', 's2', 's3'].map(async (name) => (await cluster.pod(name))?.spec.nodeName));
    assert.deepEqual(nodes.sort(), ['node-1', 'node-2', 'node-3']);
  });

  test("a Pod no Node fits gets PodScheduled False, Unschedulable, with kube-scheduler's message; it is bound once a Node fits", async () => {
    await createPod(cluster, podManifest('picky', { nodeSelector: { disk: 'ssd' } }));
    const waiting = await cluster.pod('picky');
    assert.equal(waiting?.spec.nodeName, undefined);
    assert.deepEqual(conditionOf(waiting, 'PodScheduled') && { ...conditionOf(waiting, 'PodScheduled'), lastTransitionTime: undefined }, {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      lastProbeTime: null,
      lastTransitionTime: undefined,
    });
    const labelled = await cluster.call('PATCH', '/api/v1/nodes/node-2', { metadata: { labels: { disk: 'ssd' } } }, { contentType: 'application/merge-patch+json' });
    assert.equal(labelled.status, 200, labelled.text);
    await cluster.simulation.whenIdle();
    const bound = await cluster.pod('picky');
    assert.equal(bound?.spec.nodeName, 'node-2');
    assert.equal(conditionOf(bound, 'PodScheduled')?.status, 'True');
  });

  test('respects cordoned Nodes, NoSchedule taints and tolerations, and resources', async () => {
    const cordon = await cluster.call('PATCH', '/api/v1/nodes/node-1', { spec: { unschedulable: true } }, { contentType: 'application/merge-patch+json' });
    assert.equal(cordon.status, 200, cordon.text);
    const taint = await cluster.call('PATCH', '/api/v1/nodes/node-3', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } }, { contentType: 'application/merge-patch+json' });
    assert.equal(taint.status, 200, taint.text);
    await createPod(cluster, podManifest('big', { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '3' } } }] }));
    assert.equal(
      conditionOf(await cluster.pod('big'), 'PodScheduled')?.message,
      '0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) were unschedulable. ' +
        'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    );
    await createPod(cluster, podManifest('db', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }], nodeSelector: { 'kubernetes.io/hostname': 'node-3' } }));
    assert.equal((await cluster.pod('db'))?.spec.nodeName, 'node-3');
    await createPod(cluster, podManifest('plain'));
    assert.equal((await cluster.pod('plain'))?.spec.nodeName, 'node-2');
  });

  test('a Pod for another scheduler, or with a nodeName, is left alone', async () => {
    await createPod(cluster, podManifest('custom', { schedulerName: 'my-scheduler' }));
    const custom = await cluster.pod('custom');
    assert.equal(custom?.spec.nodeName, undefined);
    assert.equal(conditionOf(custom, 'PodScheduled'), undefined);
  });
});
