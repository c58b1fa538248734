import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { RawWatch, call, waitFor } from '../testing/test-client.js';

const cms = '/api/v1/namespaces/default/configmaps';

describe('fault injection', () => {
  let server: ApiServer;
  const watches: RawWatch[] = [];
  const req = (method: string, path: string, body?: unknown) => call(server.url, method, path, body);

  before(async () => {
    server = await startApiServer();
  });
  after(async () => {
    for (const w of watches) w.close();
    await server.stop();
  });

  test('dropWatches cuts every open watch and reports how many', async () => {
    const a = new RawWatch(`${server.url}${cms}?watch=true&resourceVersion=0`);
    const b = new RawWatch(`${server.url}/api/v1/namespaces?watch=true&resourceVersion=0`);
    watches.push(a, b);
    await a.ready();
    await b.ready();
    await b.waitForEvents(2);
    assert.equal(server.faults.dropWatches(), 2);
    await waitFor(() => (a.error || a.ended) && (b.error || b.ended));
    assert.equal(server.faults.dropWatches(), 0);
  });

  test('dropWatches({ midLine: true }) writes half an event line before cutting', async () => {
    const w = new RawWatch(`${server.url}${cms}?watch=true&resourceVersion=${server.resourceVersion()}`);
    watches.push(w);
    await w.ready();
    assert.equal(server.faults.dropWatches({ midLine: true }), 1);
    await waitFor(() => w.error || w.ended);
    assert.ok(w.partial.length > 0, 'a torn line was received');
    assert.throws(() => JSON.parse(w.partial) as unknown);
  });

  test('dropWatches({ graceful: true }) ends every watch cleanly, as a server-side timeout does', async () => {
    const w = new RawWatch(`${server.url}${cms}?watch=true&resourceVersion=${server.resourceVersion()}`);
    watches.push(w);
    await w.ready();
    assert.equal(server.faults.dropWatches({ graceful: true }), 1);
    await waitFor(() => w.ended);
    assert.equal(w.error, undefined);
    assert.equal(w.partial, '');
  });

  test('failNext fails the next matching requests with the status, Retry-After and a Status body', async () => {
    server.faults.failNext({ verb: 'list', resource: 'configmaps', status: 429, count: 2, retryAfterSeconds: 3 });
    const other = await req('GET', '/api/v1/namespaces/default/secrets');
    assert.equal(other.status, 200, 'other resources are not affected');
    for (let i = 0; i < 2; i++) {
      const res = await req('GET', cms);
      assert.equal(res.status, 429);
      assert.equal(res.headers['retry-after'], '3');
      assert.equal(res.body.reason, 'TooManyRequests');
      assert.equal(res.body.details.retryAfterSeconds, 3);
    }
    assert.equal((await req('GET', cms)).status, 200, 'count is honoured');
    server.faults.failNext({ verb: 'create', status: 503, message: 'storage is sleeping' });
    const created = await req('POST', cms, { metadata: { name: 'x' } });
    assert.equal(created.status, 503);
    assert.equal(created.body.message, 'storage is sleeping');
    assert.equal((await req('GET', `${cms}/x`)).status, 404, 'the failed create did nothing');
  });

  test('failNext on watch answers the error instead of a stream', async () => {
    server.faults.failNext({ verb: 'watch', status: 500 });
    const res = await req('GET', `${cms}?watch=true`);
    assert.equal(res.status, 500);
    assert.equal(res.body.reason, 'InternalError');
  });

  test('injectWatchLines writes lines as they are into the watches of a resource, and the streams go on', async () => {
    const rv = server.resourceVersion();
    const a = new RawWatch(`${server.url}${cms}?watch=true&resourceVersion=${rv}`);
    const b = new RawWatch(`${server.url}/api/v1/namespaces/default/secrets?watch=true&resourceVersion=${rv}`);
    watches.push(a, b);
    await a.ready();
    await b.ready();
    // Valid JSON that is not a valid event: the test client parses every line.
    const garbage = ['{"type":"ADDED","object":{"kind":"ConfigMap"}}', '{"type":"SURPRISE"}', '"just a string"'];
    assert.equal(server.faults.injectWatchLines(garbage, { resource: 'configmaps' }), 1);
    await a.waitForEvents(3);
    assert.deepEqual(a.events.slice(0, 3), garbage.map((l) => JSON.parse(l) as unknown));
    const created = await req('POST', cms, { metadata: { name: 'after-garbage' } });
    assert.equal(created.status, 201);
    const events = await a.waitForEvents(4);
    assert.equal(events[3]?.type, 'ADDED', 'the stream goes on after the garbage');
    assert.equal(b.events.length, 0, 'watches of other resources got nothing');
    assert.equal(server.faults.injectWatchLines(['{}']), 2, 'without a resource: every watch');
    assert.throws(() => server.faults.injectWatchLines(['a\nb']), RangeError);
  });

  test('latency delays every response until reset', async () => {
    server.faults.latency(150);
    let started = Date.now();
    await req('GET', '/version');
    assert.ok(Date.now() - started >= 140);
    server.faults.failNext({ status: 500 });
    server.faults.reset();
    started = Date.now();
    const res = await req('GET', cms);
    assert.ok(Date.now() - started < 140);
    assert.equal(res.status, 200, 'reset cleared the pending failure');
  });
});
