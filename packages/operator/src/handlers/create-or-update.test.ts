import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, HttpTransport, defineKind, ensureCrd, isConflict, isKubeloopError, setControllerReference } from '@kubeloop/resource';
import type { ConfigMap, Client } from '@kubeloop/resource';
import { createOrPatch, createOrUpdate, mergePatchBetween } from './create-or-update.js';
import { useEmbeddedCluster } from '../frontends/reconcile/embedded-cluster.test-helper.js';
import { testCrd } from '../testing/test-crd.test-helper.js';

const GadgetKind = defineKind<{ size: number; tags?: string[] }, { phase?: string; observed?: number }>({ group: 'example.com', version: 'v1', kind: 'Gadget' });
const gadgetCrd = testCrd({
  group: 'example.com',
  kind: 'Gadget',
  spec: { size: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
  status: { phase: { type: 'string' }, observed: { type: 'integer' } },
});

const settings = (): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' } });

describe('createOrUpdate (controllerutil.CreateOrUpdate)', () => {
  const cluster = useEmbeddedCluster();
  let configMaps: Client<ConfigMap>;
  before(() => {
    configMaps = cluster.client(ConfigMapKind);
  });

  test('creates a missing object from the template, then updates only when the mutation changes something', async () => {
    const desired = (cm: ConfigMap): void => {
      cm.data = { ...cm.data, mode: 'fast' };
    };
    const created = await createOrUpdate(configMaps, settings(), desired);
    assert.equal(created.operation, 'created');
    assert.deepEqual(created.object.data, { mode: 'fast' });

    const again = await createOrUpdate(configMaps, settings(), desired);
    assert.equal(again.operation, 'unchanged');
    assert.equal(again.object.metadata.resourceVersion, created.object.metadata.resourceVersion, 'nothing written');

    const changed = await createOrUpdate(configMaps, settings(), (cm) => {
      cm.data = { mode: 'safe' };
      cm.metadata.labels = { app: 'web' };
    });
    assert.equal(changed.operation, 'updated');
    assert.deepEqual((await configMaps.get({ namespace: 'default', name: 'settings' })).data, { mode: 'safe' });
  });

  test('the mutation sees the current object (an owner reference set on it is kept by later calls)', async () => {
    const owner = await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner', namespace: 'default' } });
    await createOrUpdate(configMaps, settings(), (cm) => setControllerReference(owner, cm));
    const { operation, object } = await createOrUpdate(configMaps, settings(), (cm) => setControllerReference(owner, cm));
    assert.equal(operation, 'unchanged');
    assert.equal(object.metadata.ownerReferences?.[0]?.uid, owner.metadata.uid);
  });

  test('refuses a mutation that renames the object, and an update that lost a race fails with 409', async () => {
    await assert.rejects(
      createOrUpdate(configMaps, settings(), (cm) => {
        cm.metadata.name = 'other';
      }),
      (err: unknown) => isKubeloopError(err) && err.code === 'InvalidMutation',
    );
    await assert.rejects(
      createOrUpdate(configMaps, settings(), async (cm) => {
        cm.data = { mode: 'mine' };
        await configMaps.patch({ namespace: 'default', name: 'settings' }, { merge: { data: { other: 'writer' } } });
      }),
      (err: unknown) => isConflict(err),
    );
  });
});

describe('createOrPatch (controllerutil.CreateOrPatch)', () => {
  const cluster = useEmbeddedCluster();
  let gadgets: Client<ReturnType<typeof GadgetKind.zeroValue>>;
  const gadget = (): ReturnType<typeof GadgetKind.zeroValue> => ({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1', namespace: 'default' } });
  before(async () => {
    const transport = new HttpTransport({ server: cluster.server.url });
    await ensureCrd(transport, gadgetCrd);
    transport.close();
    gadgets = cluster.client(GadgetKind);
  });

  test('created, unchanged, updated, updatedStatusOnly, updatedStatus', async () => {
    assert.equal((await createOrPatch(gadgets, gadget(), (g) => void (g.spec = { size: 1, tags: ['a'] }))).operation, 'created');
    assert.equal((await createOrPatch(gadgets, gadget(), (g) => void (g.spec = { size: 1, tags: ['a'] }))).operation, 'unchanged');
    const updated = await createOrPatch(gadgets, gadget(), (g) => void (g.spec = { size: 2, tags: ['a', 'b'] }));
    assert.equal(updated.operation, 'updated');
    assert.deepEqual(updated.object.spec, { size: 2, tags: ['a', 'b'] });
    const statusOnly = await createOrPatch(gadgets, gadget(), (g) => void (g.status = { phase: 'Ready', observed: 2 }));
    assert.equal(statusOnly.operation, 'updatedStatusOnly');
    assert.deepEqual(statusOnly.object.status, { phase: 'Ready', observed: 2 });
    const both = await createOrPatch(gadgets, gadget(), (g) => {
      g.spec = { size: 3 };
      g.status = { phase: 'Scaling', observed: 2 };
    });
    assert.equal(both.operation, 'updatedStatus');
    const stored = await gadgets.get({ namespace: 'default', name: 'g1' });
    assert.deepEqual(stored.spec, { size: 3 }, 'a removed field is deleted by the patch');
    assert.deepEqual(stored.status, { phase: 'Scaling', observed: 2 });
  });

  test('patches only the difference: a concurrent change of another field survives', async () => {
    await createOrPatch(gadgets, gadget(), async (g) => {
      g.spec = { ...g.spec!, size: 10 };
      await gadgets.patch({ namespace: 'default', name: 'g1' }, { merge: { spec: { tags: ['concurrent'] } } });
    });
    assert.deepEqual((await gadgets.get({ namespace: 'default', name: 'g1' })).spec, { size: 10, tags: ['concurrent'] });
  });
});

describe('mergePatchBetween', () => {
  test('changed and new fields, null for removed ones, arrays whole, undefined when equal', () => {
    assert.equal(mergePatchBetween({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }), undefined);
    assert.deepEqual(mergePatchBetween({ a: 1, b: { c: [1, 2], d: 'x' }, e: 'gone' }, { a: 2, b: { c: [1], d: 'x' }, f: { g: true } }), {
      a: 2,
      b: { c: [1] },
      e: null,
      f: { g: true },
    });
  });
});
