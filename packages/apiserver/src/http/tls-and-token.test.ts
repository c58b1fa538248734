import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { parse } from 'yaml';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call } from '../testing/test-client.js';

/** GET over HTTPS trusting `ca` (undefined: the system's trust store). */
function httpsGet(url: string, ca: string | undefined, token?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...(ca !== undefined && { ca }), headers: { ...headers, ...(token && { authorization: `Bearer ${token}` }) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('TLS and bearer-token authentication', () => {
  describe('with tls and a token', () => {
    let server: ApiServer;
    before(async () => {
      server = await startApiServer({ tls: true, token: 's3cret' });
    });
    after(() => server.stop());

    test('serves HTTPS with a certificate for 127.0.0.1 signed by the CA in the kubeconfig', async () => {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const config = parse(server.kubeconfig) as { clusters: { cluster: Record<string, unknown> }[]; users: { user: { token: string } }[] };
      const cluster = config.clusters[0]!.cluster;
      assert.equal(cluster['insecure-skip-tls-verify'], undefined);
      const ca = Buffer.from(String(cluster['certificate-authority-data']), 'base64').toString('utf8');
      assert.equal(ca, server.caCertificate);
      assert.equal(new X509Certificate(ca).ca, true);
      assert.equal(config.users[0]!.user.token, 's3cret');
      const ok = await httpsGet(`${server.url}/api/v1/namespaces`, ca, 's3cret');
      assert.equal(ok.status, 200, ok.body);
      await assert.rejects(httpsGet(`${server.url}/api/v1/namespaces`, undefined, 's3cret'), /self[- ]signed|unable to (get|verify)/i);
    });

    test('a request without the token, or with another, is 401 Unauthorized; health checks and /version need none', async () => {
      const ca = server.caCertificate;
      const none = await httpsGet(`${server.url}/api/v1/namespaces`, ca);
      assert.equal(none.status, 401);
      assert.deepEqual(JSON.parse(none.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      assert.equal((await httpsGet(`${server.url}/api/v1/namespaces`, ca, 'wrong')).status, 401);
      assert.equal((await httpsGet(`${server.url}/healthz`, ca)).status, 200);
      assert.equal((await httpsGet(`${server.url}/version`, ca)).status, 200);
    });

    test("a page the server itself served (Origin: its https URL) is same-origin; the http origin is not", async () => {
      const ca = server.caCertificate;
      const own = await httpsGet(`${server.url}/api/v1/namespaces`, ca, 's3cret', { origin: server.url });
      assert.equal(own.status, 200, own.body);
      const plain = await httpsGet(`${server.url}/api/v1/namespaces`, ca, 's3cret', { origin: server.url.replace('https:', 'http:') });
      assert.equal(plain.status, 403, plain.body);
    });
  });

  test('by default: plain HTTP, no authentication, no CA', async () => {
    const server = await startApiServer();
    try {
      assert.match(server.url, /^http:\/\//);
      assert.equal(server.caCertificate, undefined);
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces')).status, 200);
      assert.match(server.kubeconfig, /insecure-skip-tls-verify: true/);
    } finally {
      await server.stop();
    }
  });
});
