import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { conditionOf, createPod, podManifest, startSimulatedServer } from './simulated-cluster.test-helper.js';
import type { SimulatedServer } from './simulated-cluster.test-helper.js';

interface NodeJson {
  spec: { taints?: { key: string; effect: string; timeAdded?: string }[] };
  status: { conditions: { type: string; status: string; reason: string; message: string }[] };
}

describe('a Node going NotReady', () => {
  let cluster: SimulatedServer;
  before(async () => {
    cluster = await startSimulatedServer({ nodes: 1 });
  });
  afterEach(() => cluster.server.faults.reset());
  after(() => cluster.stop());

  async function node(): Promise<NodeJson> {
    return (await cluster.call('GET', '/api/v1/nodes/node-1')).body as NodeJson;
  }

  test('Unknown: after the 50 s grace its conditions go Unknown and it is tainted unreachable; Pods evicted after 300 s; all recovers once cleared', async () => {
    await createPod(cluster, podManifest('victim'));
    await createPod(cluster, podManifest('patient', { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }] }));
    await cluster.advance(1_000);
    assert.equal(conditionOf(await cluster.pod('victim'), 'Ready')?.status, 'True');
    const fault = cluster.server.faults.nodeNotReady('node-1');
    await cluster.advance(45_000);
    assert.equal((await node()).status.conditions.find((c) => c.type === 'Ready')?.status, 'True', 'still within the grace period');
    await cluster.advance(45_000);
    const down = await node();
    const ready = down.status.conditions.find((c) => c.type === 'Ready');
    assert.deepEqual({ status: ready?.status, reason: ready?.reason, message: ready?.message }, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    assert.deepEqual(
      down.spec.taints?.map((t) => `${t.key}:${t.effect}`),
      ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute'],
    );
    assert.equal(conditionOf(await cluster.pod('victim'), 'Ready')?.status, 'False');
    // New Pods are not scheduled on it.
    await createPod(cluster, podManifest('newcomer'));
    assert.match(conditionOf(await cluster.pod('newcomer'), 'PodScheduled')?.message ?? '', /^0\/1 nodes are available: 1 node\(s\) had untolerated taint \{node\.kubernetes\.io\/unreachable: \}\./);
    // Tainted at 50 s (the last heartbeat at 0 s plus the grace period): evicted at 350 s.
    await cluster.advance(258_000);
    assert.equal((await cluster.pod('victim'))?.metadata.deletionTimestamp, undefined);
    await cluster.advance(2_000);
    const evicted = await cluster.pod('victim');
    assert.ok(evicted?.metadata.deletionTimestamp, 'evicted: being deleted');
    assert.equal((await cluster.pod('patient'))?.metadata.deletionTimestamp, undefined, 'tolerates it for ever');
    // Its kubelet is down: the Pod stays Terminating until the Node is back.
    await cluster.advance(60_000);
    assert.ok(await cluster.pod('victim'));

    fault.clear();
    await cluster.simulation.whenIdle();
    const back = await node();
    assert.equal(back.status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(back.spec.taints, undefined);
    assert.equal(await cluster.pod('victim'), undefined, 'its grace period is long over');
    assert.equal((await cluster.pod('newcomer'))?.spec.nodeName, 'node-1');
    await cluster.advance(1_000);
    assert.equal(conditionOf(await cluster.pod('patient'), 'Ready')?.status, 'True');
  });

  test('False: tainted not-ready at once; Pods evicted after their tolerationSeconds and removed after their grace period', async () => {
    await createPod(cluster, podManifest('brief', { terminationGracePeriodSeconds: 10, tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }] }));
    await cluster.advance(1_000);
    const fault = cluster.server.faults.nodeNotReady('node-1', { status: 'False' });
    await cluster.simulation.whenIdle();
    const down = await node();
    assert.equal(down.status.conditions.find((c) => c.type === 'Ready')?.reason, 'KubeletNotReady');
    assert.deepEqual(
      down.spec.taints?.map((t) => `${t.key}:${t.effect}`),
      ['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute'],
    );
    assert.equal(conditionOf(await cluster.pod('brief'), 'Ready')?.status, 'False');
    await cluster.advance(20_000);
    assert.equal((await cluster.pod('brief'))?.metadata.deletionGracePeriodSeconds, 10);
    await cluster.advance(10_000);
    assert.equal(await cluster.pod('brief'), undefined);
    fault.clear();
    await cluster.simulation.whenIdle();
    assert.equal((await node()).spec.taints, undefined);
  });
});
