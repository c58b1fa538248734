import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter } from 'prom-client';
import { OperatorServer } from './operator-server.js';

async function get(url: string): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

describe('OperatorServer', () => {
  const servers: OperatorServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  async function started(options: ConstructorParameters<typeof OperatorServer>[0] = {}): Promise<OperatorServer> {
    const server = new OperatorServer({ host: '127.0.0.1', port: 0, ...options });
    servers.push(server);
    await server.start();
    return server;
  }

  test('serves the registered collectors and process metrics at /metrics', async () => {
    const counter = new Counter({ name: 'demo_things_total', help: 'Things.', registers: [] });
    const server = await started({ collectors: [counter] });
    counter.inc(3);
    const res = await get(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.type ?? '', /text\/plain/);
    assert.match(res.body, /^demo_things_total 3$/m);
    assert.match(res.body, /^process_cpu_user_seconds_total /m);
  });

  test('registering the same collector twice is harmless', async () => {
    const counter = new Counter({ name: 'demo_dupes_total', help: 'Dupes.', registers: [] });
    const server = await started({ collectors: [counter], collectDefaultMetrics: false });
    server.registerCollectors([counter]);
    const res = await get(`${server.url}/metrics`);
    assert.equal(res.body.match(/^# HELP demo_dupes_total/gm)?.length, 1);
  });

  test('healthz and readyz answer ok while every check passes', async () => {
    const server = await started({ collectDefaultMetrics: false });
    server.addHealthCheck('controllers', () => true);
    server.addReadyCheck('informers-synced', async () => undefined);
    assert.deepEqual(await get(`${server.url}/healthz`).then((r) => [r.status, r.body]), [200, 'ok']);
    assert.deepEqual(await get(`${server.url}/livez`).then((r) => [r.status, r.body]), [200, 'ok']);
    assert.deepEqual(await get(`${server.url}/readyz`).then((r) => [r.status, r.body]), [200, 'ok']);
    const verbose = await get(`${server.url}/readyz?verbose`);
    assert.equal(verbose.body, '[+]ping ok\n[+]informers-synced ok\nreadyz check passed\n');
  });

  test('a failing check makes the endpoint answer 500 and lists every check like Kubernetes', async () => {
    const server = await started({ collectDefaultMetrics: false });
    let synced = false;
    server.addReadyCheck('informers-synced', () => {
      if (!synced) throw new Error('1 of 2 informers not synced');
    });
    server.addReadyCheck('leader-election', () => false);
    const res = await get(`${server.url}/readyz`);
    assert.equal(res.status, 500);
    assert.equal(res.body, '[+]ping ok\n[-]informers-synced failed: 1 of 2 informers not synced\n[-]leader-election failed: check failed\nreadyz check failed\n');
    synced = true;
    const excluded = await get(`${server.url}/readyz?verbose&exclude=leader-election`);
    assert.equal(excluded.status, 200);
    assert.match(excluded.body, /\[\+\]leader-election excluded: ok/);
    assert.equal((await get(`${server.url}/healthz`)).status, 200, 'liveness is not readiness');
  });

  test('one check can be asked for by name', async () => {
    const server = await started({ collectDefaultMetrics: false });
    server.addHealthCheck('broken', () => {
      throw new Error('boom');
    });
    assert.deepEqual(await get(`${server.url}/healthz/ping`).then((r) => [r.status, r.body]), [200, 'ok']);
    assert.deepEqual(await get(`${server.url}/healthz/broken`).then((r) => [r.status, r.body]), [500, 'internal server error: boom\n']);
    assert.equal((await get(`${server.url}/healthz/missing`)).status, 404);
  });

  test('a check that never answers fails after the check timeout', async () => {
    const server = await started({ collectDefaultMetrics: false, checkTimeoutMs: 50 });
    server.addHealthCheck('stuck', () => new Promise<void>(() => undefined));
    const res = await get(`${server.url}/healthz`);
    assert.equal(res.status, 500);
    assert.match(res.body, /\[-\]stuck failed: timed out after 50 ms/);
  });

  test('unknown paths are 404 and writes are 405', async () => {
    const server = await started({ collectDefaultMetrics: false });
    assert.equal((await get(`${server.url}/nope`)).status, 404);
    assert.equal((await fetch(`${server.url}/metrics`, { method: 'POST' })).status, 405);
  });

  test('check names are validated and unique', () => {
    const server = new OperatorServer({ collectDefaultMetrics: false });
    assert.throws(() => server.addHealthCheck('Bad Name', () => true), /invalid check name/);
    assert.throws(() => server.addHealthCheck('ping', () => true), /already added/);
  });

  test('stop closes the port and can be called twice', async () => {
    const server = await started({ collectDefaultMetrics: false });
    const url = server.url;
    await server.stop();
    await server.stop();
    await assert.rejects(fetch(`${url}/healthz`));
  });
});
