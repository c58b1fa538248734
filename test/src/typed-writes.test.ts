// The typed writes of the resource Client against the embedded API server: patchStatus with conditions,
// deep-partial merge patches, fieldValidation, the server's Warning headers, and the 404 of a kind
// that is not served.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '@kubeloop/apiserver';
import type { ApiServer } from '@kubeloop/apiserver';
import { Client, HttpTransport, defineKind, ensureCrd, findCondition, isApiError, isBadRequest, setCondition } from '@kubeloop/resource';
import type { ApiWarning, Condition } from '@kubeloop/resource';
import { testCrd } from './support/crd.js';

interface GizmoSpec {
  size: number;
  labels?: Record<string, string>;
}
interface GizmoStatus {
  phase?: string;
  replicas?: number;
  conditions?: Condition[];
}
const GizmoKind = defineKind<GizmoSpec, GizmoStatus>({ group: 'example.com', version: 'v1', kind: 'Gizmo' });

const gizmoCrd = testCrd({
  group: 'example.com',
  kind: 'Gizmo',
  spec: { size: { type: 'integer' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
  status: { phase: { type: 'string' }, replicas: { type: 'integer' }, conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
});

describe('typed writes', () => {
  let server: ApiServer;
  let transport: HttpTransport;
  let gizmos: Client<ReturnType<typeof GizmoKind.zeroValue>>;
  const warnings: ApiWarning[] = [];
  const id = { namespace: 'default', name: 'g1' };

  before(async () => {
    server = await startApiServer();
    transport = new HttpTransport({ server: server.url, warningHandler: (w) => void warnings.push(w) });
    await ensureCrd(transport, gizmoCrd);
    gizmos = new Client(GizmoKind, transport);
    await gizmos.create({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g1', namespace: 'default' }, spec: { size: 1, labels: { a: '1', b: '2' } } });
  });
  after(async () => {
    transport.close();
    await server.stop();
  });

  test('patchStatus merges a partial status into the status subresource and leaves the spec alone', async () => {
    const status: GizmoStatus = { phase: 'Running' };
    setCondition(status, { type: 'Ready', status: 'True', reason: 'Up', message: '', observedGeneration: 1 });
    await gizmos.patchStatus(id, status);
    const patched = await gizmos.patchStatus(id, { replicas: 3 });
    assert.equal(patched.status?.phase, 'Running', 'fields not in the patch are kept');
    assert.equal(patched.status?.replicas, 3);
    assert.equal(findCondition(patched.status?.conditions, 'Ready')?.reason, 'Up');
    assert.equal(patched.spec?.size, 1);
    const cleared = await gizmos.patchStatus(id, { phase: null });
    assert.equal(cleared.status?.phase, undefined, 'null deletes a field');
  });

  test('a deep-partial merge patch changes one nested field and deletes another', async () => {
    const patched = await gizmos.patch(id, { merge: { spec: { labels: { a: '10', b: null } } } });
    assert.deepEqual(patched.spec, { size: 1, labels: { a: '10' } });
  });

  test('fieldValidation Strict refuses an unknown field; Warn (the default) reports it to the warning handler', async () => {
    const current = await gizmos.get(id);
    const withTypo = { ...current, spec: { ...current.spec!, colour: 'red' } };
    await assert.rejects(gizmos.update(withTypo, { fieldValidation: 'Strict' }), (err: unknown) => isBadRequest(err) && /unknown field "spec.colour"/.test((err as Error).message));
    warnings.length = 0;
    await gizmos.update(withTypo);
    assert.deepEqual(
      warnings.map((w) => [w.code, w.text, w.request]),
      [[299, 'unknown field "spec.colour"', 'PUT /apis/example.com/v1/namespaces/default/gizmos/g1']],
    );
    warnings.length = 0;
    await gizmos.update({ ...(await gizmos.get(id)), spec: { ...current.spec!, colour: 'blue' } as GizmoSpec }, { fieldValidation: 'Ignore' });
    assert.deepEqual(warnings, []);
  });

  test('a kind that is not served fails with a 404 naming the request, the kind and the CRD to install', async () => {
    const Missing = defineKind({ group: 'nowhere.example.com', version: 'v1', kind: 'Phantom' });
    await assert.rejects(
      new Client(Missing, transport).get({ namespace: 'default', name: 'p1' }),
      (err: unknown) =>
        isApiError(err) &&
        err.status === 404 &&
        err.message.startsWith('GET /apis/nowhere.example.com/v1/namespaces/default/phantoms/p1: ') &&
        err.message.endsWith('(Phantom nowhere.example.com/v1 is not served: is the CustomResourceDefinition phantoms.nowhere.example.com installed and serving v1?)'),
    );
    await assert.rejects(new Client(Missing, transport).watch('default'), (err: unknown) => isApiError(err) && /is the CustomResourceDefinition phantoms.nowhere.example.com installed/.test(err.message));
  });

  test('a missing object keeps the server’s message, which names its kind and name', async () => {
    await assert.rejects(gizmos.get({ namespace: 'default', name: 'nope' }), (err: unknown) => isApiError(err) && err.message === 'gizmos.example.com "nope" not found');
  });
});
