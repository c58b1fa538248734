import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { parseGoBool } from './query-bool.js';
import { RawWatch, call, waitFor } from '../testing/test-client.js';

describe("boolean query parameters as Go's strconv.ParseBool", () => {
  test('every spelling Go accepts parses, anything else is a 400', () => {
    for (const text of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(text), true, text);
    for (const text of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(text), false, text);
    for (const text of ['yes', 'tRUE', 'on', ' true']) assert.throws(() => parseGoBool(text), { name: 'StatusError', message: `strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax` });
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

    test('an unparseable boolean is a 400 BadRequest', async () => {
      const res = await call(server.url, 'GET', `${cms}?watch=yes`);
      assert.equal(res.status, 400);
      assert.equal(res.body.message, 'strconv.ParseBool: parsing "yes": invalid syntax');
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
