import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call } from '../testing/test-client.js';
import { sliceBytes } from './response-pump.js';

const cms = '/api/v1/namespaces/default/configmaps';

describe('lists written in slices', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
  });
  after(async () => {
    await server.stop();
  });

  test('a list larger than one slice arrives whole and exact, characters outside the BMP included (no surrogate pair is cut)', async () => {
    // One character before the emoji puts a high surrogate right at every slice boundary.
    const value = `a${'😀'.repeat(sliceBytes)}é`;
    for (const name of ['one', 'two', 'three']) {
      const created = await call(server.url, 'POST', cms, { metadata: { name }, data: { value } });
      assert.equal(created.status, 201, created.text);
    }
    for (const accept of ['application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
      const list = await call(server.url, 'GET', `${cms}?includeObject=Object`, undefined, { headers: { accept } });
      assert.equal(list.status, 200, accept);
      assert.equal(list.headers['transfer-encoding'], 'chunked', accept);
      assert.equal(list.text.includes('\uFFFD'), false, `${accept}: no replacement character`);
    }
    const list = await call(server.url, 'GET', cms);
    assert.deepEqual(
      (list.body as { items: { metadata: { name: string }; data: { value: string } }[] }).items.map((item) => [item.metadata.name, item.data.value === value]),
      [
        ['one', true],
        ['three', true],
        ['two', true],
      ],
    );
  });

  test('a small list is sent whole with its Content-Length', async () => {
    const list = await call(server.url, 'GET', '/api/v1/namespaces');
    assert.equal(list.status, 200);
    assert.equal(list.headers['content-length'], String(Buffer.byteLength(list.text)));
  });
});
