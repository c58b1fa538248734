import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { RawWatch, call } from '../testing/test-client.js';

/** What kubectl's human-readable `get` sends. */
const kubectlAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const cms = '/api/v1/namespaces/table-test/configmaps';
const gadgets = '/apis/example.com/v1/namespaces/table-test/gadgets';

/** A CRD whose v1 has printer columns of every type and v2 none. */
const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Title', type: 'string', jsonPath: '.spec.title' },
          { name: 'Size', type: 'integer', jsonPath: '.spec.size', description: 'How big it is' },
          { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio', priority: 1 },
          { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
          { name: 'Since', type: 'date', jsonPath: '.metadata.creationTimestamp', format: 'date-time' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { title: { type: 'string' }, size: { type: 'integer' }, ratio: { type: 'number' }, enabled: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } },
              },
              status: { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } } } },
            },
          },
        },
      },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
};

type Row = { cells: unknown[]; object: Record<string, any> | null }; // eslint-disable-line @typescript-eslint/no-explicit-any
type Column = { name: string; type: string; format: string; description: string; priority: number };

describe('Table output', () => {
  let server: ApiServer;
  const watches: RawWatch[] = [];
  const req = (method: string, path: string, body?: unknown, options?: { contentType?: string; headers?: Record<string, string> }) => call(server.url, method, path, body, options);
  const mergePatch = { contentType: 'application/merge-patch+json' };
  const getTable = (path: string, accept = kubectlAccept) => req('GET', path, undefined, { headers: { accept } });
  const watch = (path: string, accept = kubectlAccept): Promise<RawWatch> => {
    const w = new RawWatch(`${server.url}${path}`, { headers: { accept } });
    watches.push(w);
    return w.ready();
  };
  const names = (columns: Column[]): string[] => columns.map((c) => c.name);

  before(async () => {
    server = await startApiServer();
    assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'table-test' } })).status, 201);
    assert.equal((await req('POST', cms, { metadata: { name: 'a' }, data: { x: '1', y: '2' }, binaryData: { z: 'AAAA' } })).status, 201);
    assert.equal((await req('POST', cms, { metadata: { name: 'b', labels: { pick: 'yes' } } })).status, 201);
    assert.equal((await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gadgetCrd)).status, 201);
  });
  after(async () => {
    for (const w of watches) w.close();
    await server.stop();
  });

  describe('list', () => {
    test('a list is a Table with column definitions, one row per object and the list resourceVersion', async () => {
      const res = await getTable(cms);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['content-type'], 'application/json');
      const table = res.body;
      assert.deepEqual(Object.keys(table), ['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
      assert.equal(table.kind, 'Table');
      assert.equal(table.apiVersion, 'meta.k8s.io/v1');
      assert.deepEqual(table.metadata, { resourceVersion: server.resourceVersion() });
      const columns = table.columnDefinitions as Column[];
      assert.deepEqual(names(columns), ['Name', 'Data', 'Age']);
      assert.deepEqual(Object.keys(columns[0]!), ['name', 'type', 'format', 'description', 'priority']);
      assert.equal(columns[0]!.format, 'name');
      assert.match(columns[2]!.description, /^CreationTimestamp is a timestamp/);
      const rows = table.rows as Row[];
      assert.deepEqual(rows.map((r) => r.cells.slice(0, 2)), [['a', 3], ['b', 0]]);
      assert.match(String(rows[0]!.cells[2]), /^\d+s$/, 'AGE is a human duration');
    });

    test('rows carry PartialObjectMetadata by default, the object with includeObject=Object and null with None', async () => {
      const byDefault = (await getTable(cms)).body.rows[0] as Row;
      assert.equal(byDefault.object?.['kind'], 'PartialObjectMetadata');
      assert.equal(byDefault.object?.['apiVersion'], 'meta.k8s.io/v1');
      assert.equal(byDefault.object?.['metadata'].name, 'a');
      assert.match(byDefault.object?.['metadata'].uid, /^[0-9a-f-]{36}$/);
      assert.equal(byDefault.object?.['data'], undefined);
      const withObject = (await getTable(`${cms}?includeObject=Object`)).body.rows[0] as Row;
      assert.equal(withObject.object?.['kind'], 'ConfigMap');
      assert.equal(withObject.object?.['apiVersion'], 'v1');
      assert.deepEqual(withObject.object?.['data'], { x: '1', y: '2' });
      const none = (await getTable(`${cms}?includeObject=None`)).body.rows[0] as Row;
      assert.deepEqual(Object.keys(none), ['cells', 'object']);
      assert.equal(none.object, null);
    });

    test('an unknown includeObject is 400, as on a real server; without a Table it is ignored', async () => {
      const bad = await getTable(`${cms}?includeObject=Everything`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.message, `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`);
      assert.equal((await req('GET', `${cms}?includeObject=Everything`)).body.kind, 'ConfigMapList');
    });

    test('pagination and selectors apply, and the Table carries continue and remainingItemCount', async () => {
      const first = (await getTable(`${cms}?limit=1`)).body;
      assert.equal(first.rows.length, 1);
      assert.equal(first.metadata.remainingItemCount, 1);
      assert.equal(typeof first.metadata.continue, 'string');
      const second = (await getTable(`${cms}?limit=1&continue=${encodeURIComponent(first.metadata.continue)}`)).body;
      assert.deepEqual(second.rows.map((r: Row) => r.cells[0]), ['b']);
      const selected = (await getTable(`${cms}?labelSelector=pick%3Dyes`)).body;
      assert.deepEqual(selected.rows.map((r: Row) => r.cells[0]), ['b']);
      const empty = (await getTable(`${cms}?labelSelector=pick%3Dno`)).body;
      assert.deepEqual(empty.rows, []);
      assert.equal(empty.columnDefinitions.length, 3);
    });

    test('the Accept header decides: its first usable entry wins, v1beta1 Tables too, anything unknown falls back to JSON', async () => {
      const cases: [string | undefined, string][] = [
        [undefined, 'ConfigMapList'],
        ['application/json', 'ConfigMapList'],
        ['*/*', 'ConfigMapList'],
        ['application/json, application/json;as=Table;v=v1;g=meta.k8s.io', 'ConfigMapList'],
        ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json', 'ConfigMapList'],
        ['application/json;as=Table;v=v2;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io', 'Table'],
        ['application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', 'PartialObjectMetadataList'],
        ['application/json;as=PartialObjectMetadataList;v=v2;g=meta.k8s.io', 'ConfigMapList'],
      ];
      for (const [accept, kind] of cases) {
        const res = await req('GET', cms, undefined, accept === undefined ? undefined : { headers: { accept } });
        assert.equal(res.body.kind, kind, String(accept));
      }
      const beta = (await getTable(cms, 'application/json;as=Table;v=v1beta1;g=meta.k8s.io')).body;
      assert.equal(beta.apiVersion, 'meta.k8s.io/v1beta1');
      assert.equal(beta.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');
    });
  });

  describe('get', () => {
    test('a get is a Table of one row carrying the object resourceVersion', async () => {
      const cm = (await req('GET', `${cms}/a`)).body;
      const table = (await getTable(`${cms}/a`)).body;
      assert.equal(table.kind, 'Table');
      assert.deepEqual(table.metadata, { resourceVersion: cm.metadata.resourceVersion });
      assert.deepEqual(names(table.columnDefinitions), ['Name', 'Data', 'Age']);
      assert.deepEqual(table.rows.map((r: Row) => r.cells.slice(0, 2)), [['a', 3]]);
      assert.equal((await getTable(`${cms}/missing`)).status, 404);
    });
  });

  describe('custom resources', () => {
    test('print their additionalPrinterColumns with each JSON type converted as kube-apiserver does', async () => {
      const created = await req('POST', gadgets, {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g1' },
        spec: { title: 'First', size: 3, ratio: 0.5, enabled: true, tags: ['a', 'b'] },
      });
      assert.equal(created.status, 201, created.text);
      const status = { status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] } };
      assert.equal((await req('PATCH', `${gadgets}/g1/status`, status, mergePatch)).status, 200);
      await req('POST', gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g2' }, spec: {} });

      const table = (await getTable(gadgets)).body;
      const columns = table.columnDefinitions as Column[];
      assert.deepEqual(names(columns), ['Name', 'Title', 'Size', 'Ratio', 'Enabled', 'Ready', 'Tags', 'Since']);
      assert.deepEqual(columns.find((c) => c.name === 'Size'), { name: 'Size', type: 'integer', format: '', description: 'How big it is', priority: 0 });
      assert.deepEqual(columns.find((c) => c.name === 'Ratio'), {
        name: 'Ratio',
        type: 'number',
        format: '',
        description: 'Custom resource definition column (in JSONPath format): .spec.ratio',
        priority: 1,
      });
      assert.equal(columns.find((c) => c.name === 'Since')?.format, 'date-time');
      const [g1, g2] = table.rows as Row[];
      assert.deepEqual(g1!.cells.slice(0, 7), ['g1', 'First', 3, 0.5, true, 'True', '["a","b"]']);
      assert.match(String(g1!.cells[7]), /^\d+s$/);
      assert.deepEqual(g2!.cells.slice(0, 7), ['g2', null, null, null, null, null, null], 'a missing field is an empty cell');
    });

    test('a version without printer columns prints NAME and AGE', async () => {
      const table = (await getTable('/apis/example.com/v2/namespaces/table-test/gadgets')).body;
      assert.deepEqual(
        table.columnDefinitions.map((c: Column) => [c.name, c.type]),
        [
          ['Name', 'string'],
          ['Age', 'date'],
        ],
      );
      assert.equal(table.rows[0].cells[0], 'g1');
      assert.match(table.rows[0].cells[1], /^\d+s$/);
    });

    test('CustomResourceDefinitions print NAME and CREATED AT', async () => {
      const table = (await getTable('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).body;
      assert.deepEqual(names(table.columnDefinitions), ['Name', 'Created At']);
      const crd = (await req('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com')).body;
      assert.deepEqual(table.rows[0].cells, ['gadgets.example.com', crd.metadata.creationTimestamp]);
    });
  });

  describe('watch', () => {
    test('every event object is a one-row Table; only the first event carries the column definitions', async () => {
      const w = await watch(`${cms}?watch=true&resourceVersion=0`);
      assert.equal(w.status, 200);
      await w.waitForEvents(2);
      const [first, second] = w.events;
      assert.equal(first!.type, 'ADDED');
      assert.equal(first!.object.kind, 'Table');
      assert.deepEqual(names(first!.object.columnDefinitions), ['Name', 'Data', 'Age']);
      assert.equal(second!.object.columnDefinitions, null);
      assert.deepEqual(w.events.map((e): unknown[] => [e.type, e.object.rows.length, e.object.rows[0].cells[0]]), [
        ['ADDED', 1, 'a'],
        ['ADDED', 1, 'b'],
      ]);

      const created = await req('POST', cms, { metadata: { name: 'c' }, data: { k: 'v' } });
      const patched = await req('PATCH', `${cms}/c`, { data: { k: 'v', l: 'w' } }, mergePatch);
      await req('DELETE', `${cms}/c`);
      await w.waitForEvents(5);
      const live = w.events.slice(2);
      assert.deepEqual(live.map((e): unknown[] => [e.type, e.object.rows[0].cells.slice(0, 2)]), [
        ['ADDED', ['c', 1]],
        ['MODIFIED', ['c', 2]],
        ['DELETED', ['c', 2]],
      ]);
      assert.equal(live[0]!.object.metadata.resourceVersion, created.body.metadata.resourceVersion);
      assert.equal(live[1]!.object.metadata.resourceVersion, patched.body.metadata.resourceVersion);
      assert.ok(live.every((e) => e.object.columnDefinitions === null));
      assert.equal(live[0]!.object.rows[0].object.kind, 'PartialObjectMetadata');
    });

    test('includeObject applies to watch rows, and plain watchers of the same changes still get objects', async () => {
      const rv = server.resourceVersion();
      const withObject = await watch(`${cms}?watch=true&resourceVersion=${rv}&includeObject=Object`);
      const none = await watch(`${cms}?watch=true&resourceVersion=${rv}&includeObject=None`);
      const plain = await watch(`${cms}?watch=true&resourceVersion=${rv}`, 'application/json');
      await req('POST', cms, { metadata: { name: 'd' }, data: { k: 'v' } });
      await Promise.all([withObject, none, plain].map((w) => w.waitForEvents(1)));
      const full = withObject.events[0]!.object;
      assert.deepEqual(names(full.columnDefinitions), ['Name', 'Data', 'Age'], 'the first event of each watch has headers');
      assert.equal(full.rows[0].object.kind, 'ConfigMap');
      assert.deepEqual(full.rows[0].object.data, { k: 'v' });
      assert.equal(none.events[0]!.object.rows[0].object, null);
      assert.equal(plain.events[0]!.object.kind, 'ConfigMap');
    });

    test('an object leaving a selector is a DELETED Table row with its previous content', async () => {
      const rv = server.resourceVersion();
      const w = await watch(`${cms}?watch=true&resourceVersion=${rv}&labelSelector=pick%3Dyes`);
      await req('PATCH', `${cms}/b`, { metadata: { labels: { pick: 'no' } } }, mergePatch);
      const [event] = await w.waitForEvents(1);
      assert.equal(event!.type, 'DELETED');
      assert.deepEqual(event!.object.rows[0].cells.slice(0, 2), ['b', 0]);
      assert.equal(event!.object.rows[0].object.metadata.labels.pick, 'yes');
      assert.equal(event!.object.metadata.resourceVersion, server.resourceVersion());
    });

    test('custom resource watches print their columns; bookmarks become Tables too; a bad includeObject is 400 before the stream', async () => {
      const rv = server.resourceVersion();
      const w = await watch(`${gadgets}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1`);
      await req('PATCH', `${gadgets}/g2`, { spec: { title: 'Second' } }, mergePatch);
      await w.waitForEvents(2, 5000);
      const [modified, bookmark] = w.events;
      assert.equal(modified!.type, 'MODIFIED');
      assert.deepEqual(modified!.object.rows[0].cells.slice(0, 2), ['g2', 'Second']);
      assert.equal(bookmark!.type, 'BOOKMARK');
      assert.equal(bookmark!.object.kind, 'Table');
      assert.equal(bookmark!.object.metadata.resourceVersion, server.resourceVersion());
      const bad = await watch(`${gadgets}?watch=true&includeObject=All`);
      assert.equal(bad.status, 400);
    });
  });
});
