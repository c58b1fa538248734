import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../api-server.js';
import { call, widgetCrd, widgetsPath } from '../testing/test-client.js';

const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** The widget CRD with a default for spec.color. */
async function addColorDefault(url: string): Promise<void> {
  const crd = (await call(url, 'GET', `${crdPath}/widgets.example.com`)).body;
  crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color.default = 'blue';
  const updated = await call(url, 'PUT', `${crdPath}/widgets.example.com`, crd);
  assert.equal(updated.status, 200, updated.text);
}

describe('CRD schema defaults added after objects were written', () => {
  test('are applied when the objects are read (get, list), without a new resourceVersion', async () => {
    const server = await startApiServer();
    try {
      assert.equal((await call(server.url, 'POST', crdPath, widgetCrd())).status, 201);
      const created = await call(server.url, 'POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } });
      assert.equal(created.status, 201, created.text);
      await addColorDefault(server.url);
      const got = await call(server.url, 'GET', `${widgetsPath()}/w`);
      assert.deepEqual(got.body.spec, { replicas: 1, color: 'blue' });
      assert.equal(got.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
      const listed = await call(server.url, 'GET', widgetsPath());
      assert.deepEqual(listed.body.items[0].spec, { replicas: 1, color: 'blue' });
    } finally {
      await server.stop();
    }
  });

  test('are applied to the objects replayed from the log at a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kubeloop-read-defaults-'));
    try {
      const first = await startApiServer({ dataDir, fsync: 'never' });
      await call(first.url, 'POST', crdPath, widgetCrd());
      await call(first.url, 'POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } });
      await addColorDefault(first.url);
      await first.stop();
      const second = await startApiServer({ dataDir, fsync: 'never' });
      try {
        assert.deepEqual((await call(second.url, 'GET', `${widgetsPath()}/w`)).body.spec, { replicas: 1, color: 'blue' });
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
