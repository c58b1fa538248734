/** Simulated DaemonSets: one Pod per qualifying Node, following Nodes as they come, go and change; rolling updates. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../../api-server.js';
import type { ApiServer } from '../../api-server.js';
import { call } from '../../testing/test-client.js';

const setsPath = '/apis/apps/v1/namespaces/default/daemonsets';
const podsPath = '/api/v1/namespaces/default/pods';

interface PodItem {
  metadata: { name: string; labels: Record<string, string> };
  spec: { nodeName?: string };
}

describe('simulated DaemonSet controller', () => {
  let server: ApiServer;
  before(async () => {
    // No kubelet: the test makes the Nodes and starts the Pods.
    server = await startApiServer({ simulate: { kubelet: false } });
  });
  after(() => server.stop());
  const idle = (): Promise<void> => server.simulation?.whenIdle() ?? Promise.reject(new Error('no simulation'));

  async function node(name: string, labels: Record<string, string>, taints: unknown[] = []): Promise<void> {
    assert.equal((await call(server.url, 'POST', '/api/v1/nodes', { metadata: { name, labels }, spec: { taints } })).status, 201);
    await idle();
  }

  async function pods(): Promise<PodItem[]> {
    const listed = await call(server.url, 'GET', `${podsPath}?labelSelector=app%3Dagent`);
    return (listed.body.items as PodItem[]).sort((a, b) => (a.spec.nodeName ?? '').localeCompare(b.spec.nodeName ?? ''));
  }

  async function readyAll(): Promise<void> {
    for (const pod of await pods()) {
      const current = await call(server.url, 'GET', `${podsPath}/${pod.metadata.name}`);
      if (current.body.status?.conditions?.length) continue;
      await call(server.url, 'PUT', `${podsPath}/${pod.metadata.name}/status`, { ...current.body, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
    }
    await idle();
  }

  test('one Pod per Node matching the nodeSelector and tolerating its taints, following Node changes', async () => {
    await node('ssd-1', { disk: 'ssd' });
    await node('hdd-1', { disk: 'hdd' });
    await node('ssd-tainted', { disk: 'ssd' }, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]);
    const created = await call(server.url, 'POST', setsPath, {
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'agent', image: 'agent:1' }] } },
      },
    });
    assert.equal(created.status, 201, created.text);
    await idle();
    assert.deepEqual((await pods()).map((p) => p.spec.nodeName), ['ssd-1']);

    await node('ssd-2', { disk: 'ssd' });
    assert.deepEqual((await pods()).map((p) => p.spec.nodeName), ['ssd-1', 'ssd-2'], 'a new Node gets its Pod');
    const status = (await call(server.url, 'GET', `${setsPath}/agent`)).body.status;
    assert.equal(status.desiredNumberScheduled, 2);
    assert.equal(status.currentNumberScheduled, 2);

    assert.equal((await call(server.url, 'DELETE', '/api/v1/nodes/ssd-2')).status, 200);
    await idle();
    assert.deepEqual((await pods()).map((p) => p.spec.nodeName), ['ssd-1'], 'a Node gone takes its Pod with it');
  });

  test('a template change replaces one Pod at a time (maxUnavailable 1), each once the others are Ready', async () => {
    await node('ssd-3', { disk: 'ssd' });
    await readyAll();
    const before = await pods();
    assert.equal(before.length, 2);
    const oldRevision = before[0]?.metadata.labels['controller-revision-hash'];
    const current = await call(server.url, 'GET', `${setsPath}/agent`);
    const spec = structuredClone(current.body.spec);
    spec.template.spec.containers[0].image = 'agent:2';
    assert.equal((await call(server.url, 'PUT', `${setsPath}/agent`, { ...current.body, spec })).status, 200);
    await idle();
    let revisions = (await pods()).map((p) => p.metadata.labels['controller-revision-hash'] === oldRevision);
    assert.deepEqual(revisions.sort(), [false, true], 'one replaced, the other waits');
    await readyAll();
    revisions = (await pods()).map((p) => p.metadata.labels['controller-revision-hash'] === oldRevision);
    assert.deepEqual(revisions, [false, false]);
  });
});
