import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call } from '../testing/test-client.js';

describe('paginated lists are a snapshot at the first page’s resourceVersion', () => {
  let server: ApiServer;
  const ns = '/api/v1/namespaces/paged/configmaps';
  before(async () => {
    server = await startApiServer();
    await call(server.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'paged' } });
    for (const name of ['a', 'b', 'c']) await call(server.url, 'POST', ns, { metadata: { name }, data: { v: '1' } });
  });
  after(() => server.stop());

  test('later pages show objects as they were: changed, deleted and created ones included or left out accordingly', async () => {
    const first = await call(server.url, 'GET', `${ns}?limit=1`);
    const rv = first.body.metadata.resourceVersion;
    assert.deepEqual(first.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['a']);
    const b = await call(server.url, 'GET', `${ns}/b`);
    await call(server.url, 'PATCH', `${ns}/b`, { data: { v: '2' } }, { contentType: 'application/merge-patch+json' });
    await call(server.url, 'DELETE', `${ns}/c`);
    await call(server.url, 'POST', ns, { metadata: { name: 'd' }, data: { v: '1' } });

    const second = await call(server.url, 'GET', `${ns}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.metadata.resourceVersion, rv);
    assert.deepEqual(second.body.items, [b.body], 'b as it was at the first page');
    const third = await call(server.url, 'GET', `${ns}?limit=5&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    assert.deepEqual(third.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c'], 'c (deleted since) is listed, d (created since) is not');
    assert.equal(third.body.metadata.continue, undefined);

    const exact = await call(server.url, 'GET', `${ns}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 200, exact.text);
    assert.deepEqual(exact.body.items.map((i: { data: { v: string }; metadata: { name: string } }) => `${i.metadata.name}=${i.data.v}`), ['a=1', 'b=1', 'c=1']);
  });

  test('a continue token older than the kept history is 410 Expired with the real message', async () => {
    const first = await call(server.url, 'GET', `${ns}?limit=1`);
    await call(server.url, 'PATCH', `${ns}/a`, { data: { v: '3' } }, { contentType: 'application/merge-patch+json' });
    server.faults.compact();
    const next = await call(server.url, 'GET', `${ns}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.equal(next.status, 410);
    assert.equal(next.body.reason, 'Expired');
    assert.match(next.body.message, /^The provided continue parameter is too old to display a consistent list result\./);
  });
});
