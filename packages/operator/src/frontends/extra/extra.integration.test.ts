import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, CustomResourceDefinitionKind, EventKind, defineKindFor, isNotFound } from '@kubeloop/resource';
import type { Client, ConfigMap, Event, KubeObject } from '@kubeloop/resource';
import { ClientEventRecorder } from '../../handlers/event-recorder.js';
import { noopLogger } from '../../observability/logger.js';
import { Operator } from '../../controller/operator.js';
import { startEmbeddedCluster, waitFor } from '../reconcile/embedded-cluster.test-helper.js';
import type { EmbeddedCluster } from '../reconcile/embedded-cluster.test-helper.js';
import { newController } from '../reconcile/reconcile-controller.js';
import type { K8sDiffResult, K8sPhaseReconciler, K8sReconciler, Reconciler } from './reconciler.js';
import { newStdK8sReconciler } from './std-k8s-reconciler.js';
import { newStdReconciler } from './std-reconciler.js';
import { testCrd } from '../../testing/test-crd.test-helper.js';

const NS = 'default';
const FINALIZER = 'extra.test.kubeloop.dev/finalizer';

/** An external service holding one value per object, driven by ConfigMaps labelled `role=external`. */
function externalReconciler(service: Map<string, string>): Reconciler<ConfigMap, Map<string, string>> {
  return {
    configure: () => service,
    read: (_ctx, cm, data, api) => {
      data.current = api.get(cm.metadata.name);
      return {};
    },
    diff: (cm, data) => ({
      needCreate: data.current === undefined,
      needUpdate: data.current !== cm.data?.value,
      diff: `${String(data.current)} -> ${cm.data?.value ?? ''}`,
    }),
    create: (_ctx, cm, _data, api) => {
      api.set(cm.metadata.name, cm.data?.value ?? '');
      return {};
    },
    update: (_ctx, cm, _data, api) => {
      api.set(cm.metadata.name, cm.data?.value ?? '');
      return {};
    },
    delete: (_ctx, cm, _data, api) => {
      api.delete(cm.metadata.name);
    },
    onError: () => {},
    onSuccess: () => {},
  };
}

/** A phase that keeps a child ConfigMap `<parent>-child`, owned by the parent, holding the parent's data. */
function childPhase(configMaps: Client<ConfigMap>): K8sPhaseReconciler<ConfigMap> {
  const childName = (parent: ConfigMap): string => `${parent.metadata.name}-child`;
  return {
    getName: () => 'child',
    configure: () => ({}),
    read: async (ctx, parent, data) => {
      try {
        data.child = await configMaps.get({ namespace: NS, name: childName(parent) }, { signal: ctx.signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        data.child = undefined;
      }
      return {};
    },
    diff: (_ctx, parent, data): K8sDiffResult => {
      const child = data.child as ConfigMap | undefined;
      return [
        {
          needCreate: child === undefined,
          needUpdate: child !== undefined && JSON.stringify(child.data ?? {}) !== JSON.stringify(parent.data ?? {}),
          needDelete: false,
        },
      ];
    },
    create: async (_ctx, parent) => {
      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: childName(parent),
          namespace: NS,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: parent.metadata.name, uid: parent.metadata.uid ?? '', controller: true }],
        },
        data: parent.data ?? {},
      });
      return {};
    },
    update: async (_ctx, parent, data) => {
      await configMaps.update({ ...(data.child as ConfigMap), data: parent.data ?? {} });
      return {};
    },
    delete: () => ({}),
    onError: (_ctx, _parent, _data, err) => {
      throw err;
    },
    onSuccess: () => ({}),
  };
}

/** A custom resource with the status subresource, whose reconciler reports a Ready condition in its status. */
type Gadget = KubeObject<{ size: number }, { conditions?: { type: string; status: string }[] }>;
const GadgetKind = defineKindFor<Gadget>({ group: 'extra.test.kubeloop.dev', version: 'v1', kind: 'Gadget' });

const gadgetReconciler: K8sReconciler<Gadget> = {
  configure: () => ({}),
  read: () => ({}),
  delete: () => {},
  onError: (_ctx, _r, _data, err) => {
    throw err;
  },
  onSuccess: (_ctx, gadget) => {
    gadget.status = { conditions: [{ type: 'Ready', status: 'True' }] };
    return {};
  },
};

const parentReconciler: K8sReconciler<ConfigMap> = {
  configure: () => ({}),
  read: () => ({}),
  delete: () => {},
  onError: (_ctx, _r, _data, err) => {
    throw err;
  },
  onSuccess: () => ({}),
};

describe('operator-sdk-extra reconcilers against the embedded API server', () => {
  let cluster: EmbeddedCluster;
  let configMaps: Client<ConfigMap>;
  let events: Client<Event>;
  let recorder: ClientEventRecorder;
  let gadgets: Client<Gadget>;
  const service = new Map<string, string>();
  const abort = new AbortController();
  let operatorRun: Promise<void>;

  before(async () => {
    cluster = await startEmbeddedCluster();
    configMaps = cluster.client(ConfigMapKind);
    events = cluster.client(EventKind);
    recorder = new ClientEventRecorder(events, { component: 'extra-test' });
    await cluster.client(CustomResourceDefinitionKind).create(
      testCrd({
        group: 'extra.test.kubeloop.dev',
        kind: 'Gadget',
        spec: { size: { type: 'integer' } },
        status: { conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      }),
    );
    gadgets = cluster.client(GadgetKind);
    const gadgetController = newController({
      kind: GadgetKind,
      client: gadgets,
      namespace: NS,
      name: 'gadgets',
      reconciler: newStdK8sReconciler(gadgets, FINALIZER, gadgetReconciler),
      logger: noopLogger,
    });
    const external = newController({
      kind: ConfigMapKind,
      client: configMaps,
      namespace: NS,
      informerOptions: { labelSelector: 'role=external' },
      name: 'external',
      reconciler: newStdReconciler(configMaps, FINALIZER, externalReconciler(service), { recorder }),
      logger: noopLogger,
    });
    const parents = newController({
      kind: ConfigMapKind,
      client: configMaps,
      namespace: NS,
      informerOptions: { labelSelector: 'role=parent' },
      name: 'parents',
      reconciler: newStdK8sReconciler(configMaps, FINALIZER, parentReconciler, { phases: [childPhase(configMaps)], recorder }),
      logger: noopLogger,
    });
    const operator = new Operator();
    operator.addController(external);
    operator.addController(parents);
    operator.addController(gadgetController);
    operatorRun = operator.run(abort.signal);
    await Promise.all([external, parents, gadgetController].map((c) => c.waitForCacheSync(AbortSignal.timeout(10_000))));
  });

  after(async () => {
    abort.abort();
    await operatorRun;
    await recorder.flush();
    await cluster.stop();
  });

  async function read(name: string): Promise<ConfigMap | undefined> {
    try {
      return await configMaps.get({ namespace: NS, name });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  test('StdReconciler creates, updates and deletes the external resource behind a finalizer, keeping other finalizers', async () => {
    await configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ext-a', namespace: NS, labels: { role: 'external' }, finalizers: ['someone.else/keep'] },
      data: { value: 'one' },
    });
    await waitFor(() => service.get('ext-a') === 'one', { what: 'external created' });
    await waitFor(async () => (await read('ext-a'))?.metadata.finalizers?.includes(FINALIZER) === true, { what: 'finalizer added' });
    assert.deepEqual((await read('ext-a'))?.metadata.finalizers, ['someone.else/keep', FINALIZER]);

    await configMaps.patch({ namespace: NS, name: 'ext-a' }, { merge: { data: { value: 'two' } } });
    await waitFor(() => service.get('ext-a') === 'two', { what: 'external updated' });

    await configMaps.delete({ namespace: NS, name: 'ext-a' });
    await waitFor(() => !service.has('ext-a'), { what: 'external deleted' });
    await waitFor(async () => (await read('ext-a'))?.metadata.finalizers?.length === 1, { what: 'our finalizer removed' });
    assert.deepEqual((await read('ext-a'))?.metadata.finalizers, ['someone.else/keep']);
    // The other controller lets go: the object disappears.
    await configMaps.patch({ namespace: NS, name: 'ext-a' }, { operations: [{ op: 'remove', path: '/metadata/finalizers/0' }] });
    await waitFor(async () => (await read('ext-a')) === undefined, { what: 'object gone' });

    await recorder.flush();
    const reasons = (await events.list(NS)).items.filter((e) => e.involvedObject.name === 'ext-a').map((e) => e.reason);
    for (const reason of ['AddedFinalizer', 'Created', 'Updated', 'Deleted']) assert.ok(reasons.includes(reason), `Event ${reason} among ${reasons.join(', ')}`);
  });

  test('StdK8sReconciler phases create and update an owned child resource, and deletion removes the finalizer', async () => {
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'parent-a', namespace: NS, labels: { role: 'parent' } }, data: { size: '1' } });
    await waitFor(async () => (await read('parent-a-child'))?.data?.size === '1', { what: 'child created' });
    const child = await read('parent-a-child');
    assert.equal(child?.metadata.ownerReferences?.[0]?.name, 'parent-a');

    await configMaps.patch({ namespace: NS, name: 'parent-a' }, { merge: { data: { size: '3' } } });
    await waitFor(async () => (await read('parent-a-child'))?.data?.size === '3', { what: 'child updated' });

    await waitFor(async () => (await read('parent-a'))?.metadata.finalizers?.includes(FINALIZER) === true, { what: 'finalizer on parent' });
    await configMaps.delete({ namespace: NS, name: 'parent-a' });
    await waitFor(async () => (await read('parent-a')) === undefined, { what: 'parent deleted once the finalizer is removed' });
  });

  test('a status condition set by onSuccess is written to the status subresource of the real API server', async () => {
    await gadgets.create({ apiVersion: 'extra.test.kubeloop.dev/v1', kind: 'Gadget', metadata: { name: 'g1', namespace: NS }, spec: { size: 1 } });
    await waitFor(async () => (await gadgets.get({ namespace: NS, name: 'g1' })).status?.conditions?.[0]?.status === 'True', { what: 'Ready condition saved' });
    const saved = await gadgets.get({ namespace: NS, name: 'g1' });
    assert.deepEqual(saved.status, { conditions: [{ type: 'Ready', status: 'True' }] });
    assert.deepEqual(saved.metadata.finalizers, [FINALIZER]);
    assert.equal(saved.metadata.generation, 1, 'a status write is not a spec change');
  });
});
