/**
 * `owns` and `watches` on the core InformerController over real HTTP against the embedded API server:
 * a Website operator whose reconciler never maps a child to its owner. Its Deployment (owned, with a
 * controller reference) and its ConfigMap (found by a label, through `watches`) reconcile the Website
 * when they change; every informer comes from one SharedInformerFactory, and a second controller
 * reading Deployments shares the Deployment list and watch with `owns`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestEnv } from '@kubeloop/apiserver/testing';
import type { TestEnv } from '@kubeloop/apiserver/testing';
import { ConfigMapKind, defineKindFor, isAlreadyExists, isNotFound } from '@kubeloop/resource';
import type { Client, ConfigMap, KubeObject } from '@kubeloop/resource';
import { InformerController, InformerMetrics, ReconcileAction, SharedInformerFactory, SimpleReconciler, newOpinionatedReconciler, noopLogger } from '@kubeloop/operator';
import type { Informer } from '@kubeloop/operator';
import { testCrd } from './support/crd.js';

type Website = KubeObject<{ replicas: number }, { readyReplicas?: number; motd?: string }>;
type Deployment = KubeObject<{ replicas?: number; selector?: unknown; template?: unknown }, { readyReplicas?: number }>;

const WebsiteKind = defineKindFor<Website>({ group: 'example.com', version: 'v1', kind: 'Website' });
const DeploymentKind = defineKindFor<Deployment>({ group: 'apps', version: 'v1', kind: 'Deployment' });
const websiteCrd = testCrd({ group: 'example.com', kind: 'Website', spec: { replicas: { type: 'integer' } }, status: { readyReplicas: { type: 'integer' }, motd: { type: 'string' } } });
const FINALIZER = 'example.com/website';

interface Handles {
  deployments: Informer<Deployment>;
  configMaps: Informer<ConfigMap>;
}

/**
 * The Website reconciler: the Deployment it owns (created when missing, its replicas kept), and the
 * Website's status from the Deployment's status and the `motd` of the ConfigMap labelled with its name,
 * both read from the informers' caches. Nothing here finds an owner: `owns` and `watches` do.
 */
async function reconcileWebsite(website: Website, clients: { websites: Client<Website>; deployments: Client<Deployment> }, caches: Handles): Promise<void> {
  const { name, namespace = 'default', uid = '' } = website.metadata;
  const labels = { app: name };
  const deployment = caches.deployments.store.get(`${namespace}/${name}`);
  if (deployment === undefined) {
    try {
      await clients.deployments.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace, labels, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Website', name, uid, controller: true, blockOwnerDeletion: true }] },
        spec: { replicas: website.spec?.replicas ?? 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
      });
    } catch (err) {
      // The cache had not seen it yet: its event will reconcile again.
      if (!isAlreadyExists(err)) throw err;
    }
  } else if (deployment.spec?.replicas !== website.spec?.replicas) {
    await clients.deployments.patch({ namespace, name }, { merge: { spec: { replicas: website.spec?.replicas } } });
  }
  const motd = [...caches.configMaps.store.values()].find((cm) => cm.metadata.labels?.['website'] === name)?.data?.['motd'];
  const status = { readyReplicas: deployment?.status?.readyReplicas ?? 0, ...(motd !== undefined ? { motd } : {}) };
  if (website.status?.readyReplicas !== status.readyReplicas || website.status?.motd !== status.motd) {
    await clients.websites.patch({ namespace, name }, { merge: { status } }, { subresource: 'status' });
  }
}

describe('owns and watches on the core controller (real HTTP, shared informers)', { timeout: 60_000 }, () => {
  let env: TestEnv;
  let websites: Client<Website>;
  let deployments: Client<Deployment>;
  let configMaps: Client<ConfigMap>;
  const metrics = new InformerMetrics();
  const actions: string[] = [];
  const deploymentEvents: string[] = [];
  const stop = new AbortController();
  const runs: Promise<void>[] = [];

  before(async () => {
    env = await startTestEnv({ crds: [websiteCrd] });
    websites = env.client(WebsiteKind);
    deployments = env.client(DeploymentKind);
    configMaps = env.client(ConfigMapKind);
    const factory = new SharedInformerFactory({ transport: env.transport, informerOptions: { logger: noopLogger, metrics } });
    const scope = { namespace: 'default' };
    const caches: Handles = { deployments: factory.informerFor(DeploymentKind, scope), configMaps: factory.informerFor(ConfigMapKind, scope) };

    const controller = new InformerController({ logger: noopLogger });
    controller.addInformer(factory.informerFor(WebsiteKind, scope), WebsiteKind);
    const opinionated = newOpinionatedReconciler<Website>(websites, FINALIZER, { finalizerFirst: true });
    opinionated.wrap(
      new SimpleReconciler<Website>({
        reconcileFunc: async (_ctx, { action, object }) => {
          actions.push(`${ReconcileAction[action]} ${object.metadata.name}`);
          if (action !== ReconcileAction.Deleted) await reconcileWebsite(object, { websites, deployments }, caches);
          return {};
        },
      }),
    );
    controller.addReconciler(opinionated, WebsiteKind);
    controller.owns(caches.deployments, { primary: WebsiteKind });
    controller.watches(caches.configMaps, {
      primary: WebsiteKind,
      map: (cm) => {
        const website = cm.metadata.labels?.['website'];
        return website === undefined ? [] : [{ namespace: cm.metadata.namespace ?? '', name: website }];
      },
    });

    // Another controller of the process reads Deployments too: the factory gives it the same list and watch.
    const other = new InformerController({ logger: noopLogger });
    other.addInformer(factory.informerFor(DeploymentKind, scope), DeploymentKind);
    other.addReconciler(new SimpleReconciler<Deployment>({ reconcileFunc: async (_ctx, { action, object }) => (deploymentEvents.push(`${ReconcileAction[action]} ${object.metadata.name}`), {}) }), DeploymentKind);

    runs.push(controller.run(stop.signal), other.run(stop.signal));
  });

  after(async () => {
    stop.abort();
    await Promise.all(runs);
    await env.stop();
  });

  const website = (): Promise<Website> => websites.get({ namespace: 'default', name: 'shop' });

  test('a Website gets its finalizer and an owned Deployment', async () => {
    await websites.create({ apiVersion: 'example.com/v1', kind: 'Website', metadata: { name: 'shop', namespace: 'default' }, spec: { replicas: 2 } });
    const deployment = await eventually(() => deployments.get({ namespace: 'default', name: 'shop' }), { what: 'the owned Deployment' });
    assert.equal(deployment.spec?.replicas, 2);
    assert.deepEqual(deployment.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]), [['Website', 'shop', true]]);
    assert.deepEqual((await website()).metadata.finalizers, [FINALIZER]);
  });

  test("owns: the Deployment's status change reconciles the Website (a resync), which copies it", async () => {
    const resyncsBefore = actions.filter((a) => a === 'Resynced shop').length;
    await deployments.patch({ namespace: 'default', name: 'shop' }, { merge: { status: { readyReplicas: 2 } } }, { subresource: 'status' });
    await eventually(async () => assert.equal((await website()).status?.readyReplicas, 2), { what: "the Website's readyReplicas" });
    assert.ok(actions.filter((a) => a === 'Resynced shop').length > resyncsBefore, `a Resynced reconcile of the Website; reconciles: ${actions.join(', ')}`);
  });

  test('owns: a Deployment deleted by hand is created again by its owner', async () => {
    const old = await deployments.get({ namespace: 'default', name: 'shop' });
    await deployments.delete({ namespace: 'default', name: 'shop' });
    await eventually(
      async () => {
        const again = await deployments.get({ namespace: 'default', name: 'shop' });
        assert.notEqual(again.metadata.uid, old.metadata.uid);
      },
      { what: 'a new Deployment' },
    );
  });

  test('watches: a ConfigMap labelled with the Website reconciles it', async () => {
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop-motd', namespace: 'default', labels: { website: 'shop' } }, data: { motd: 'hello' } });
    await eventually(async () => assert.equal((await website()).status?.motd, 'hello'), { what: "the Website's motd" });
    await configMaps.patch({ namespace: 'default', name: 'shop-motd' }, { merge: { data: { motd: 'welcome' } } });
    await eventually(async () => assert.equal((await website()).status?.motd, 'welcome'), { what: "the Website's new motd" });
  });

  test('one list of Deployments served owns and the other controller, which saw every Deployment', async () => {
    const relists = (await metrics.relistsTotal.get()).values.filter((v) => v.labels['kind'] === 'Deployment').reduce((sum, v) => sum + v.value, 0);
    assert.equal(relists, 1);
    assert.ok(deploymentEvents.includes('Created shop'), deploymentEvents.join(', '));
    assert.ok(deploymentEvents.includes('Deleted shop'), deploymentEvents.join(', '));
  });

  test('deleting the Website: the finalizer logic is unchanged (one Deleted, then the Website is gone)', async () => {
    await websites.delete({ namespace: 'default', name: 'shop' });
    await eventually(
      async () => {
        try {
          await website();
        } catch (err) {
          if (isNotFound(err)) return;
          throw err;
        }
        assert.fail('still there');
      },
      { what: 'the Website to go' },
    );
    assert.equal(actions.filter((a) => a === 'Deleted shop').length, 1, actions.join(', '));
  });
});
