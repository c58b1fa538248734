/**
 * Compiled CRD schemas belong to the server that compiled them: a stopped server, a changed CRD or
 * a deleted one leaves none behind in the process. (They were once kept for the process: by a
 * module-level cache keyed by CRD uid, and by a shared Ajv that keeps every function it compiles;
 * a process that starts many servers, as a test suite does, grew by every server.)
 *
 * What is counted is the leaking thing itself, in a heap snapshot after a collection: live
 * `CrdSchemaValidator` objects and the functions Ajv compiles (named `validate<N>`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapSnapshot, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startApiServer } from '../api-server.js';
import { eventually } from '../testing/eventually.js';
import { call, widgetCrd, widgetsPath } from '../testing/test-client.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const ROUNDS = 8;

interface HeapSnapshotJson {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** After a full collection: live CrdSchemaValidator objects, and live Ajv-compiled functions. */
async function liveCompiledSchemas(): Promise<{ validators: number; compiledFunctions: number }> {
  gc();
  gc();
  let text = '';
  for await (const chunk of getHeapSnapshot()) text += String(chunk);
  const heap = JSON.parse(text) as HeapSnapshotJson;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  let validators = 0;
  let compiledFunctions = 0;
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const type = types[heap.nodes[i + typeAt]!];
    const name = heap.strings[heap.nodes[i + nameAt]!];
    if (type === 'object' && name === 'CrdSchemaValidator') validators++;
    else if (type === 'closure' && name !== undefined && /^validate\d+$/.test(name)) compiledFunctions++;
  }
  return { validators, compiledFunctions };
}

/**
 * Waits until {@link liveCompiledSchemas} finds none (a stopped server stays reachable from its
 * listening socket's handle until libuv has closed it), for up to 5 s.
 */
async function noCompiledSchemasLeft(): Promise<void> {
  await eventually(async () => assert.deepEqual(await liveCompiledSchemas(), { validators: 0, compiledFunctions: 0 }), {
    timeoutMs: 5000,
    intervalMs: 50,
    what: 'no compiled CRD schema left',
  });
}

async function createWidget(url: string, name: string): Promise<void> {
  const created = await call(url, 'POST', widgetsPath(), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { replicas: 1 } });
  assert.equal(created.status, 201, created.text);
}

/** One server: the widget CRD, one widget written (its schema compiled), stopped. */
async function serverWithAWidget(): Promise<void> {
  const server = await startApiServer();
  try {
    assert.equal((await call(server.url, 'POST', crdPath, widgetCrd())).status, 201);
    await createWidget(server.url, 'w');
  } finally {
    await server.stop();
  }
}

describe('compiled CRD schemas', () => {
  test('go with the server: servers started and stopped one after the other leave none behind', async () => {
    // In a function of its own: a stopped server still referenced by this frame would be counted.
    for (let round = 0; round < ROUNDS; round++) await serverWithAWidget();
    await noCompiledSchemasLeft();
  });

  test('go with their CRD: changing a CRD many times keeps the current schema only, deleting it keeps none', async () => {
    const server = await startApiServer();
    try {
      assert.equal((await call(server.url, 'POST', crdPath, widgetCrd())).status, 201);
      for (let round = 0; round < ROUNDS; round++) {
        const crd = (await call(server.url, 'GET', `${crdPath}/widgets.example.com`)).body;
        crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties[`field${round}`] = { type: 'string' };
        const updated = await call(server.url, 'PUT', `${crdPath}/widgets.example.com`, crd);
        assert.equal(updated.status, 200, updated.text);
        await createWidget(server.url, `w${round}`); // compiles the schema of this generation
      }
      const live = await liveCompiledSchemas();
      assert.ok(live.validators <= 1 && live.compiledFunctions <= 1, `after ${ROUNDS} changes of one CRD: ${JSON.stringify(live)}`);
      assert.equal((await call(server.url, 'DELETE', `${crdPath}/widgets.example.com`)).status, 200);
      await noCompiledSchemasLeft();
    } finally {
      await server.stop();
    }
  });
});
