import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../../api-server.js';
import { call } from '../../testing/test-client.js';
import { createPod, podManifest, simulationStart, startSimulatedServer } from './simulated-cluster.test-helper.js';
import type { SimulatedServer } from './simulated-cluster.test-helper.js';

const podsPath = '/api/v1/namespaces/default/pods';

describe('Pod deletion with the simulated kubelet', () => {
  let cluster: SimulatedServer;
  before(async () => {
    cluster = await startSimulatedServer();
  });
  after(() => cluster.stop());

  async function runningPod(name: string, spec: Record<string, unknown> = {}): Promise<void> {
    await createPod(cluster, podManifest(name, spec));
    await cluster.advance(1_000);
    assert.equal((await cluster.pod(name))?.status.phase, 'Running');
  }

  test('a running Pod is marked with the default 30 s grace period and removed by the kubelet when it ends', async () => {
    await runningPod('graceful');
    const deleting = await cluster.call('DELETE', `${podsPath}/graceful`);
    assert.equal(deleting.status, 200, deleting.text);
    assert.equal(deleting.body.metadata.deletionGracePeriodSeconds, 30);
    assert.equal(deleting.body.metadata.deletionTimestamp, new Date(simulationStart + cluster.elapsed() + 30_000).toISOString().replace('.000Z', 'Z'));
    // A second delete with a longer grace changes nothing.
    const again = await cluster.call('DELETE', `${podsPath}/graceful`, { gracePeriodSeconds: 60 });
    assert.equal(again.body.metadata.deletionGracePeriodSeconds, 30);
    await cluster.advance(29_999);
    assert.ok(await cluster.pod('graceful'), 'still there before its grace period ends');
    await cluster.advance(1);
    assert.equal(await cluster.pod('graceful'), undefined);
  });

  test("the Pod's terminationGracePeriodSeconds, a shorter delete's gracePeriodSeconds, and 0 (at once)", async () => {
    await runningPod('short', { terminationGracePeriodSeconds: 5 });
    assert.equal((await cluster.call('DELETE', `${podsPath}/short`)).body.metadata.deletionGracePeriodSeconds, 5);
    await cluster.advance(5_000);
    assert.equal(await cluster.pod('short'), undefined);

    await runningPod('shortened');
    await cluster.call('DELETE', `${podsPath}/shortened`);
    const shorter = await cluster.call('DELETE', `${podsPath}/shortened?gracePeriodSeconds=2`);
    assert.equal(shorter.body.metadata.deletionGracePeriodSeconds, 2);
    await cluster.advance(2_000);
    assert.equal(await cluster.pod('shortened'), undefined);

    await runningPod('forced');
    const forced = await cluster.call('DELETE', `${podsPath}/forced`, { gracePeriodSeconds: 0 });
    assert.equal(forced.status, 200);
    assert.equal(await cluster.pod('forced'), undefined);
  });

  test('an unbound Pod goes at once', async () => {
    await createPod(cluster, podManifest('nowhere', { nodeSelector: { zone: 'mars' } }));
    assert.equal((await cluster.call('DELETE', `${podsPath}/nowhere`)).status, 200);
    assert.equal(await cluster.pod('nowhere'), undefined);
  });
});

describe('Pod deletion without the simulation', () => {
  test('is at once, as envtest, even for a Pod with a nodeName', async () => {
    const server = await startApiServer();
    try {
      const created = await call(server.url, 'POST', podsPath, podManifest('bound', { nodeName: 'node-1' }));
      assert.equal(created.status, 201, created.text);
      const deleted = await call(server.url, 'DELETE', `${podsPath}/bound`, { gracePeriodSeconds: 30 });
      assert.equal(deleted.status, 200);
      assert.equal((await call(server.url, 'GET', `${podsPath}/bound`)).status, 404);
    } finally {
      await server.stop();
    }
  });
});
