import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { isNetworkError } from '../errors.js';
import { closeScriptedConnection, connectScriptedServer, sendJson, startScriptedServer } from './scripted-server.test-helper.js';
import type { ScriptedServer } from './scripted-server.test-helper.js';
import { HttpTransport, formatQuery } from './transport.js';

function kubeConfigFor(server: string, user: Record<string, unknown>): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

describe('HttpTransport', () => {
  let server: ScriptedServer;
  let transport: HttpTransport;
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-transport-'));

  before(async () => ({ server, transport } = await connectScriptedServer()));
  after(async () => {
    await closeScriptedConnection({ server, transport });
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.reply((req, res) => sendJson(res, 200, { ok: true }));
  });

  test('returns the status, headers and body of any response', async () => {
    server.reply((req, res) => sendJson(res, 418, { teapot: true }, { 'X-Test': 'yes' }));
    const res = await transport.request({ method: 'POST', path: '/x', body: '{"a":"é"}', contentType: 'application/merge-patch+json' });
    assert.equal(res.status, 418);
    assert.equal(res.headers['x-test'], 'yes');
    assert.deepEqual(JSON.parse(res.body), { teapot: true });
    const seen = server.requests[0]!;
    assert.equal(seen.body, '{"a":"é"}');
    assert.equal(seen.headers['content-type'], 'application/merge-patch+json');
    assert.equal(seen.headers['content-length'], String(Buffer.byteLength('{"a":"é"}')));
  });

  test('reuses one kept-alive connection for consecutive requests', async () => {
    await transport.request({ method: 'GET', path: '/a' });
    await transport.request({ method: 'GET', path: '/b' });
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.remotePort, server.requests[1]!.remotePort);
  });

  test('sends a GET again once when a reused connection turns out to be closed, but never a POST', async () => {
    const own = new HttpTransport({ server: server.url });
    try {
      const served = new Map<number, number>();
      let drops = 0;
      // The second request on a connection is dropped unanswered: what a server closing an idle connection looks like.
      server.reply((req, res) => {
        const count = (served.get(req.remotePort) ?? 0) + 1;
        served.set(req.remotePort, count);
        if (count === 2) {
          drops++;
          res.socket?.destroy();
          return;
        }
        sendJson(res, 200, { ok: true });
      });
      await own.request({ method: 'GET', path: '/first' });
      const second = await own.request({ method: 'GET', path: '/second' });
      assert.equal(second.status, 200);
      assert.equal(drops, 1);
      assert.deepEqual(
        server.requests.map((r) => r.path),
        ['/first', '/second', '/second'],
      );
      await assert.rejects(own.request({ method: 'POST', path: '/create', body: '{}' }), isNetworkError);
      assert.equal(drops, 2);
    } finally {
      own.close();
    }
  });

  test('opens a new connection per request when keepAlive is off', async () => {
    const plain = new HttpTransport({ server: server.url, keepAlive: false });
    try {
      await plain.request({ method: 'GET', path: '/a' });
      await plain.request({ method: 'GET', path: '/b' });
      assert.notEqual(server.requests[0]!.remotePort, server.requests[1]!.remotePort);
    } finally {
      plain.close();
    }
  });

  test('fails with ETIMEDOUT when the server never answers', async () => {
    server.reply(() => undefined);
    const started = Date.now();
    await assert.rejects(transport.request({ method: 'GET', path: '/slow', timeoutMs: 50 }), (err: unknown) => isNetworkError(err) && err.errno === 'ETIMEDOUT');
    assert.ok(Date.now() - started < 5000);
    const quick = new HttpTransport({ server: server.url, defaultTimeoutMs: 40 });
    try {
      await assert.rejects(quick.request({ method: 'GET', path: '/slow' }), (err: unknown) => isNetworkError(err) && err.errno === 'ETIMEDOUT');
    } finally {
      quick.close();
    }
  });

  test('fails with ABORT_ERR when the signal aborts, before or during the request', async () => {
    await assert.rejects(
      transport.request({ method: 'GET', path: '/x', signal: AbortSignal.abort() }),
      (err: unknown) => isNetworkError(err) && err.errno === 'ABORT_ERR',
    );
    assert.equal(server.requests.length, 0);
    server.reply(() => controller.abort());
    const controller = new AbortController();
    await assert.rejects(
      transport.request({ method: 'GET', path: '/x', signal: controller.signal }),
      (err: unknown) => isNetworkError(err) && err.errno === 'ABORT_ERR',
    );
  });

  test('reports a response cut off mid-body as a NetworkError', async () => {
    server.reply((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"partial":', () => res.socket?.destroy());
    });
    await assert.rejects(transport.request({ method: 'POST', path: '/cut', body: '{}' }), (err: unknown) => isNetworkError(err) && err.errno === 'ECONNRESET');
  });

  test('reports a refused connection as a NetworkError with its errno', async () => {
    const closed = await startScriptedServer();
    await closed.close();
    const dead = new HttpTransport({ server: closed.url });
    try {
      await assert.rejects(dead.request({ method: 'GET', path: '/' }), (err: unknown) => isNetworkError(err) && err.errno === 'ECONNREFUSED');
    } finally {
      dead.close();
    }
  });

  test('prefixes every path with the path of the server URL', async () => {
    const prefixed = new HttpTransport({ server: `${server.url}/k8s/clusters/c1/` });
    try {
      await prefixed.request({ method: 'GET', path: '/api/v1/namespaces', query: { limit: 5, watch: false, skip: undefined } });
      assert.equal(server.requests[0]!.path, '/k8s/clusters/c1/api/v1/namespaces');
      assert.equal(server.requests[0]!.query.toString(), 'limit=5&watch=false');
    } finally {
      prefixed.close();
    }
  });

  test('encodes query parameters and leaves out undefined ones', () => {
    assert.equal(formatQuery(undefined), '');
    assert.equal(formatQuery({ a: undefined }), '');
    assert.equal(formatQuery({ labelSelector: 'a in (x,y),b!=c', n: 3, w: true }), '?labelSelector=a%20in%20(x%2Cy)%2Cb!%3Dc&n=3&w=true');
  });

  test('sends the bearer token, impersonation and user agent of a KubeConfig', async () => {
    const kc = kubeConfigFor(server.url, { token: 'secret-token', impersonateUser: 'alice' });
    const fromKc = HttpTransport.fromKubeConfig(kc, { userAgent: 'my-operator/1.0' });
    try {
      await fromKc.request({ method: 'GET', path: '/api' });
      const headers = server.requests[0]!.headers;
      assert.equal(headers.authorization, 'Bearer secret-token');
      assert.equal(headers['impersonate-user'], 'alice');
      assert.equal(headers['user-agent'], 'my-operator/1.0');
    } finally {
      fromKc.close();
    }
  });

  test('sends basic credentials of a KubeConfig user with a password', async () => {
    const fromKc = HttpTransport.fromKubeConfig(kubeConfigFor(server.url, { username: 'bob', password: 'pw' }));
    try {
      await fromKc.request({ method: 'GET', path: '/api' });
      assert.equal(server.requests[0]!.headers.authorization, `Basic ${Buffer.from('bob:pw').toString('base64')}`);
    } finally {
      fromKc.close();
    }
  });

  test('asks an exec plugin again once its token expired, so later requests carry the new token', async () => {
    const counter = join(dir, 'count');
    const plugin = join(dir, 'plugin.cjs');
    writeFileSync(counter, '0');
    // Each run hands out the next token, already expired, so client-node must run the plugin again.
    writeFileSync(
      plugin,
      `const fs = require('fs'); const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
       fs.writeFileSync(${JSON.stringify(counter)}, String(n));
       process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
         status: { token: 'token-' + n, expirationTimestamp: '2000-01-01T00:00:00Z' } }));`,
    );
    const kc = kubeConfigFor(server.url, {
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], interactiveMode: 'Never' },
    });
    const fromKc = HttpTransport.fromKubeConfig(kc);
    try {
      await fromKc.request({ method: 'GET', path: '/a' });
      await fromKc.request({ method: 'GET', path: '/b' });
      assert.deepEqual(
        server.requests.map((r) => r.headers.authorization),
        ['Bearer token-1', 'Bearer token-2'],
      );
    } finally {
      fromKc.close();
    }
  });

  test('rejects a server URL that is neither http nor https', () => {
    assert.throws(() => new HttpTransport({ server: 'ftp://example.com' }), TypeError);
  });
});
