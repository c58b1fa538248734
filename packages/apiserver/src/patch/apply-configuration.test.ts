import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../api-server.js';
import type { ApiServer } from '../api-server.js';
import { call, widgetCrd, widgetsPath } from '../testing/test-client.js';

const applyType = 'application/apply-patch+yaml';

describe('server-side apply error texts', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer();
    assert.equal((await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd())).status, 201);
  });
  after(() => server.stop());

  test('a field the schema does not declare is 400 with the typed-patch message, and nothing is stored', async () => {
    const config = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  replicas: 1\n  unknownField: 2\n';
    const res = await call(server.url, 'PATCH', `${widgetsPath()}/w1?fieldManager=test`, config, { contentType: applyType });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.message, 'failed to create typed patch object (default/w1; example.com/v1, Kind=Widget): .spec.unknownField: field not declared in schema');
    assert.equal((await call(server.url, 'GET', `${widgetsPath()}/w1`)).status, 404);
    const builtin = await call(server.url, 'PATCH', '/api/v1/namespaces/default/configmaps/c1?fieldManager=test', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\nspec: {}\n', {
      contentType: applyType,
    });
    assert.equal(builtin.body.message, 'failed to create typed patch object (default/c1; /v1, Kind=ConfigMap): .spec: field not declared in schema');
  });

  test('a key set twice in the YAML is 400 in the words of Go’s YAML decoder', async () => {
    const config = [
      'apiVersion: example.com/v1',
      'kind: Widget',
      'metadata:',
      '  name: w2',
      'spec:',
      '  replicas: 1',
      '  color: red',
      '  replicas: 2',
    ].join('\n');
    const res = await call(server.url, 'PATCH', `${widgetsPath()}/w2?fieldManager=test`, config, { contentType: applyType });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.message, 'error decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 8: key "replicas" already set in map');
  });
});
