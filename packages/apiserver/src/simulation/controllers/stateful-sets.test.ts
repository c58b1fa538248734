/** Simulated StatefulSets: ordinal Pods in order, claims, scale down from the top, rolling updates from the top. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../../api-server.js';
import type { ApiServer } from '../../api-server.js';
import { call } from '../../testing/test-client.js';

const setsPath = '/apis/apps/v1/namespaces/default/statefulsets';
const podsPath = '/api/v1/namespaces/default/pods';

interface PodItem {
  metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
  spec: { hostname?: string; subdomain?: string };
  status?: { phase?: string };
}

describe('simulated StatefulSet controller', () => {
  let server: ApiServer;
  before(async () => {
    // No kubelet: the test starts each Pod by writing its status.
    server = await startApiServer({ simulate: { kubelet: false } });
  });
  after(() => server.stop());
  const idle = (): Promise<void> => server.simulation?.whenIdle() ?? Promise.reject(new Error('no simulation'));

  async function pods(): Promise<PodItem[]> {
    const listed = await call(server.url, 'GET', `${podsPath}?labelSelector=app%3Ddb`);
    return (listed.body.items as PodItem[]).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  async function start(name: string): Promise<void> {
    const current = await call(server.url, 'GET', `${podsPath}/${name}`);
    const written = await call(server.url, 'PUT', `${podsPath}/${name}/status`, { ...current.body, status: { phase: 'Running', podIP: '10.244.1.1', conditions: [{ type: 'Ready', status: 'True' }] } });
    assert.equal(written.status, 200, written.text);
    await idle();
  }

  async function scale(replicas: number, image?: string): Promise<void> {
    const current = await call(server.url, 'GET', `${setsPath}/db`);
    const spec = structuredClone(current.body.spec);
    spec.replicas = replicas;
    if (image) spec.template.spec.containers[0].image = image;
    assert.equal((await call(server.url, 'PUT', `${setsPath}/db`, { ...current.body, spec })).status, 200);
    await idle();
  }

  test('OrderedReady: db-0, then db-1 once db-0 is Ready, with hostname, subdomain, labels and claims', async () => {
    const created = await call(server.url, 'POST', setsPath, {
      metadata: { name: 'db' },
      spec: {
        replicas: 2,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:16' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    });
    assert.equal(created.status, 201, created.text);
    await idle();
    let listed = await pods();
    assert.deepEqual(listed.map((p) => p.metadata.name), ['db-0']);
    assert.equal(listed[0]?.spec.hostname, 'db-0');
    assert.equal(listed[0]?.spec.subdomain, 'db');
    assert.equal(listed[0]?.metadata.labels['apps.kubernetes.io/pod-index'], '0');
    const claim = await call(server.url, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims/data-db-0');
    assert.equal(claim.status, 200, claim.text);
    assert.equal(claim.body.status.phase, 'Bound');

    await start('db-0');
    listed = await pods();
    assert.deepEqual(listed.map((p) => p.metadata.name), ['db-0', 'db-1']);
    await start('db-1');
    const status = (await call(server.url, 'GET', `${setsPath}/db`)).body.status;
    assert.equal(status.readyReplicas, 2);
    assert.equal(status.currentRevision, status.updateRevision);
    const revisions = await call(server.url, 'GET', '/apis/apps/v1/namespaces/default/controllerrevisions');
    assert.deepEqual(revisions.body.items.map((r: { revision: number }) => r.revision), [1]);
  });

  test('a new template rolls from the highest ordinal down, one Ready Pod at a time; scale down removes the highest', async () => {
    const before = await pods();
    const oldRevision = before[0]?.metadata.labels['controller-revision-hash'];
    await scale(2, 'postgres:17');
    // Without a kubelet a deleted Pod goes at once: db-1 (the highest) is already back, on the new revision.
    let listed = await pods();
    const revisionOf = (name: string): string | undefined => listed.find((p) => p.metadata.name === name)?.metadata.labels['controller-revision-hash'];
    assert.deepEqual(listed.map((p) => p.metadata.name), ['db-0', 'db-1']);
    assert.equal(revisionOf('db-0'), oldRevision, 'db-0 waits until db-1 is Ready');
    assert.notEqual(revisionOf('db-1'), oldRevision);
    await start('db-1');
    listed = await pods();
    assert.notEqual(revisionOf('db-0'), oldRevision, 'then db-0 is replaced');
    await start('db-0');
    const status = (await call(server.url, 'GET', `${setsPath}/db`)).body.status;
    assert.equal(status.updatedReplicas, 2);
    assert.equal(status.currentRevision, status.updateRevision);

    await scale(1);
    assert.deepEqual((await pods()).map((p) => p.metadata.name), ['db-0']);
  });
});
