import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call, widgetCrd } from '../testing/test-client.js';

describe('discovery and OpenAPI', () => {
  let server: ApiServer;
  const get = (path: string, accept?: string) => call(server.url, 'GET', path, undefined, accept ? { headers: { accept } } : undefined);

  before(async () => {
    server = await startApiServer();
  });
  after(() => server.stop());

  test('/version, /api and /apis describe the server', async () => {
    const version = await get('/version');
    assert.equal(version.body.major, '1');
    assert.match(version.body.gitVersion, /^v1\.\d+/);
    const api = await get('/api', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json');
    assert.equal(api.headers['content-type'], 'application/json', 'aggregated discovery requests get the legacy document');
    assert.deepEqual(api.body.versions, ['v1']);
    const apis = await get('/apis');
    const groups = apis.body.groups.map((g: { name: string }) => g.name);
    assert.deepEqual(groups, [
      'coordination.k8s.io',
      'apps',
      'batch',
      'autoscaling',
      'policy',
      'rbac.authorization.k8s.io',
      'networking.k8s.io',
      'discovery.k8s.io',
      'events.k8s.io',
      'storage.k8s.io',
      'scheduling.k8s.io',
      'admissionregistration.k8s.io',
      'apiregistration.k8s.io',
      'apiextensions.k8s.io',
    ]);
  });

  test('resource lists carry names, verbs and short names, the main resource before its status entry', async () => {
    const core = await get('/api/v1');
    const names = core.body.resources.map((r: { name: string }) => r.name);
    assert.ok(names.indexOf('namespaces') < names.indexOf('namespaces/status'));
    const cm = core.body.resources.find((r: { name: string }) => r.name === 'configmaps');
    assert.deepEqual(cm, { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'] });
    const leases = await get('/apis/coordination.k8s.io/v1');
    assert.equal(leases.body.resources[0].name, 'leases');
  });

  test('a created CRD appears in discovery and OpenAPI at once, and the OpenAPI hash changes', async () => {
    const rootBefore = await get('/openapi/v3');
    const created = await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
    assert.equal(created.status, 201);
    const apis = await get('/apis');
    const group = apis.body.groups.find((g: { name: string }) => g.name === 'example.com');
    assert.deepEqual(group.preferredVersion, { groupVersion: 'example.com/v1', version: 'v1' });
    const list = await get('/apis/example.com/v1');
    assert.deepEqual(
      list.body.resources.map((r: { name: string }) => r.name),
      ['widgets', 'widgets/status'],
    );
    assert.deepEqual(list.body.resources[0].shortNames, ['wd']);
    const rootAfter = await get('/openapi/v3');
    const url: string = rootAfter.body.paths['apis/example.com/v1'].serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/example.com\/v1\?hash=[0-9A-F]{128}$/);
    assert.notEqual(rootBefore.body.paths['apis/apiextensions.k8s.io/v1'], undefined);
    const doc = await get(url);
    const patch = doc.body.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'example.com', version: 'v1', kind: 'Widget' });
    assert.ok(patch.parameters.some((p: { name: string; in: string }) => p.name === 'fieldValidation' && p.in === 'query'));
    assert.deepEqual(Object.keys(patch.requestBody.content), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    assert.ok(doc.body.components.schemas['com.example.v1.Widget'].properties.spec);
  });

  test('the core OpenAPI document declares fieldValidation on the Namespace PATCH (kubectl checks it for CRs) and strategic merge for built-ins', async () => {
    const root = await get('/openapi/v3');
    const doc = await get(root.body.paths['api/v1'].serverRelativeURL);
    const nsPatch = doc.body.paths['/api/v1/namespaces/{name}'].patch;
    assert.deepEqual(nsPatch['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Namespace' });
    assert.ok(nsPatch.parameters.some((p: { name: string }) => p.name === 'fieldValidation'));
    assert.ok('application/strategic-merge-patch+json' in nsPatch.requestBody.content);
  });

  test('an unknown group-version is 404', async () => {
    assert.equal((await get('/apis/nothing.io/v1')).status, 404);
    assert.equal((await get('/openapi/v3/apis/nothing.io/v1')).status, 404);
  });
});
