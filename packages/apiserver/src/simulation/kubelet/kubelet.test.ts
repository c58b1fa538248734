import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { conditionOf, createPod, podManifest, simulationStart, startSimulatedServer } from './simulated-cluster.test-helper.js';
import type { SimulatedServer } from './simulated-cluster.test-helper.js';

describe('the simulated Nodes', () => {
  let cluster: SimulatedServer;
  before(async () => {
    cluster = await startSimulatedServer({ nodes: 2, nodeCapacity: { cpu: '8', memory: '32Gi', pods: '20' } });
  });
  after(() => cluster.stop());

  test('are registered Ready with capacity, addresses and nodeInfo, and heartbeat through Leases in kube-node-lease', async () => {
    const nodes = await cluster.call('GET', '/api/v1/nodes');
    assert.deepEqual(
      nodes.body.items.map((n: { metadata: { name: string } }) => n.metadata.name),
      ['node-1', 'node-2'],
    );
    const node = nodes.body.items[1];
    assert.deepEqual(node.status.capacity, { cpu: '8', memory: '32Gi', pods: '20' });
    assert.deepEqual(node.status.allocatable, { cpu: '8', memory: '32Gi', pods: '20' });
    assert.deepEqual(node.status.addresses, [
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'Hostname', address: 'node-2' },
    ]);
    assert.equal(node.status.nodeInfo.kubeletVersion, 'v1.32.0-kubeloop');
    assert.equal(node.metadata.labels['kubernetes.io/hostname'], 'node-2');
    const conditions = Object.fromEntries(node.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]));
    assert.deepEqual(conditions, { MemoryPressure: 'False', DiskPressure: 'False', PIDPressure: 'False', Ready: 'True' });

    const lease = await cluster.call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2');
    assert.equal(lease.status, 200, lease.text);
    assert.equal(lease.body.spec.holderIdentity, 'node-2');
    assert.equal(lease.body.metadata.ownerReferences[0].uid, node.metadata.uid);
    const renewed = Date.parse(lease.body.spec.renewTime);
    await cluster.advance(39_000);
    const same = await cluster.call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2');
    assert.equal(Date.parse(same.body.spec.renewTime), renewed, 'not renewed before 40 s');
    await cluster.advance(1_000);
    const later = await cluster.call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2');
    assert.equal(Date.parse(later.body.spec.renewTime), renewed + 40_000);
  });
});

describe('the simulated scheduler and kubelet', () => {
  let cluster: SimulatedServer;
  before(async () => {
    cluster = await startSimulatedServer();
  });
  after(() => cluster.stop());

  test('a Pod is bound, Pending (ContainerCreating), Running after podStartMs, Ready after its readiness delay', async () => {
    const t0 = cluster.elapsed();
    const spec = { containers: [{ name: 'app', image: 'nginx:1.27', readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 5 } }] };
    await createPod(cluster, podManifest('web', spec));
    const pending = await cluster.pod('web');
    assert.ok(pending);
    assert.match(pending.spec.nodeName ?? '', /^node-[123]$/);
    assert.equal(conditionOf(pending, 'PodScheduled')?.status, 'True');
    assert.equal(pending.status.phase, 'Pending');
    assert.equal(pending.status.hostIP, `10.0.0.${(pending.spec.nodeName ?? '').slice(5)}`);
    assert.match(pending.status.podIP ?? '', new RegExp(`^10\\.244\\.${(pending.spec.nodeName ?? '').slice(5)}\\.\\d+$`));
    assert.equal(pending.status.startTime, new Date(simulationStart + t0).toISOString().replace('.000Z', 'Z'));
    const creating = pending.status.containerStatuses?.[0];
    assert.deepEqual(creating?.state, { waiting: { reason: 'ContainerCreating' } });
    assert.equal(creating?.ready, false);
    assert.equal(creating?.started, false);
    assert.equal(creating?.imageID, '');
    assert.equal(conditionOf(pending, 'Ready')?.reason, 'ContainersNotReady');
    assert.equal(conditionOf(pending, 'Ready')?.message, 'containers with unready status: [app]');

    await cluster.advance(999);
    assert.equal((await cluster.pod('web'))?.status.phase, 'Pending');
    await cluster.advance(1);
    const running = await cluster.pod('web');
    assert.equal(running?.status.phase, 'Running');
    const status = running?.status.containerStatuses?.[0];
    assert.equal(status?.started, true);
    assert.equal(status?.ready, false);
    assert.equal(status?.restartCount, 0);
    assert.match(status?.containerID ?? '', /^containerd:\/\/[0-9a-f]{64}$/);
    assert.match(status?.imageID ?? '', /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.deepEqual(
      running?.status.conditions?.map((c) => `${c.type}=${c.status}`),
      ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=False', 'ContainersReady=False', 'PodScheduled=True'],
    );

    await cluster.advance(4_999);
    assert.equal(conditionOf(await cluster.pod('web'), 'Ready')?.status, 'False');
    await cluster.advance(1);
    const ready = await cluster.pod('web');
    assert.equal(conditionOf(ready, 'Ready')?.status, 'True');
    assert.equal(conditionOf(ready, 'ContainersReady')?.status, 'True');
    assert.equal(ready?.status.containerStatuses?.[0]?.ready, true);
    assert.equal(conditionOf(ready, 'Ready')?.lastTransitionTime, new Date(simulationStart + t0 + 6_000).toISOString().replace('.000Z', 'Z'));
  });

  test('init containers run first, one after another; the Pod is Ready at once without a probe', async () => {
    const spec = {
      initContainers: [
        { name: 'migrate', image: 'busybox:1.36' },
        { name: 'warm', image: 'busybox:1.36' },
      ],
      containers: [{ name: 'app', image: 'nginx:1.27' }],
    };
    await createPod(cluster, podManifest('with-init', spec));
    let pod = await cluster.pod('with-init');
    assert.equal(conditionOf(pod, 'Initialized')?.message, 'containers with incomplete status: [migrate warm]');
    assert.deepEqual(pod?.status.containerStatuses?.[0]?.state, { waiting: { reason: 'PodInitializing' } });
    await cluster.advance(1_000);
    pod = await cluster.pod('with-init');
    assert.equal(pod?.status.initContainerStatuses?.[0]?.state.terminated?.reason, 'Completed');
    assert.deepEqual(pod?.status.initContainerStatuses?.[1]?.state, { waiting: { reason: 'ContainerCreating' } });
    assert.equal(pod?.status.phase, 'Pending');
    await cluster.advance(1_000);
    pod = await cluster.pod('with-init');
    assert.equal(conditionOf(pod, 'Initialized')?.status, 'True');
    assert.equal(pod?.status.phase, 'Pending');
    await cluster.advance(1_000);
    pod = await cluster.pod('with-init');
    assert.equal(pod?.status.phase, 'Running');
    assert.equal(conditionOf(pod, 'Ready')?.status, 'True');
  });

  test("a Job's Pod (and one annotated run-ms) Succeeds after its run: exit 0, Completed", async () => {
    const job = await cluster.call('POST', '/apis/batch/v1/namespaces/default/jobs', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox:1.36' }] } } },
    });
    assert.equal(job.status, 201, job.text);
    // The Job controller makes the Job's Pod; the kubelet runs it as a Job's.
    await cluster.advance(0);
    const jobPods = await cluster.call('GET', '/api/v1/namespaces/default/pods?labelSelector=job-name%3Donce');
    assert.equal(jobPods.body.items.length, 1, jobPods.text);
    const jobPod = String(jobPods.body.items[0].metadata.name);
    await createPod(cluster, podManifest('annotated', { restartPolicy: 'OnFailure' }, { annotations: { 'simulation.kubeloop.dev/run-ms': '500' } }));
    await cluster.advance(1_500);
    assert.equal((await cluster.pod('annotated'))?.status.phase, 'Succeeded');
    assert.equal((await cluster.pod(jobPod))?.status.phase, 'Running');
    await cluster.advance(1_500);
    const done = await cluster.pod(jobPod);
    assert.equal(done?.status.phase, 'Succeeded');
    assert.deepEqual(
      { exitCode: done?.status.containerStatuses?.[0]?.state.terminated?.exitCode, reason: done?.status.containerStatuses?.[0]?.state.terminated?.reason },
      { exitCode: 0, reason: 'Completed' },
    );
    assert.equal(conditionOf(done, 'Ready')?.reason, 'PodCompleted');
    // A finished Pod is deleted at once.
    const deleted = await cluster.call('DELETE', `/api/v1/namespaces/default/pods/${jobPod}`);
    assert.equal(deleted.status, 200);
    assert.equal(await cluster.pod(jobPod), undefined);
  });
});
