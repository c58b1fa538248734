import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isKubeloopError } from '../errors.js';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from '../kinds/custom-resource-definition.js';
import { ensureCrd } from './ensure-crd.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
};

/** A server whose CRD keeps the given conditions, recording the requests. */
function fakeServer(conditions: CustomResourceDefinitionCondition[]): Transport & { requests: string[] } {
  const requests: string[] = [];
  const answer = (status: number, body: unknown): TransportResponse => ({ status, headers: {}, body: JSON.stringify(body) });
  return {
    requests,
    request: async (req: TransportRequest) => {
      requests.push(`${req.method} ${req.path}`);
      if (req.method === 'POST') return answer(201, crd);
      if (req.path.endsWith('/customresourcedefinitions/widgets.example.com')) return answer(200, { ...crd, status: { conditions } });
      return answer(200, { apiVersion: 'example.com/v1', kind: 'WidgetList', metadata: {}, items: [] });
    },
    stream: () => Promise.reject(new Error('no watch here')),
  };
}

describe('ensureCrd waiting', () => {
  test('gives up with CrdNotReady naming what it waited for when the CRD never becomes Established', async () => {
    const server = fakeServer([{ type: 'Established', status: 'False', reason: 'Installing' }]);
    await assert.rejects(
      ensureCrd(server, crd, { timeoutMs: 20, pollIntervalMs: 5 }),
      (err: unknown) => isKubeloopError(err) && err.code === 'CrdNotReady' && /gave up after 20 ms waiting for the Established condition/.test(err.message),
    );
    assert.ok(!server.requests.some((r) => r.endsWith('/apis/example.com/v1/widgets')), 'the kind is not listed before the CRD is Established');
  });

  test('fails at once when the names are not accepted', async () => {
    const server = fakeServer([{ type: 'NamesAccepted', status: 'False', reason: 'NameConflict', message: '"widgets" is already in use' }]);
    await assert.rejects(ensureCrd(server, crd, { timeoutMs: 60_000 }), /names not accepted: "widgets" is already in use/);
  });

  test('lists the kind once Established and resolves with the stored CRD', async () => {
    const server = fakeServer([{ type: 'Established', status: 'True' }]);
    const stored = await ensureCrd(server, crd);
    assert.equal(stored.status?.conditions?.[0]?.type, 'Established');
    assert.deepEqual(server.requests, [
      'POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      'GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
      'GET /apis/example.com/v1/widgets',
    ]);
  });
});
