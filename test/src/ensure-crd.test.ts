// ensureCrd() of @kubeloop/resource against the embedded API server: create, update, no-op.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEnv } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';
import { CustomResourceDefinitionKind, defineKind, ensureCrd } from '@kubeloop/resource';
import type { Client, CustomResourceDefinition } from '@kubeloop/resource';
import { testCrd } from './support/crd.js';

function gadgetCrd(columns: { name: string; type: string; jsonPath: string }[] = []): CustomResourceDefinition {
  return testCrd({
    group: 'example.com',
    kind: 'Gadget',
    labels: { 'app.kubernetes.io/part-of': 'gadget-operator' },
    spec: { size: { type: 'integer' } },
    ...(columns.length > 0 ? { additionalPrinterColumns: columns } : {}),
  });
}

describe('ensureCrd', () => {
  // The environment only starts the server: every ensureCrd here is the test's own call.
  let env: TestEnv;
  const crds = (): Client<CustomResourceDefinition> => env.client(CustomResourceDefinitionKind);
  before(async () => {
    env = await startTestEnv();
  });
  after(() => env.stop());

  test('creates the CRD and resolves once its kind is served', async () => {
    const stored = await ensureCrd(env.transport, gadgetCrd());
    assert.ok(stored.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'));
    const Gadget = defineKind<{ size: number }>({ group: 'example.com', version: 'v1', kind: 'Gadget' });
    const created = await env.client(Gadget).create({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1', namespace: 'default' }, spec: { size: 1 } });
    assert.equal(created.spec?.size, 1);
  });

  test('leaves an installed CRD alone when nothing it sets differs (server defaults are no difference)', async () => {
    const before = await crds().get({ namespace: '', name: 'gadgets.example.com' });
    await ensureCrd(env.transport, gadgetCrd());
    const afterwards = await crds().get({ namespace: '', name: 'gadgets.example.com' });
    assert.equal(afterwards.metadata.resourceVersion, before.metadata.resourceVersion);
  });

  test('updates an installed CRD whose spec lacks what the new one sets, keeping labels added by others', async () => {
    const current = await crds().get({ namespace: '', name: 'gadgets.example.com' });
    await crds().update({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, team: 'storage' } } });
    const column = { name: 'Size', type: 'integer', jsonPath: '.spec.size' };
    const stored = await ensureCrd(env.transport, gadgetCrd([column]));
    assert.deepEqual(stored.spec?.versions[0]?.additionalPrinterColumns?.map((c) => c.name), ['Size']);
    assert.deepEqual(stored.metadata.labels, { 'app.kubernetes.io/part-of': 'gadget-operator', team: 'storage' });
  });
});
