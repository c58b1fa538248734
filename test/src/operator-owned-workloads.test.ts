/**
 * An operator that owns a Deployment and a Service, tested against the embedded API server the
 * way Go operators are tested against envtest: a Widget's reconciler server-side-applies a
 * Deployment (replicas from the Widget) and a Service, both owned by the Widget; the test plays
 * the Deployment controller (none runs here) by writing the Deployment's status, which the
 * reconciler copies into the Widget's status; deleting the Widget garbage-collects both.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, runController, startTestEnv } from '@kubeloop/apiserver/testing';
import type { StopController, TestEnv } from '@kubeloop/apiserver/testing';
import { defineKindFor, isNotFound } from '@kubeloop/resource';
import type { Client, KubeObject } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, SimpleReconciler } from '@kubeloop/operator';
import { testCrd } from './support/crd.js';

type Widget = KubeObject<{ size: number; image: string }, { readyReplicas?: number }>;
type Deployment = KubeObject<{ replicas?: number }, { readyReplicas?: number; observedGeneration?: number }>;
type Service = KubeObject<{ clusterIP?: string; ports?: { port: number }[] }>;

const WidgetKind = defineKindFor<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget' });
const DeploymentKind = defineKindFor<Deployment>({ group: 'apps', version: 'v1', kind: 'Deployment' });
const ServiceKind = defineKindFor<Service>({ group: '', version: 'v1', kind: 'Service' });
const manager = 'widget-operator';

/** What the operator owns for a Widget: applied with force, as operators using server-side apply do. */
async function reconcileWidget(widget: Widget, clients: { widgets: Client<Widget>; deployments: Client<Deployment>; services: Client<Service> }): Promise<void> {
  const { name, namespace = 'default', uid = '' } = widget.metadata;
  const owner = { apiVersion: 'example.com/v1', kind: 'Widget', name, uid, controller: true, blockOwnerDeletion: true };
  const labels = { app: name };
  await clients.deployments.patch(
    { namespace, name },
    {
      fieldManager: manager,
      force: true,
      apply: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace, labels, ownerReferences: [owner] },
        spec: {
          replicas: widget.spec?.size ?? 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: widget.spec?.image ?? 'nginx', ports: [{ containerPort: 8080 }] }] } },
        },
      },
    },
  );
  await clients.services.patch(
    { namespace, name },
    {
      fieldManager: manager,
      force: true,
      apply: { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, ownerReferences: [owner] }, spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] } },
    },
  );
  const deployment = await clients.deployments.get({ namespace, name });
  const ready = deployment.status?.readyReplicas ?? 0;
  if (widget.status?.readyReplicas !== ready) await clients.widgets.updateStatus({ ...widget, status: { readyReplicas: ready } });
}

const widgetCrd = testCrd({ group: 'example.com', kind: 'Widget', spec: { size: { type: 'integer' }, image: { type: 'string' } }, status: { readyReplicas: { type: 'integer' } } });

/** The operator: Widgets, and the Deployments they own (a Deployment's status change reconciles its Widget). */
function widgetOperator(clients: { widgets: Client<Widget>; deployments: Client<Deployment>; services: Client<Service> }): Operator {
  const controller = new InformerController();
  controller.addInformer(new KubernetesBasedInformer(WidgetKind, clients.widgets, 'default'), 'widgets');
  controller.addInformer(new KubernetesBasedInformer(DeploymentKind, clients.deployments, 'default'), 'deployments');
  controller.addReconciler(new SimpleReconciler<Widget>({ reconcileFunc: async (_ctx, { object }) => (await reconcileWidget(object, clients), {}) }), 'widgets');
  controller.addReconciler(
    new SimpleReconciler<Deployment>({
      reconcileFunc: async (_ctx, { object }) => {
        const ownerName = object.metadata.ownerReferences?.find((r) => r.kind === 'Widget')?.name;
        if (ownerName === undefined) return {};
        try {
          await reconcileWidget(await clients.widgets.get({ namespace: 'default', name: ownerName }), clients);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        return {};
      },
    }),
    'deployments',
  );
  const operator = new Operator();
  operator.addController(controller);
  return operator;
}

describe('an operator owning a Deployment and a Service', { timeout: 60_000 }, () => {
  let env: TestEnv;
  let stopOperator: StopController;
  let widgets: Client<Widget>;
  let deployments: Client<Deployment>;
  let services: Client<Service>;

  before(async () => {
    env = await startTestEnv({ crds: [widgetCrd] });
    widgets = env.client(WidgetKind);
    deployments = env.client(DeploymentKind);
    services = env.client(ServiceKind);
    stopOperator = runController(widgetOperator({ widgets, deployments, services }));
  });

  after(async () => {
    await stopOperator();
    await env.stop();
  });

  test('a Widget gets an owned Deployment with its size and an owned Service', async () => {
    const widget = await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'shop', namespace: 'default' }, spec: { size: 2, image: 'shop:1' } });
    const deployment = await eventually(() => deployments.get({ namespace: 'default', name: 'shop' }), { what: 'the owned Deployment' });
    assert.equal(deployment.spec?.replicas, 2);
    assert.deepEqual(deployment.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]), [['Widget', widget.metadata.uid, true]]);
    assert.ok(deployment.metadata.managedFields?.some((e) => e.manager === manager && e.operation === 'Apply'));
    const service = await eventually(() => services.get({ namespace: 'default', name: 'shop' }), { what: 'the owned Service' });
    assert.match(service.spec?.clusterIP ?? '', /^10\./);
  });

  test('changing the Widget changes the Deployment; the Deployment status reaches the Widget', async () => {
    // A merge patch: the operator writes the Widget's status meanwhile, which would fail a get-then-update.
    await widgets.patch({ namespace: 'default', name: 'shop' }, { merge: { spec: { size: 3, image: 'shop:2' } } });
    await eventually(async () => assert.equal((await deployments.get({ namespace: 'default', name: 'shop' })).spec?.replicas, 3), { what: 'replicas 3' });
    // Playing the Deployment controller: no controller runs in the embedded server.
    await deployments.patch({ namespace: 'default', name: 'shop' }, { merge: { status: { readyReplicas: 3, observedGeneration: 2 } } }, { subresource: 'status' });
    await eventually(async () => assert.equal((await widgets.get({ namespace: 'default', name: 'shop' })).status?.readyReplicas, 3), { what: "the Widget's readyReplicas" });
  });

  test('deleting the Widget garbage-collects its Deployment and Service', async () => {
    await widgets.delete({ namespace: 'default', name: 'shop' });
    for (const client of [deployments, services] as Client<KubeObject>[]) {
      await eventually(
        async () => {
          try {
            await client.get({ namespace: 'default', name: 'shop' });
          } catch (err) {
            if (isNotFound(err)) return;
            throw err;
          }
          assert.fail('still there');
        },
        { what: 'an owned object to be collected' },
      );
    }
  });
});
