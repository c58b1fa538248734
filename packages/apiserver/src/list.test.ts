import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { widgetsPath } from './testing/test-client.js';
import { serverForSuite } from './suite-server.test-helper.js';

describe('list', () => {
  const suite = serverForSuite({ widgetCrd: true });
  const { req } = suite;
  const names = (res: { body: { items: { metadata: { name: string } }[] } }): string[] => res.body.items.map((i) => i.metadata.name);

  before(async () => {
    await req('POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
    const labels: Record<string, Record<string, string>> = {
      a: { app: 'web', tier: 'front' },
      b: { app: 'web', tier: 'back' },
      c: { app: 'db' },
      d: {},
    };
    for (const [name, l] of Object.entries(labels)) {
      await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, labels: l }, spec: { replicas: 1 } });
    }
    await req('POST', widgetsPath('other'), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'z', labels: { app: 'web' } }, spec: { replicas: 1 } });
  });

  test('an empty list has items [] and the current resourceVersion', async () => {
    const res = await req('GET', '/api/v1/namespaces/default/secrets');
    assert.equal(res.text.includes('"items":[]'), true);
    assert.equal(res.body.kind, 'SecretList');
    assert.equal(res.body.metadata.resourceVersion, suite.server.resourceVersion());
  });

  test('custom resource list items carry apiVersion and kind', async () => {
    const res = await req('GET', widgetsPath());
    assert.equal(res.body.kind, 'WidgetList');
    assert.equal(res.body.apiVersion, 'example.com/v1');
    for (const item of res.body.items) {
      assert.equal(item.apiVersion, 'example.com/v1');
      assert.equal(item.kind, 'Widget');
    }
    assert.deepEqual(names(res), ['a', 'b', 'c', 'd']);
    assert.deepEqual(names(await req('GET', '/apis/example.com/v1/widgets')), ['a', 'b', 'c', 'd', 'z'], 'all namespaces');
  });

  test('label selectors support =, !=, in, notin, exists and does-not-exist, joined by commas', async () => {
    const sel = async (s: string): Promise<string[]> => names(await req('GET', `${widgetsPath()}?labelSelector=${encodeURIComponent(s)}`));
    assert.deepEqual(await sel('app=web'), ['a', 'b']);
    assert.deepEqual(await sel('app!=web'), ['c', 'd']);
    assert.deepEqual(await sel('tier in (front,back)'), ['a', 'b']);
    assert.deepEqual(await sel('tier notin (front)'), ['b', 'c', 'd']);
    assert.deepEqual(await sel('tier'), ['a', 'b']);
    assert.deepEqual(await sel('!app'), ['d']);
    assert.deepEqual(await sel('app=web,tier=back'), ['b']);
  });

  test('field selectors on metadata.name and metadata.namespace; other fields on a custom resource are 400', async () => {
    assert.deepEqual(names(await req('GET', `${widgetsPath()}?fieldSelector=metadata.name%3Db`)), ['b']);
    assert.deepEqual(names(await req('GET', `/apis/example.com/v1/widgets?fieldSelector=metadata.namespace%3Dother`)), ['z']);
    assert.deepEqual(names(await req('GET', `${widgetsPath()}?fieldSelector=metadata.name!%3Db`)), ['a', 'c', 'd']);
    const bad = await req('GET', `${widgetsPath()}?fieldSelector=spec.replicas%3D1`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const builtin = await req('GET', `/api/v1/namespaces/default/configmaps?fieldSelector=data.x%3D1`);
    assert.equal(builtin.status, 400);
    assert.equal(builtin.body.message, 'field label not supported: data.x');
  });

  test('limit and continue page through a consistent resourceVersion with an opaque token and remainingItemCount', async () => {
    const first = await req('GET', `${widgetsPath()}?limit=3`);
    assert.deepEqual(names(first), ['a', 'b', 'c']);
    assert.equal(first.body.metadata.remainingItemCount, 1);
    assert.equal(typeof first.body.metadata.continue, 'string');
    const rv = first.body.metadata.resourceVersion;
    await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'moves-the-counter' } });
    const second = await req('GET', `${widgetsPath()}?limit=3&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.deepEqual(names(second), ['d']);
    assert.equal(second.body.metadata.continue, undefined);
    assert.equal(second.body.metadata.resourceVersion, rv, 'every page reports the first page resourceVersion');
    const bad = await req('GET', `${widgetsPath()}?limit=3&continue=garbage`);
    assert.equal(bad.status, 400);
  });

  test('a forged continue token (JSON null, an array, a string, a number, a bool) is 400 with the upstream message, never a 500', async () => {
    const forged = (json: string): string => Buffer.from(json, 'utf8').toString('base64url');
    const cases: [string, string][] = [
      ['null', 'server does not recognize this encoded version'],
      ['{}', 'server does not recognize this encoded version'],
      ['[1]', 'json: cannot unmarshal array into Go value of type storage.continueToken'],
      ['"x"', 'json: cannot unmarshal string into Go value of type storage.continueToken'],
      ['5', 'json: cannot unmarshal number into Go value of type storage.continueToken'],
      ['true', 'json: cannot unmarshal bool into Go value of type storage.continueToken'],
    ];
    for (const [json, detail] of cases) {
      const res = await req('GET', `${widgetsPath()}?limit=1&continue=${forged(json)}`);
      assert.equal(res.status, 400, `${json}: ${res.text}`);
      assert.equal(res.body.reason, 'BadRequest');
      assert.equal(res.body.message, `invalid continue token: continue key is not valid: ${detail}`);
    }
  });

  test('a paginated list with a selector has no remainingItemCount', async () => {
    const res = await req('GET', `/apis/example.com/v1/widgets?limit=1&labelSelector=app%3Dweb`);
    assert.deepEqual(names(res), ['a']);
    assert.equal(res.body.metadata.remainingItemCount, undefined);
    assert.ok(res.body.metadata.continue);
  });

  test('resourceVersion rules: "0" and "" read the newest state, a future one is 504, resourceVersionMatch is validated', async () => {
    assert.equal((await req('GET', `${widgetsPath()}?resourceVersion=0`)).status, 200);
    assert.equal((await req('GET', `${widgetsPath()}?resourceVersion=${suite.server.resourceVersion()}&resourceVersionMatch=NotOlderThan`)).status, 200);
    const exact = await req('GET', `${widgetsPath()}?resourceVersion=${suite.server.resourceVersion()}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 200);
    const future = await req('GET', `${widgetsPath()}?resourceVersion=999999`);
    assert.equal(future.status, 504);
    assert.equal(future.body.details.causes[0].reason, 'ResourceVersionTooLarge');
    const noRv = await req('GET', `${widgetsPath()}?resourceVersionMatch=NotOlderThan`);
    assert.equal(noRv.status, 422);
    assert.equal(noRv.body.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    const unknown = await req('GET', `${widgetsPath()}?resourceVersion=1&resourceVersionMatch=Sometimes`);
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.message, /Unsupported value: "Sometimes"/);
    const bad = await req('GET', `${widgetsPath()}?resourceVersion=abc`);
    assert.equal(bad.status, 400);
  });
});
