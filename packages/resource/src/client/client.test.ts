import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineKind } from '../define-kind.js';
import {
  isAlreadyExists,
  isApiError,
  isCodecError,
  isConflict,
  isGone,
  isInvalid,
  isKubeloopError,
  isNotFound,
  isServerError,
  isTooManyRequests,
} from '../errors.js';
import type { KubeObject } from '../object.js';
import { Client } from './client.js';
import { closeScriptedConnection, connectScriptedServer, sendJson, statusBody } from './scripted-server.test-helper.js';
import type { ScriptedServer } from './scripted-server.test-helper.js';
import type { HttpTransport } from './transport.js';

const ConfigMapKind = defineKind({ group: '', version: 'v1', kind: 'ConfigMap' });
const NamespaceKind = defineKind({ group: '', version: 'v1', kind: 'Namespace', scope: 'Cluster' });
const WidgetKind = defineKind<{ size: number }, { ready: boolean }>({ group: 'example.com', version: 'v1', kind: 'Widget' });
const ClusterWidgetKind = defineKind({ group: 'example.com', version: 'v1', kind: 'ClusterWidget', scope: 'Cluster' });

type Widget = KubeObject<{ size: number }, { ready: boolean }>;

function widget(name: string, extra: Partial<Widget> = {}): Widget {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'ns1', resourceVersion: '5' }, spec: { size: 1 }, ...extra };
}

describe('Client over HTTP', () => {
  let server: ScriptedServer;
  let transport: HttpTransport;

  before(async () => ({ server, transport } = await connectScriptedServer()));
  after(() => closeScriptedConnection({ server, transport }));
  beforeEach(() => {
    server.requests.length = 0;
  });

  test('builds the URLs of core, grouped, namespaced and cluster-scoped kinds', async () => {
    server.reply((req, res) => sendJson(res, 200, { metadata: { name: 'x' } }));
    await new Client(ConfigMapKind, transport).get({ namespace: 'default', name: 'cm1' });
    await new Client(NamespaceKind, transport).get({ namespace: '', name: 'kube-system' });
    await new Client(WidgetKind, transport).get({ namespace: 'ns1', name: 'w1' });
    await new Client(ClusterWidgetKind, transport).get({ namespace: 'ignored', name: 'c1' });
    await new Client(WidgetKind, transport).get({ namespace: 'ns 1', name: 'a/b' });
    await new Client(WidgetKind, transport).update(widget('w1'), { subresource: 'scale' });
    server.reply((req, res) => sendJson(res, 200, { items: [] }));
    await new Client(WidgetKind, transport).list('');
    await new Client(WidgetKind, transport).list('ns2');
    await new Client(ConfigMapKind, transport).list('');
    assert.deepEqual(
      server.requests.map((r) => `${r.method} ${r.path}`),
      [
        'GET /api/v1/namespaces/default/configmaps/cm1',
        'GET /api/v1/namespaces/kube-system',
        'GET /apis/example.com/v1/namespaces/ns1/widgets/w1',
        'GET /apis/example.com/v1/clusterwidgets/c1',
        'GET /apis/example.com/v1/namespaces/ns%201/widgets/a%2Fb',
        'PUT /apis/example.com/v1/namespaces/ns1/widgets/w1/scale',
        'GET /apis/example.com/v1/widgets',
        'GET /apis/example.com/v1/namespaces/ns2/widgets',
        'GET /api/v1/configmaps',
      ],
    );
    assert.equal(server.requests[0]!.headers.accept, 'application/json');
    assert.equal(server.requests[0]!.headers['user-agent'], 'kubeloop/0.1');
  });

  test('refuses to address a namespaced object without a namespace or any object without a name', async () => {
    const client = new Client(WidgetKind, transport);
    await assert.rejects(client.get({ namespace: '', name: 'w1' }), (err) => isKubeloopError(err) && err.code === 'InvalidArgument');
    await assert.rejects(client.get({ namespace: 'ns1', name: '' }), (err) => isKubeloopError(err) && err.code === 'InvalidArgument');
    assert.equal(server.requests.length, 0);
  });

  test('sends list options as query parameters and fills in the kind of list items', async () => {
    server.reply((req, res) =>
      sendJson(res, 200, {
        apiVersion: 'example.com/v1',
        kind: 'WidgetList',
        metadata: { resourceVersion: '42', continue: 'next' },
        items: [{ metadata: { name: 'a' } }, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'b' } }],
      }),
    );
    const list = await new Client(WidgetKind, transport).list('ns1', {
      labelSelector: 'app=web,tier!=db',
      fieldSelector: 'metadata.name=a',
      limit: 2,
      continue: 'tok',
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
    });
    const query = Object.fromEntries(server.requests[0]!.query);
    assert.deepEqual(query, {
      labelSelector: 'app=web,tier!=db',
      fieldSelector: 'metadata.name=a',
      limit: '2',
      continue: 'tok',
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
    });
    assert.equal(list.metadata.resourceVersion, '42');
    assert.deepEqual(
      list.items.map((i) => [i.apiVersion, i.kind, i.metadata.name]),
      [
        ['example.com/v1', 'Widget', 'a'],
        ['example.com/v1', 'Widget', 'b'],
      ],
    );
  });

  test('decodes items: null as an empty list', async () => {
    server.reply((req, res) => sendJson(res, 200, { metadata: { resourceVersion: '1' }, items: null }));
    const list = await new Client(WidgetKind, transport).list('');
    assert.deepEqual(list.items, []);
    assert.equal(list.kind, 'WidgetList');
    assert.equal(list.apiVersion, 'example.com/v1');
  });

  test('listAll follows continue tokens and keeps the resourceVersion of the last page', async () => {
    const pages: Record<string, unknown> = {
      '': { metadata: { resourceVersion: '10', continue: 'p2' }, items: [{ metadata: { name: 'a' } }] },
      p2: { metadata: { resourceVersion: '10', continue: 'p3' }, items: [{ metadata: { name: 'b' } }, { metadata: { name: 'c' } }] },
      p3: { metadata: { resourceVersion: '11' }, items: [{ metadata: { name: 'd' } }] },
    };
    server.reply((req, res) => sendJson(res, 200, pages[req.query.get('continue') ?? '']));
    const list = await new Client(WidgetKind, transport).listAll('ns1', { limit: 2, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ['a', 'b', 'c', 'd'],
    );
    assert.deepEqual(list.metadata, { resourceVersion: '11' });
    assert.equal(server.requests.length, 3);
    assert.equal(server.requests[0]!.query.get('resourceVersion'), '0');
    // The API rejects resourceVersion together with continue.
    assert.equal(server.requests[1]!.query.get('resourceVersion'), null);
    assert.equal(server.requests[1]!.query.get('resourceVersionMatch'), null);
    assert.equal(server.requests[2]!.query.get('limit'), '2');
  });

  test('listAll restarts once from the first page when a continue token has expired', async () => {
    let expiredOnce = false;
    server.reply((req, res) => {
      const token = req.query.get('continue');
      if (token === null) return sendJson(res, 200, { metadata: { resourceVersion: '20', continue: 't' }, items: [{ metadata: { name: 'a' } }] });
      if (!expiredOnce) {
        expiredOnce = true;
        return sendJson(res, 410, statusBody(410, 'Expired', 'The provided continue parameter is too old'));
      }
      sendJson(res, 200, { metadata: { resourceVersion: '21' }, items: [{ metadata: { name: 'b' } }] });
    });
    const list = await new Client(WidgetKind, transport).listAll('ns1', { limit: 1 });
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ['a', 'b'],
    );
    assert.equal(server.requests.length, 4);

    server.reply((req, res) =>
      req.query.get('continue') === null
        ? sendJson(res, 200, { metadata: { continue: 't' }, items: [] })
        : sendJson(res, 410, statusBody(410, 'Expired', 'too old')),
    );
    await assert.rejects(new Client(WidgetKind, transport).listAll('ns1', { limit: 1 }), isGone);
  });

  test('listPages yields every page in turn', async () => {
    server.reply((req, res) =>
      req.query.get('continue') === null
        ? sendJson(res, 200, { metadata: { continue: 'x' }, items: [{ metadata: { name: 'a' } }] })
        : sendJson(res, 200, { metadata: {}, items: [{ metadata: { name: 'b' } }] }),
    );
    const seen: string[][] = [];
    for await (const page of new Client(WidgetKind, transport).listPages('ns1', { limit: 1 })) seen.push(page.items.map((i) => i.metadata.name));
    assert.deepEqual(seen, [['a'], ['b']]);
  });

  test('listInto fills the given list in place', async () => {
    server.reply((req, res) => sendJson(res, 200, { kind: 'WidgetList', apiVersion: 'example.com/v1', metadata: { resourceVersion: '9' }, items: [{ metadata: { name: 'a' } }] }));
    const into = { apiVersion: '', kind: '', metadata: {}, items: [widget('old')] };
    const same = into;
    await new Client(WidgetKind, transport).listInto('ns1', { labelSelector: 'a=b' }, into);
    assert.equal(into, same);
    assert.equal(into.kind, 'WidgetList');
    assert.deepEqual(into.metadata, { resourceVersion: '9' });
    assert.deepEqual(
      into.items.map((i) => i.metadata.name),
      ['a'],
    );
    assert.equal(server.requests[0]!.query.get('labelSelector'), 'a=b');
  });

  test('create, update and updateStatus send the object as JSON with write options as query parameters', async () => {
    server.reply((req, res) => sendJson(res, req.method === 'POST' ? 201 : 200, JSON.parse(req.body)));
    const client = new Client(WidgetKind, transport);
    const created = await client.create(widget('w1'), { fieldManager: 'me', dryRun: true });
    assert.deepEqual(created, widget('w1'));
    await client.update(widget('w1'));
    await client.updateStatus(widget('w1', { status: { ready: true } }));
    const [create, update, status] = server.requests;
    assert.equal(`${create!.method} ${create!.path}`, 'POST /apis/example.com/v1/namespaces/ns1/widgets');
    assert.equal(create!.headers['content-type'], 'application/json');
    assert.equal(create!.query.get('fieldManager'), 'me');
    assert.equal(create!.query.get('dryRun'), 'All');
    assert.deepEqual(JSON.parse(create!.body), widget('w1'));
    assert.equal(`${update!.method} ${update!.path}`, 'PUT /apis/example.com/v1/namespaces/ns1/widgets/w1');
    assert.equal(update!.query.toString(), '');
    assert.equal(`${status!.method} ${status!.path}`, 'PUT /apis/example.com/v1/namespaces/ns1/widgets/w1/status');
    assert.deepEqual(JSON.parse(status!.body).status, { ready: true });
  });

  test('patch sends each kind of patch with its content type', async () => {
    server.reply((req, res) => sendJson(res, 200, widget('w1')));
    const client = new Client(WidgetKind, transport);
    const id = { namespace: 'ns1', name: 'w1' };
    await client.patch(id, { operations: [{ op: 'add', path: '/metadata/finalizers/-', value: 'f' }] });
    await client.patch(id, { merge: { spec: { size: 2 } } }, { subresource: 'status' });
    await client.patch(id, { strategic: { metadata: { labels: { a: 'b' } } } });
    await client.patch(id, { apply: { spec: { size: 3 } }, fieldManager: 'ctl', force: true });
    const [json, merge, strategic, apply] = server.requests;
    assert.deepEqual(
      server.requests.map((r) => r.method),
      ['PATCH', 'PATCH', 'PATCH', 'PATCH'],
    );
    assert.equal(json!.headers['content-type'], 'application/json-patch+json');
    assert.deepEqual(JSON.parse(json!.body), [{ op: 'add', path: '/metadata/finalizers/-', value: 'f' }]);
    assert.equal(merge!.headers['content-type'], 'application/merge-patch+json');
    assert.equal(merge!.path, '/apis/example.com/v1/namespaces/ns1/widgets/w1/status');
    assert.deepEqual(JSON.parse(merge!.body), { spec: { size: 2 } });
    assert.equal(strategic!.headers['content-type'], 'application/strategic-merge-patch+json');
    assert.equal(apply!.headers['content-type'], 'application/apply-patch+yaml');
    assert.equal(apply!.query.get('fieldManager'), 'ctl');
    assert.equal(apply!.query.get('force'), 'true');
    assert.deepEqual(JSON.parse(apply!.body), { spec: { size: 3 } });
  });

  test('patchInto replaces the contents of the given object', async () => {
    server.reply((req, res) => sendJson(res, 200, widget('w1', { spec: { size: 9 } })));
    const into: Widget = { ...widget('w1'), status: { ready: false }, extra: 1 };
    await new Client(WidgetKind, transport).patchInto({ namespace: 'ns1', name: 'w1' }, { merge: { spec: { size: 9 } } }, {}, into);
    assert.deepEqual(into, widget('w1', { spec: { size: 9 } }));
  });

  test('delete sends DeleteOptions and returns the object only when the server returns one', async () => {
    const client = new Client(WidgetKind, transport);
    server.reply((req, res) => sendJson(res, 200, widget('w1', { metadata: { name: 'w1', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['f'] } })));
    const pending = await client.delete(
      { namespace: 'ns1', name: 'w1' },
      { preconditions: { uid: 'u1', resourceVersion: '5' }, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 },
    );
    assert.equal(pending?.metadata.deletionTimestamp, '2024-01-01T00:00:00Z');
    const request = server.requests[0]!;
    assert.equal(`${request.method} ${request.path}`, 'DELETE /apis/example.com/v1/namespaces/ns1/widgets/w1');
    assert.deepEqual(JSON.parse(request.body), {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { uid: 'u1', resourceVersion: '5' },
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
    });
    server.reply((req, res) => sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 }));
    assert.equal(await client.delete({ namespace: 'ns1', name: 'w1' }), undefined);
  });

  test('turns Status error bodies into ApiErrors that the guards recognise', async () => {
    const client = new Client(WidgetKind, transport, { retry: false });
    const id = { namespace: 'ns1', name: 'w1' };
    const cases: [number, string, (err: unknown) => boolean][] = [
      [404, 'NotFound', isNotFound],
      [409, 'Conflict', isConflict],
      [409, 'AlreadyExists', isAlreadyExists],
      [410, 'Expired', isGone],
      [422, 'Invalid', isInvalid],
      [500, 'InternalError', isServerError],
    ];
    for (const [code, reason, guard] of cases) {
      server.reply((req, res) => sendJson(res, code, statusBody(code, reason, `widgets "w1" ${reason}`, { name: 'w1', kind: 'widgets' })));
      await assert.rejects(client.get(id), (err: unknown) => {
        assert.ok(guard(err), `${code} ${reason}`);
        assert.ok(isApiError(err));
        assert.equal(err.status, code);
        assert.equal(err.message, `widgets "w1" ${reason}`);
        assert.equal(err.details?.name, 'w1');
        return true;
      });
    }
    assert.equal(isAlreadyExists(new Error('x')), false);
  });

  test('reads Retry-After of a 429 into retryAfterSeconds', async () => {
    server.reply((req, res) => sendJson(res, 429, statusBody(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '7' }));
    await assert.rejects(new Client(WidgetKind, transport, { retry: false }).list('ns1'), (err: unknown) => {
      assert.ok(isTooManyRequests(err));
      assert.equal(isApiError(err) && err.retryAfterSeconds, 7);
      return true;
    });
  });

  test('reports a non-JSON error body with the HTTP status and the start of the body', async () => {
    const html = `<html>${'bad gateway '.repeat(50)}</html>`;
    server.reply((req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end(html);
    });
    await assert.rejects(new Client(WidgetKind, transport).get({ namespace: 'ns1', name: 'w1' }), (err: unknown) => {
      assert.ok(isApiError(err));
      assert.equal(err.status, 502);
      assert.ok(isServerError(err));
      assert.ok(err.message.includes(html.slice(0, 200)));
      assert.ok(!err.message.includes(html.slice(0, 201)));
      return true;
    });
  });

  test('reports a success body that is not a JSON object as a CodecError', async () => {
    server.reply((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"metadata": ');
    });
    await assert.rejects(new Client(WidgetKind, transport).get({ namespace: 'ns1', name: 'w1' }), isCodecError);
    server.reply((req, res) => sendJson(res, 200, [1, 2]));
    await assert.rejects(new Client(WidgetKind, transport).get({ namespace: 'ns1', name: 'w1' }), isCodecError);
  });
});
