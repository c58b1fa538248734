import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call, widgetCrd, widgetsPath } from '../testing/test-client.js';

describe('the scale subresource of custom resources', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
    const crd = widgetCrd() as { spec: { versions: Record<string, unknown>[] } };
    const version = crd.spec.versions[0]!;
    version.subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } };
    const schema = version.schema as { openAPIV3Schema: { properties: { status: { properties: Record<string, unknown> } } } };
    Object.assign(schema.openAPIV3Schema.properties.status.properties, { replicas: { type: 'integer' }, selector: { type: 'string' } });
    assert.equal((await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  });
  after(() => server.stop());

  test("reads and writes the paths the CRD names, in discovery as autoscaling/v1 Scale", async () => {
    await call(server.url, 'POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } });
    await call(server.url, 'PATCH', `${widgetsPath()}/w/status`, { status: { replicas: 1, selector: 'app=w' } }, { contentType: 'application/merge-patch+json' });
    const scale = await call(server.url, 'GET', `${widgetsPath()}/w/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.deepEqual([scale.body.spec, scale.body.status], [{ replicas: 1 }, { replicas: 1, selector: 'app=w' }]);
    const patched = await call(server.url, 'PATCH', `${widgetsPath()}/w/scale`, { spec: { replicas: 4 } }, { contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.text);
    const widget = await call(server.url, 'GET', `${widgetsPath()}/w`);
    assert.equal(widget.body.spec.replicas, 4);
    assert.equal(widget.body.metadata.generation, 2);
    const discovery = await call(server.url, 'GET', '/apis/example.com/v1');
    const entry = discovery.body.resources.find((r: { name: string }) => r.name === 'widgets/scale');
    assert.deepEqual([entry.group, entry.version, entry.kind], ['autoscaling', 'v1', 'Scale']);
  });
});
