import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../../api-server.js';
import { conditionOf, createPod, podManifest, startSimulatedServer } from './simulated-cluster.test-helper.js';
import type { SimulatedServer } from './simulated-cluster.test-helper.js';

describe('workload faults', () => {
  let cluster: SimulatedServer;
  before(async () => {
    cluster = await startSimulatedServer();
  });
  afterEach(() => cluster.server.faults.reset());
  after(() => cluster.stop());

  test('imagePullFailure: ErrImagePull, then ImagePullBackOff, retried on the back-off; Running once cleared', async () => {
    const fault = cluster.server.faults.imagePullFailure({ image: 'nginx' });
    await createPod(cluster, podManifest('pull', { containers: [{ name: 'app', image: 'nginx:bad' }, { name: 'side', image: 'busybox:1.36' }] }));
    await cluster.advance(1_000);
    let pod = await cluster.pod('pull');
    assert.equal(pod?.status.phase, 'Pending');
    assert.equal(pod?.status.containerStatuses?.[0]?.state.waiting?.reason, 'ErrImagePull');
    assert.match(pod?.status.containerStatuses?.[0]?.state.waiting?.message ?? '', /failed to pull and unpack image "nginx:bad"/);
    assert.ok(pod?.status.containerStatuses?.[1]?.state.running, 'the other image pulls');
    await cluster.advance(1_000);
    pod = await cluster.pod('pull');
    assert.deepEqual(pod?.status.containerStatuses?.[0]?.state.waiting, { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nginx:bad"' });
    // The next try is 10 s after the failure, then 20 s.
    await cluster.advance(8_999);
    assert.equal((await cluster.pod('pull'))?.status.containerStatuses?.[0]?.state.waiting?.reason, 'ImagePullBackOff');
    await cluster.advance(1);
    assert.equal((await cluster.pod('pull'))?.status.containerStatuses?.[0]?.state.waiting?.reason, 'ErrImagePull');
    assert.equal(conditionOf(await cluster.pod('pull'), 'Ready')?.status, 'False');
    fault.clear();
    await cluster.advance(1_000);
    assert.equal((await cluster.pod('pull'))?.status.containerStatuses?.[0]?.state.waiting?.reason, 'ImagePullBackOff');
    await cluster.advance(19_000);
    pod = await cluster.pod('pull');
    assert.equal(pod?.status.phase, 'Running');
    assert.equal(conditionOf(pod, 'Ready')?.status, 'True');
  });

  test('crashLoop: the container restarts with CrashLoopBackOff, restartCount growing, back-off 10 s then 20 s; stays up once cleared', async () => {
    const fault = cluster.server.faults.crashLoop({ labelSelector: 'app=crashy', exitCode: 2 });
    await createPod(cluster, podManifest('crashy', {}, { labels: { app: 'crashy' } }));
    await cluster.advance(1_000);
    assert.ok((await cluster.pod('crashy'))?.status.containerStatuses?.[0]?.state.running);
    await cluster.advance(1_000);
    let status = (await cluster.pod('crashy'))?.status.containerStatuses?.[0];
    assert.equal(status?.state.waiting?.reason, 'CrashLoopBackOff');
    assert.match(status?.state.waiting?.message ?? '', /^back-off 10s restarting failed container=app pod=crashy_default\(/);
    assert.deepEqual(status?.lastState.terminated && { exitCode: status.lastState.terminated.exitCode, reason: status.lastState.terminated.reason }, { exitCode: 2, reason: 'Error' });
    assert.equal(status?.restartCount, 0);
    assert.equal((await cluster.pod('crashy'))?.status.phase, 'Running');
    await cluster.advance(10_000);
    status = (await cluster.pod('crashy'))?.status.containerStatuses?.[0];
    assert.ok(status?.state.running);
    assert.equal(status?.restartCount, 1);
    await cluster.advance(1_000);
    status = (await cluster.pod('crashy'))?.status.containerStatuses?.[0];
    assert.match(status?.state.waiting?.message ?? '', /^back-off 20s /);
    assert.equal(conditionOf(await cluster.pod('crashy'), 'Ready')?.status, 'False');
    fault.clear();
    await cluster.advance(20_000);
    const pod = await cluster.pod('crashy');
    assert.equal(pod?.status.containerStatuses?.[0]?.restartCount, 2);
    assert.equal(conditionOf(pod, 'Ready')?.status, 'True');
    await cluster.advance(60_000);
    assert.equal((await cluster.pod('crashy'))?.status.containerStatuses?.[0]?.restartCount, 2, 'no more crashes');
  });

  test('neverReady: Running, readiness never passes; Ready at once when cleared', async () => {
    const fault = cluster.server.faults.neverReady({ namespace: 'default', labelSelector: 'app=stuck' });
    await createPod(cluster, podManifest('stuck', {}, { labels: { app: 'stuck' } }));
    await createPod(cluster, podManifest('fine', {}, { labels: { app: 'fine' } }));
    await cluster.advance(60_000);
    const stuck = await cluster.pod('stuck');
    assert.equal(stuck?.status.phase, 'Running');
    assert.equal(stuck?.status.containerStatuses?.[0]?.started, true);
    assert.equal(conditionOf(stuck, 'Ready')?.status, 'False');
    assert.equal(conditionOf(await cluster.pod('fine'), 'Ready')?.status, 'True');
    fault.clear();
    await cluster.simulation.whenIdle();
    assert.equal(conditionOf(await cluster.pod('stuck'), 'Ready')?.status, 'True');
  });

  test('slowStart: the matching Pods take podStartMs to run', async () => {
    cluster.server.faults.slowStart({ labelSelector: 'speed=slow', podStartMs: 8_000 });
    await createPod(cluster, podManifest('slow', {}, { labels: { speed: 'slow' } }));
    await cluster.advance(7_999);
    assert.equal((await cluster.pod('slow'))?.status.phase, 'Pending');
    await cluster.advance(1);
    assert.equal((await cluster.pod('slow'))?.status.phase, 'Running');
  });

  test('without the simulated kubelet, a workload fault is refused with a clear error', async () => {
    const server = await startApiServer();
    try {
      assert.throws(() => server.faults.crashLoop(), /needs the simulated kubelet: start the server with simulate: true/);
    } finally {
      await server.stop();
    }
  });
});
