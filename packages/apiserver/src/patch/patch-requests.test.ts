import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { widgetsPath } from '../testing/test-client.js';
import { serverForSuite } from '../suite-server.test-helper.js';

describe('patch requests', () => {
  const { req } = serverForSuite({ widgetCrd: true });

  before(async () => {
    await req('POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1, color: 'red' } });
    await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm', labels: { a: '1' } }, data: { x: '1' } });
  });

  test('a JSON patch applies in order; a failed test operation is 422 and changes nothing', async () => {
    const ok = await req('PATCH', `${widgetsPath()}/w1`, [
      { op: 'test', path: '/spec/replicas', value: 1 },
      { op: 'replace', path: '/spec/replicas', value: 2 },
    ], 'application/json-patch+json');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.spec.replicas, 2);
    const failed = await req('PATCH', `${widgetsPath()}/w1`, [
      { op: 'test', path: '/spec/replicas', value: 1 },
      { op: 'replace', path: '/spec/replicas', value: 3 },
    ], 'application/json-patch+json');
    assert.equal(failed.status, 422);
    assert.equal(failed.body.kind, 'Status');
    assert.equal((await req('GET', `${widgetsPath()}/w1`)).body.spec.replicas, 2);
  });

  test('a merge patch deletes fields with null and is validated against the schema', async () => {
    const res = await req('PATCH', `${widgetsPath()}/w1`, { spec: { color: null } }, 'application/merge-patch+json');
    assert.equal(res.status, 200);
    assert.equal(res.body.spec.color, undefined);
    const invalid = await req('PATCH', `${widgetsPath()}/w1`, { spec: { replicas: -1 } }, 'application/merge-patch+json');
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.details.causes[0].field, 'spec.replicas');
  });

  test('a strategic merge patch works on a ConfigMap and is 415 on a custom resource', async () => {
    const cm = await req('PATCH', '/api/v1/namespaces/default/configmaps/cm', { data: { y: '2' } }, 'application/strategic-merge-patch+json');
    assert.equal(cm.status, 200);
    assert.deepEqual(cm.body.data, { x: '1', y: '2' });
    const cr = await req('PATCH', `${widgetsPath()}/w1`, { spec: { replicas: 3 } }, 'application/strategic-merge-patch+json');
    assert.equal(cr.status, 415);
  });

  test('an unknown patch media type is 415 listing the accepted ones', async () => {
    const res = await req('PATCH', '/api/v1/namespaces/default/configmaps/cm', { data: {} }, 'application/json');
    assert.equal(res.status, 415);
    assert.match(res.body.message, /application\/strategic-merge-patch\+json$/);
  });

  test('server-side apply requires fieldManager, creates a missing object and merges into an existing one', async () => {
    const yaml = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: applied\nspec:\n  replicas: 4\n';
    const missing = await req('PATCH', `${widgetsPath()}/applied`, yaml, 'application/apply-patch+yaml');
    assert.equal(missing.status, 422);
    assert.equal(missing.body.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const created = await req('PATCH', `${widgetsPath()}/applied?fieldManager=test`, yaml, 'application/apply-patch+yaml');
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.spec.replicas, 4);
    const merged = await req('PATCH', `${widgetsPath()}/applied?fieldManager=test`, 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: applied\nspec:\n  color: blue\n', 'application/apply-patch+yaml');
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.body.spec.color, 'blue');
    assert.equal(merged.body.metadata.generation, 2);
  });

  test('a patch of a missing object is 404', async () => {
    const res = await req('PATCH', `${widgetsPath()}/nope`, { spec: {} }, 'application/merge-patch+json');
    assert.equal(res.status, 404);
  });
});
