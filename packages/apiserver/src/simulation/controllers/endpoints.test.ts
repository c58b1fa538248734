/** Services get an EndpointSlice and Endpoints from the Pods they select, as on a cluster. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../../api-server.js';
import type { ApiServer } from '../../api-server.js';
import { call, waitFor } from '../../testing/test-client.js';

const ns = '/api/v1/namespaces/default';

describe('simulated EndpointSlice and Endpoints controllers', () => {
  let server: ApiServer;
  before(async () => {
    // No kubelet: the test plays it by writing each Pod's status.
    server = await startApiServer({ simulate: { kubelet: false } });
  });
  after(() => server.stop());

  const idle = (): Promise<void> => server.simulation?.whenIdle() ?? Promise.reject(new Error('no simulation'));

  async function pod(name: string, labels: Record<string, string>, status: { ip?: string; ready?: boolean }): Promise<void> {
    const created = await call(server.url, 'POST', `${ns}/pods`, {
      metadata: { name, labels },
      spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
    });
    assert.equal(created.status, 201, created.text);
    if (status.ip === undefined) return;
    const conditions = [{ type: 'Ready', status: status.ready ? 'True' : 'False' }];
    const written = await call(server.url, 'PUT', `${ns}/pods/${name}/status`, { ...created.body, status: { phase: 'Running', podIP: status.ip, conditions } });
    assert.equal(written.status, 200, written.text);
  }

  async function slice(service: string): Promise<{ name: string; endpoints: { addresses: string[]; conditions: Record<string, boolean>; targetRef: { name: string } }[]; ports: unknown[]; owner: string }> {
    const listed = await call(server.url, 'GET', `/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name%3D${service}`);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.items.length, 1, `one slice for ${service}`);
    const item = listed.body.items[0];
    return { name: item.metadata.name, endpoints: item.endpoints ?? [], ports: item.ports, owner: item.metadata.ownerReferences?.[0]?.name };
  }

  test('ready, not-ready and IP-less Pods; named target ports; a Pod leaving the selector; the Service going', async () => {
    await pod('web-a', { app: 'web' }, { ip: '10.244.0.10', ready: true });
    await pod('web-b', { app: 'web' }, { ip: '10.244.0.11', ready: false });
    await pod('web-c', { app: 'web' }, {});
    await pod('other', { app: 'other' }, { ip: '10.244.0.12', ready: true });
    const created = await call(server.url, 'POST', `${ns}/services`, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    assert.equal(created.status, 201, created.text);
    await idle();

    const first = await slice('web');
    assert.match(first.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(first.owner, 'web');
    assert.deepEqual(first.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    assert.deepEqual(
      first.endpoints.map((e) => [e.targetRef.name, e.addresses[0], e.conditions.ready]),
      [
        ['web-a', '10.244.0.10', true],
        ['web-b', '10.244.0.11', false],
      ],
    );
    const endpoints = await call(server.url, 'GET', `${ns}/endpoints/web`);
    assert.equal(endpoints.status, 200, endpoints.text);
    assert.deepEqual(
      endpoints.body.subsets.map((s: { addresses?: { ip: string }[]; notReadyAddresses?: { ip: string }[] }) => [s.addresses?.map((a) => a.ip), s.notReadyAddresses?.map((a) => a.ip)]),
      [[['10.244.0.10'], ['10.244.0.11']]],
    );

    const moved = await call(server.url, 'GET', `${ns}/pods/web-a`);
    assert.equal((await call(server.url, 'PUT', `${ns}/pods/web-a`, { ...moved.body, metadata: { ...moved.body.metadata, labels: { app: 'elsewhere' } } })).status, 200);
    await idle();
    const second = await slice('web');
    assert.equal(second.name, first.name, 'the slice is updated in place');
    assert.deepEqual(second.endpoints.map((e) => e.targetRef.name), ['web-b']);

    assert.equal((await call(server.url, 'DELETE', `${ns}/services/web`)).status, 200);
    await idle();
    // The slice is the Service's dependent: the garbage collector or the controller removes it.
    await waitFor(async () => (await call(server.url, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices')).body.items.length === 0, {
      message: 'the slice goes with its Service',
    });
    assert.equal((await call(server.url, 'GET', `${ns}/endpoints/web`)).status, 404);
  });

  test('a Service without a selector gets no endpoints from the simulation', async () => {
    assert.equal((await call(server.url, 'POST', `${ns}/services`, { metadata: { name: 'external' }, spec: { ports: [{ port: 443 }] } })).status, 201);
    await idle();
    assert.equal((await call(server.url, 'GET', `${ns}/endpoints/external`)).status, 404);
  });
});
