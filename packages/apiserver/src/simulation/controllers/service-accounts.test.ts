/** Every namespace gets `default` and `kube-root-ca.crt` with the simulation on, and only then. */
import { request as httpsRequest } from 'node:https';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../../api-server.js';
import type { ApiServer } from '../../api-server.js';
import { call } from '../../testing/test-client.js';

async function idle(server: ApiServer): Promise<void> {
  assert.ok(server.simulation, 'the simulation is on');
  await server.simulation.whenIdle();
}

async function names(server: ApiServer, path: string): Promise<string[]> {
  const listed = await call(server.url, 'GET', path);
  assert.equal(listed.status, 200, listed.text);
  return (listed.body.items as { metadata: { name: string } }[]).map((item) => item.metadata.name);
}

describe('simulated ServiceAccount and root CA publishing', () => {
  test('the namespaces of a new server and every new namespace get default and kube-root-ca.crt, recreated and restored', async () => {
    const server = await startApiServer({ simulate: { kubelet: false } });
    try {
      await idle(server);
      for (const ns of ['default', 'kube-system']) {
        assert.deepEqual(await names(server, `/api/v1/namespaces/${ns}/serviceaccounts`), ['default']);
        assert.deepEqual(await names(server, `/api/v1/namespaces/${ns}/configmaps`), ['kube-root-ca.crt']);
      }
      assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } })).status, 201);
      await idle(server);
      assert.deepEqual(await names(server, '/api/v1/namespaces/team/serviceaccounts'), ['default']);
      const published = await call(server.url, 'GET', '/api/v1/namespaces/team/configmaps/kube-root-ca.crt');
      assert.match(String(published.body.data['ca.crt']), /^-----BEGIN CERTIFICATE-----/);
      assert.equal(published.body.metadata.managedFields[0].manager, 'kube-controller-manager');

      assert.equal((await call(server.url, 'DELETE', '/api/v1/namespaces/team/serviceaccounts/default')).status, 200);
      assert.equal((await call(server.url, 'PUT', '/api/v1/namespaces/team/configmaps/kube-root-ca.crt', { ...published.body, data: { 'ca.crt': 'edited' } })).status, 200);
      await idle(server);
      assert.deepEqual(await names(server, '/api/v1/namespaces/team/serviceaccounts'), ['default']);
      const restored = await call(server.url, 'GET', '/api/v1/namespaces/team/configmaps/kube-root-ca.crt');
      assert.equal(restored.body.data['ca.crt'], published.body.data['ca.crt']);
    } finally {
      await server.stop();
    }
  });

  test('with tls, the published CA is the one clients trust', async () => {
    const server = await startApiServer({ simulate: { kubelet: false }, tls: true });
    try {
      await idle(server);
      const ca = server.caCertificate ?? '';
      const text = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(`${server.url}/api/v1/namespaces/default/configmaps/kube-root-ca.crt`, { ca }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal((JSON.parse(text) as { data: Record<string, string> }).data['ca.crt'], ca);
    } finally {
      await server.stop();
    }
  });

  test('without simulate the server publishes nothing, as envtest', async () => {
    const server = await startApiServer();
    try {
      assert.equal(server.simulation, undefined);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(await names(server, '/api/v1/namespaces/default/serviceaccounts'), []);
      assert.deepEqual(await names(server, '/api/v1/namespaces/default/configmaps'), []);
    } finally {
      await server.stop();
    }
  });
});
