import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { RawWatch, call } from '../testing/test-client.js';

const listAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const itemAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
/** What client-go's metadata client sends for a list: protobuf first (not produced here), then JSON. */
const clientGoListAccept = `application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,${listAccept}`;
const cms = '/api/v1/namespaces/meta-test/configmaps';

describe('PartialObjectMetadata reads (metadata-only list, get and watch)', () => {
  let server: ApiServer;
  const watches: RawWatch[] = [];
  const get = (path: string, accept: string) => call(server.url, 'GET', path, undefined, { headers: { accept } });
  const watch = (path: string, accept = itemAccept): Promise<RawWatch> => {
    const w = new RawWatch(`${server.url}${path}`, { headers: { accept } });
    watches.push(w);
    return w.ready();
  };

  before(async () => {
    server = await startApiServer();
    assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'meta-test' } })).status, 201);
    assert.equal((await call(server.url, 'POST', cms, { metadata: { name: 'a', labels: { pick: 'yes' } }, data: { secret: 'value' } })).status, 201);
    assert.equal((await call(server.url, 'POST', cms, { metadata: { name: 'b' }, data: { secret: 'other' } })).status, 201);
  });
  after(async () => {
    for (const w of watches) w.close();
    await server.stop();
  });

  test('a list answers a PartialObjectMetadataList: list metadata, and items of kind PartialObjectMetadata with the full metadata and no body', async () => {
    const full = await get(cms, 'application/json');
    const res = await get(cms, clientGoListAccept);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['kind', 'apiVersion', 'metadata', 'items']);
    assert.equal(res.body.kind, 'PartialObjectMetadataList');
    assert.equal(res.body.apiVersion, 'meta.k8s.io/v1');
    assert.equal(res.body.metadata.resourceVersion, full.body.metadata.resourceVersion);
    assert.deepEqual(
      res.body.items,
      full.body.items.map((o: { metadata: unknown }) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata })),
    );
  });

  test('pages carry continue and remainingItemCount, and selectors apply', async () => {
    const page = await get(`${cms}?limit=1`, listAccept);
    assert.equal(page.body.items.length, 1);
    assert.equal(typeof page.body.metadata.continue, 'string');
    assert.equal(page.body.metadata.remainingItemCount, 1);
    const next = await get(`${cms}?limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`, listAccept);
    assert.deepEqual([...page.body.items, ...next.body.items].map((i: { metadata: { name: string } }) => i.metadata.name), ['a', 'b']);
    const picked = await get(`${cms}?labelSelector=pick%3Dyes`, listAccept);
    assert.deepEqual(picked.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['a']);
  });

  test('a get answers one PartialObjectMetadata, v1 or v1beta1', async () => {
    const full = await get(`${cms}/a`, 'application/json');
    const res = await get(`${cms}/a`, itemAccept);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: full.body.metadata });
    const beta = await get(`${cms}/a`, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1');
    assert.equal(beta.body.apiVersion, 'meta.k8s.io/v1beta1');
  });

  test('the form that does not fit the read is 406 NotAcceptable, with kube-apiserver’s messages', async () => {
    for (const [path, accept, message] of [
      [`${cms}/a`, listAccept, 'you requested PartialObjectMetadataList, but the requested object is not a list'],
      [cms, itemAccept, 'you requested PartialObjectMetadata, but the requested object is a list'],
      [`${cms}?watch=true`, listAccept, 'you requested PartialObjectMetadataList, but the requested object is not a list'],
    ] as const) {
      const res = await get(path, accept);
      assert.equal(res.status, 406, `${path} ${accept}`);
      assert.equal(res.body.kind, 'Status');
      assert.equal(res.body.reason, 'NotAcceptable');
      assert.equal(res.body.message, message);
    }
  });

  test('Accept entries are taken in order: plain JSON or a Table before the metadata form wins', async () => {
    const json = await get(cms, `application/json,${listAccept}`);
    assert.equal(json.body.kind, 'ConfigMapList');
    const table = await get(cms, `application/json;as=Table;v=v1;g=meta.k8s.io,${listAccept}`);
    assert.equal(table.body.kind, 'Table');
  });

  test('a watch sends PartialObjectMetadata events, the initial-events-end bookmark too, and a filtered watch’s leaving object', async () => {
    const all = await watch(`${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const picked = await watch(`${cms}?watch=true&labelSelector=pick%3Dyes`);
    const initial = await all.waitForEvents(3);
    assert.deepEqual(
      initial.map((e): unknown[] => [e.type, e.object.kind, e.object.apiVersion, e.object.metadata.name ?? null, 'data' in e.object]),
      [
        ['ADDED', 'PartialObjectMetadata', 'meta.k8s.io/v1', 'a', false],
        ['ADDED', 'PartialObjectMetadata', 'meta.k8s.io/v1', 'b', false],
        ['BOOKMARK', 'PartialObjectMetadata', 'meta.k8s.io/v1', null, false],
      ],
    );
    assert.equal(initial[2]!.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    await picked.waitForEvents(1);

    const patched = await call(server.url, 'PATCH', `${cms}/a`, { metadata: { labels: { pick: 'no' } }, data: { secret: 'changed' } }, { contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200);
    const [, , , modified] = await all.waitForEvents(4);
    assert.deepEqual(modified, { type: 'MODIFIED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: patched.body.metadata } });
    const leaving = (await picked.waitForEvents(2))[1]!;
    assert.equal(leaving.type, 'DELETED');
    assert.deepEqual(Object.keys(leaving.object), ['kind', 'apiVersion', 'metadata']);
    assert.equal(leaving.object.metadata.resourceVersion, patched.body.metadata.resourceVersion);
  });
});
