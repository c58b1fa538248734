import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { queryBool } from './query-bool.js';
import { RawWatch, call, waitFor } from '../testing/test-client.js';

describe('boolean query parameters as kube-apiserver converts them', () => {
  test('only 0 and false (any case) are false; anything else, the empty value included, is true', () => {
    const read = (query: string): boolean | undefined => queryBool(new URLSearchParams(query), 'watch');
    assert.equal(read(''), undefined);
    for (const query of ['watch=0', 'watch=false', 'watch=False', 'watch=FALSE', 'watch=fAlSe']) assert.equal(read(query), false, query);
    for (const query of ['watch=', 'watch', 'watch=1', 'watch=true', 'watch=True', 'watch=yes', 'watch=f', 'watch=%20false']) assert.equal(read(query), true, query);
  });

  describe('over HTTP', () => {
    let server: ApiServer;
    const cms = '/api/v1/namespaces/default/configmaps';
    before(async () => {
      server = await startApiServer();
    });
    after(() => server.stop());

    test('watch=True (as the Python client sends it) is a watch, and allowWatchBookmarks=True gives bookmarks', async () => {
      await call(server.url, 'POST', cms, { metadata: { name: 'seen' } });
      const watch = new RawWatch(`${server.url}${cms}?watch=True&allowWatchBookmarks=True&timeoutSeconds=1`);
      await waitFor(() => watch.ended, { message: 'the watch ends at its timeout' });
      assert.equal(watch.status, 200);
      assert.deepEqual(
        watch.events.map((e) => e.type),
        ['ADDED', 'BOOKMARK'],
      );
    });

    test('watch= with an empty value is a watch, as on kube-apiserver (the value is not parsed)', async () => {
      for (const value of ['', 'yes']) {
        const watch = new RawWatch(`${server.url}${cms}?watch=${value}&timeoutSeconds=1`);
        await waitFor(() => watch.ended, { message: `the watch=${value} stream ends at its timeout` });
        assert.equal(watch.status, 200);
        assert.equal(watch.events[0]?.type, 'ADDED', `watch=${value} streams events`);
      }
    });

    test('orphanDependents=True orphans the dependents instead of deleting them', async () => {
      const owner = await call(server.url, 'POST', cms, { metadata: { name: 'owner' } });
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid };
      await call(server.url, 'POST', cms, { metadata: { name: 'dependent', ownerReferences: [ref] } });
      const deleted = await call(server.url, 'DELETE', `${cms}/owner?orphanDependents=True`);
      assert.equal(deleted.status, 200, deleted.text);
      await waitFor(async () => (await call(server.url, 'GET', `${cms}/owner`)).status === 404, { message: 'the owner goes once its dependents are orphaned' });
      const dependent = await call(server.url, 'GET', `${cms}/dependent`);
      assert.equal(dependent.status, 200, 'the dependent was orphaned, not deleted');
      assert.equal(dependent.body.metadata.ownerReferences, undefined);
    });
  });
});
