/**
 * The Website operator against the embedded API server with the test kit, in a simulated cluster:
 * Deployments make ReplicaSets and Pods that simulated Nodes run, on a virtual clock the test moves
 * (`advanceSimulation`). Children owned and garbage-collected; Ready only once the Deployment is rolled
 * out; Degraded with the reason when its Pods cannot pull their image; the DNS record withdrawn exactly
 * once through the finalizer; convergence through a seeded fault schedule with a server restart. The
 * test never writes a status: what it asserts is what the simulated cluster and the operator did.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeploymentKind, ServiceKind, isNotFound } from '@kubeloop/resource';
import type { Deployment } from '@kubeloop/resource';
import { JitteredExponentialBackoff, ReconcileAction, exponentialBackoffRetryPolicy, noopLogger } from '@kubeloop/operator';
import { VirtualClock, advanceSimulation, eventually, faultSchedule, runController, startTestEnv } from '@kubeloop/apiserver/testing';
import type { StopController, TestEnv } from '@kubeloop/apiserver/testing';
import { DnsRecords } from './dns-records.js';
import { WebsiteCrd, WebsiteKind } from './website.js';
import type { Website, WebsiteSpec } from './website.js';
import { WEBSITE_FINALIZER, createWebsiteOperator } from './website-operator.js';
import { isReady } from './website-reconciler.js';

describe('the Website operator', () => {
  let env: TestEnv;
  let stop: StopController;
  let dir: string;
  let records: DnsRecords;
  /** Simulated time: Pods start and become Ready only when the test moves it. */
  const clock = new VirtualClock(Date.now());
  /** uid -> times the DNS record was withdrawn for it. */
  const withdrawn = new Map<string, number>();
  /** name -> reconciles of the Website that applied its children. */
  const applied = new Map<string, number>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubeloop-website-'));
    records = new DnsRecords(join(dir, 'records'));
    env = await startTestEnv({ crds: [WebsiteCrd], namespaces: ['web'], persistent: true, simulate: { clock } });
    const operator = createWebsiteOperator({
      transport: env.transport,
      recordsDir: records.dir,
      namespace: 'web',
      retryPolicy: exponentialBackoffRetryPolicy(50, 10),
      informerBackoff: new JitteredExponentialBackoff({ initialMs: 20, maxMs: 500 }),
      logger: noopLogger,
      onReconciled: (website, action) => {
        if (action === ReconcileAction.Deleted) withdrawn.set(website.metadata.uid ?? '', (withdrawn.get(website.metadata.uid ?? '') ?? 0) + 1);
        else applied.set(website.metadata.name, (applied.get(website.metadata.name) ?? 0) + 1);
      },
    });
    stop = runController(operator);
  });

  after(async () => {
    await stop();
    await env.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const website = (name: string, spec: WebsiteSpec): Website => ({ apiVersion: WebsiteKind.apiVersion, kind: WebsiteKind.kind, metadata: { name, namespace: 'web' }, spec });

  /** Moves simulated time: Pods pull their images (1 s), run and become Ready. */
  const passTime = (ms = 5_000): Promise<void> => advanceSimulation(env, clock, ms);

  const condition = (w: Website, type: string): { status: string; reason?: string; message?: string } | undefined => w.status?.conditions?.find((c) => c.type === type);

  test('a Website gets its DNS record, a Deployment and a Service it owns, and is Ready only once the Deployment is rolled out', async () => {
    const websites = env.client(WebsiteKind);
    const created = await websites.create(website('shop', { image: 'shop:1', replicas: 2, hostname: 'shop.example.com' }));

    const deployment: Deployment = await eventually(() => env.client(DeploymentKind).get({ namespace: 'web', name: 'shop' }));
    assert.deepEqual(deployment.spec?.template.spec?.containers.map((c) => c.image), ['shop:1']);
    assert.equal(deployment.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
    const service = await eventually(() => env.client(ServiceKind).get({ namespace: 'web', name: 'shop' }));
    assert.deepEqual(service.spec?.ports?.map((p) => [p.port, p.targetPort]), [[80, 'http']]);
    assert.deepEqual(await eventually(() => records.get('shop.example.com').then((r) => r ?? Promise.reject(new Error('no record')))), {
      hostname: 'shop.example.com',
      target: 'shop.web.svc',
      owner: created.metadata.uid,
    });
    const waiting = await eventually(async () => {
      const w = await websites.get({ namespace: 'web', name: 'shop' });
      assert.equal(condition(w, 'Ready')?.reason, 'WaitingForRollout');
      return w;
    });
    assert.ok(waiting.metadata.finalizers?.includes(WEBSITE_FINALIZER));
    assert.equal(condition(waiting, 'Degraded')?.status, 'False');
    const notYet = await env.client(DeploymentKind).get({ namespace: 'web', name: 'shop' });
    assert.notEqual(notYet.status?.availableReplicas, 2, 'no simulated time has passed: no Pod runs yet');

    // Only the simulated cluster moves: the Deployment's status changes, `owns` reconciles the Website.
    await passTime();
    const ready = await eventually(async () => {
      const w = await websites.get({ namespace: 'web', name: 'shop' });
      assert.ok(isReady(w), 'Ready');
      return w;
    });
    assert.equal(condition(ready, 'Ready')?.message, '2 of 2 replicas available');
    const rolledOut = await env.client(DeploymentKind).get({ namespace: 'web', name: 'shop' });
    assert.equal(rolledOut.status?.availableReplicas, 2);
    assert.equal(rolledOut.status?.conditions?.find((c) => c.type === 'Available')?.status, 'True');
  });

  test('a Website whose image cannot be pulled reports Degraded with the reason, and recovers with a good image', async () => {
    const websites = env.client(WebsiteKind);
    const fault = env.faults.imagePullFailure({ image: 'shop:broken' });
    try {
      await websites.create(website('broken', { image: 'shop:broken', replicas: 1, hostname: 'broken.example.com' }));
      await eventually(() => env.client(DeploymentKind).get({ namespace: 'web', name: 'broken' }));
      await passTime();
      const degraded = await eventually(async () => {
        const w = await websites.get({ namespace: 'web', name: 'broken' });
        assert.equal(condition(w, 'Degraded')?.status, 'True', JSON.stringify(w.status));
        return w;
      });
      assert.match(condition(degraded, 'Degraded')?.reason ?? '', /^(ErrImagePull|ImagePullBackOff)$/);
      assert.match(condition(degraded, 'Degraded')?.message ?? '', /^pod broken-[a-z0-9]+-[a-z0-9]{5}, container web: .*shop:broken/);
      assert.equal(condition(degraded, 'Ready')?.status, 'False');
    } finally {
      fault.clear();
    }
    await websites.patch({ namespace: 'web', name: 'broken' }, { merge: { spec: { image: 'shop:2' } } });
    await eventually(async () => {
      await passTime();
      const w = await websites.get({ namespace: 'web', name: 'broken' });
      assert.ok(isReady(w), JSON.stringify(w.status));
      assert.equal(condition(w, 'Degraded')?.status, 'False');
    });
  });

  test('re-applying unchanged children changes nothing: the Deployment and the Service keep their resourceVersions', async () => {
    const websites = env.client(WebsiteKind);
    await websites.create(website('blog', { image: 'blog:1', replicas: 1, hostname: 'blog.example.com' }));
    await eventually(() => env.client(DeploymentKind).get({ namespace: 'web', name: 'blog' }));
    await passTime();
    await eventually(async () => assert.ok(isReady(await websites.get({ namespace: 'web', name: 'blog' }))));
    const deploymentBefore = await env.client(DeploymentKind).get({ namespace: 'web', name: 'blog' });
    const serviceBefore = await env.client(ServiceKind).get({ namespace: 'web', name: 'blog' });
    // A label on the Website: a reconcile that applies the same Deployment and Service again.
    const reconciles = applied.get('blog') ?? 0;
    await websites.patch({ namespace: 'web', name: 'blog' }, { merge: { metadata: { labels: { team: 'content' } } } });
    await eventually(() => assert.ok((applied.get('blog') ?? 0) > reconciles, 'the label was reconciled'));
    assert.equal((await env.client(DeploymentKind).get({ namespace: 'web', name: 'blog' })).metadata.resourceVersion, deploymentBefore.metadata.resourceVersion);
    assert.equal((await env.client(ServiceKind).get({ namespace: 'web', name: 'blog' })).metadata.resourceVersion, serviceBefore.metadata.resourceVersion);

    await websites.patch({ namespace: 'web', name: 'blog' }, { merge: { spec: { image: 'blog:2' } } });
    await eventually(async () => {
      const after = await env.client(DeploymentKind).get({ namespace: 'web', name: 'blog' });
      assert.deepEqual(after.spec?.template.spec?.containers.map((c) => c.image), ['blog:2']);
      assert.equal(Number(after.metadata.generation), Number(deploymentBefore.metadata.generation) + 1);
    });
  });

  test('deleting a Website withdraws its DNS record once, then the finalizer goes and the children are garbage-collected', async () => {
    const websites = env.client(WebsiteKind);
    const created = await websites.create(website('old', { image: 'old:1', replicas: 1, hostname: 'old.example.com' }));
    await eventually(async () => assert.ok(await records.get('old.example.com')));
    await eventually(() => env.client(DeploymentKind).get({ namespace: 'web', name: 'old' }));
    await websites.delete({ namespace: 'web', name: 'old' });
    await eventually(async () => {
      await assert.rejects(websites.get({ namespace: 'web', name: 'old' }), isNotFound);
      await assert.rejects(env.client(DeploymentKind).get({ namespace: 'web', name: 'old' }), isNotFound);
      await assert.rejects(env.client(ServiceKind).get({ namespace: 'web', name: 'old' }), isNotFound);
      assert.equal(await records.get('old.example.com'), undefined);
    });
    assert.equal(withdrawn.get(created.metadata.uid ?? ''), 1);
  });

  test('it converges through a seeded fault schedule with a server restart', async () => {
    const websites = env.client(WebsiteKind);
    const names = ['alpha', 'beta', 'gamma'];
    const schedule = faultSchedule({
      seed: Number(process.env['FAULT_SEED'] ?? 2207),
      count: 10,
      kinds: ['dropWatches', 'compact', 'failNext', 'latency', 'restart'],
      resources: ['websites', 'deployments', 'services'],
    });
    await env.runFaultSchedule(schedule, {
      between: async ({ rng }) => {
        const name = rng.pick(names);
        const image = `${name}:${rng.int(1, 9)}`;
        try {
          await websites.patch({ namespace: 'web', name }, { merge: { spec: { image } } });
        } catch (error) {
          if (!isNotFound(error)) throw error;
          await websites.create(website(name, { image, replicas: 1, hostname: `${name}.example.com` }));
        }
      },
    });
    await env.converge(
      async () => {
        for (const name of names) {
          const site = await websites.get({ namespace: 'web', name }).catch(() => undefined);
          if (site === undefined) continue;
          await passTime(2_000);
          const deployment = await env.client(DeploymentKind).get({ namespace: 'web', name });
          assert.deepEqual(deployment.spec?.template.spec?.containers.map((c) => c.image), [site.spec?.image]);
          assert.equal((await records.get(`${name}.example.com`))?.owner, site.metadata.uid);
          assert.ok(isReady(await websites.get({ namespace: 'web', name })), `${name} Ready`);
        }
      },
      { timeoutMs: 30_000, what: 'every Website with its Deployment, its DNS record and Ready' },
    );
  });
});
