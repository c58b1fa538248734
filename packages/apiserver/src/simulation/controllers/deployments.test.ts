import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, Pod, ReplicaSet, V1DeploymentCondition } from '@kubeloop/resource';
import { eventually } from '../../testing/eventually.js';
import { RawWatch } from '../../testing/test-client.js';
import type { ReceivedEvent } from '../../testing/test-client.js';
import { SimulatedCluster } from './simulated-cluster.test-helper.js';

const ns = 'default';
const deploymentsPath = `/apis/apps/v1/namespaces/${ns}/deployments`;
const rsPath = `/apis/apps/v1/namespaces/${ns}/replicasets`;
const podsPath = `/api/v1/namespaces/${ns}/pods`;
const mergePatch = 'application/merge-patch+json';

function deployment(name: string, spec: Partial<NonNullable<Deployment['spec']>> & { image?: string } = {}): Deployment {
  const { image = 'nginx:1.27', ...rest } = spec;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
      ...rest,
    },
  };
}

/** Conditions without their times, in their order. */
function conditions(d: Deployment): Omit<V1DeploymentCondition, 'lastUpdateTime' | 'lastTransitionTime'>[] {
  return (d.status?.conditions ?? []).map(({ type, status, reason, message }) => ({ type, status, reason, message }));
}

const isActive = (pod: Pod): boolean => !pod.metadata.deletionTimestamp;

/** The Pods after `listed` and each watch event, `check`ed with the active ones after every event. */
function replay(listed: readonly Pod[], events: readonly ReceivedEvent[], check: (active: Pod[]) => void): Map<string, Pod> {
  const pods = new Map(listed.map((p) => [p.metadata.name, p]));
  for (const event of events) {
    const pod = event.object as Pod;
    if (event.type === 'DELETED') pods.delete(pod.metadata.name);
    else pods.set(pod.metadata.name, pod);
    check([...pods.values()].filter(isActive));
  }
  return pods;
}
const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe('simulated Deployment controller', () => {
  let cluster: SimulatedCluster;
  before(async () => {
    cluster = await SimulatedCluster.start();
  });
  after(() => cluster.stop());

  const get = (name: string): Promise<Deployment> => cluster.ok<Deployment>('GET', `${deploymentsPath}/${name}`);
  const replicaSetsOf = async (d: Deployment): Promise<ReplicaSet[]> =>
    (await cluster.list<ReplicaSet>(rsPath)).filter((rs) => rs.metadata.ownerReferences?.some((r) => r.uid === d.metadata.uid && r.controller));
  const podsLabelled = async (app: string): Promise<Pod[]> => cluster.list<Pod>(`${podsPath}?labelSelector=app%3D${app}`);
  const podsOf = async (rs: ReplicaSet): Promise<Pod[]> => (await podsLabelled(rs.metadata.labels!['app']!)).filter((p) => p.metadata.ownerReferences?.[0]?.uid === rs.metadata.uid);
  const readyAll = async (app: string): Promise<void> => {
    for (const pod of await podsLabelled(app)) if (!isReady(pod)) await cluster.markReady(ns, pod.metadata.name);
    await cluster.settle();
  };

  test('a Deployment of 3 makes a ReplicaSet <name>-<pod-template-hash> with its revision, and 3 Pods', async () => {
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('web'));
    await cluster.settle();
    const [rs, ...others] = await replicaSetsOf(created);
    assert.equal(others.length, 0);
    const hash = rs!.metadata.labels!['pod-template-hash']!;
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rs!.metadata.name, `web-${hash}`);
    assert.deepEqual(rs!.metadata.labels, { app: 'web', 'pod-template-hash': hash });
    assert.deepEqual(rs!.spec?.selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
    assert.deepEqual(rs!.spec?.template?.metadata?.labels, { app: 'web', 'pod-template-hash': hash });
    assert.equal(rs!.spec?.replicas, 3);
    assert.deepEqual(rs!.metadata.annotations, {
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    assert.deepEqual(rs!.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    const pods = await podsOf(rs!);
    assert.equal(pods.length, 3);
    for (const pod of pods) assert.match(pod.metadata.name, new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    const d = await get('web');
    assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.equal(d.metadata.generation, 1, 'the revision annotation is metadata: no new generation');
    assert.deepEqual({ ...d.status, conditions: undefined }, { observedGeneration: 1, replicas: 3, updatedReplicas: 3, unavailableReplicas: 3, conditions: undefined });
    assert.deepEqual(conditions(d), [
      { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
      { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "web-${hash}" is progressing.` },
    ]);
  });

  test('once its Pods are Ready the Deployment is Available and its rollout complete', async () => {
    await readyAll('web');
    const d = await get('web');
    const [rs] = await replicaSetsOf(d);
    assert.deepEqual({ ...d.status, conditions: undefined }, { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: undefined });
    assert.deepEqual(conditions(d), [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs!.metadata.name}" has successfully progressed.` },
    ]);
  });

  test('a template change rolls out within maxSurge 1 and maxUnavailable 1 at every Pod event, step by step', async () => {
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('roll', { replicas: 4, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } }));
    await cluster.settle();
    await readyAll('roll');
    const listed = await cluster.ok<{ metadata: { resourceVersion: string }; items: Pod[] }>('GET', `${podsPath}?labelSelector=app%3Droll`);
    const watch = new RawWatch(`${cluster.server.url}${podsPath}?watch=1&labelSelector=app%3Droll&resourceVersion=${listed.metadata.resourceVersion}`);
    try {
      await watch.ready();
      const [oldRs] = await replicaSetsOf(created);
      await cluster.ok('PATCH', `${deploymentsPath}/roll`, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } }, 'application/strategic-merge-patch+json');
      await cluster.settle();
      const counts = async (): Promise<{ old: number; new: number; ready: number }> => {
        const all = (await replicaSetsOf(created)).filter((rs) => rs.metadata.uid !== oldRs!.metadata.uid);
        assert.equal(all.length, 1, 'one new ReplicaSet');
        const active = (await podsLabelled('roll')).filter(isActive);
        const owned = (rs: ReplicaSet): Pod[] => active.filter((p) => p.metadata.ownerReferences?.[0]?.uid === rs.metadata.uid);
        return { old: owned(oldRs!).length, new: owned(all[0]!).length, ready: active.filter(isReady).length };
      };
      const steps = [await counts()];
      for (let i = 0; i < 5 && (steps.at(-1)!.old > 0 || steps.at(-1)!.ready < 4); i++) {
        await readyAll('roll');
        steps.push(await counts());
      }
      // desired 4 + surge 1: the new ReplicaSet grows to 2 at once (5 Pods, 3 ready old ones); each batch
      // of new Pods made Ready lets the old ReplicaSet shrink by as many and the new one grow.
      assert.deepEqual(steps, [
        { old: 3, new: 2, ready: 3 },
        { old: 1, new: 4, ready: 3 },
        { old: 0, new: 4, ready: 4 },
      ]);
      // Every Pod event of the rollout, replayed from the list before it: never more than 5 Pods, never fewer than 3 ready.
      const final = (await podsLabelled('roll')).map((p) => p.metadata.name).sort();
      await eventually(() => assert.deepEqual([...replay(listed.items, watch.changes, () => {}).keys()].sort(), final), { what: 'the watch to catch up' });
      let events = 0;
      replay(listed.items, watch.changes, (active) => {
        assert.ok(active.length <= 5, `after event ${events}: ${active.length} Pods`);
        assert.ok(active.filter(isReady).length >= 3, `after event ${events}: ${active.filter(isReady).length} ready`);
        events++;
      });
      assert.ok(events > 10, `${events} events`);
    } finally {
      watch.close();
    }
    const d = await get('roll');
    assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    assert.deepEqual({ ...d.status, conditions: undefined }, { observedGeneration: 2, replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4, conditions: undefined });
  });

  test('scaling up adds Pods to the ReplicaSet; scaling down removes the not-ready ones first', async () => {
    const d = await get('web');
    const [rs] = await replicaSetsOf(d);
    const readyBefore = (await podsOf(rs!)).map((p) => p.metadata.name).sort();
    await cluster.ok('PATCH', `${deploymentsPath}/web/scale`, { spec: { replicas: 5 } }, mergePatch);
    await cluster.settle();
    let scaled = (await replicaSetsOf(d))[0]!;
    assert.equal(scaled.metadata.name, rs!.metadata.name, 'a resize makes no new ReplicaSet');
    assert.equal(scaled.spec?.replicas, 5);
    assert.equal(scaled.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '5');
    assert.equal(scaled.metadata.annotations?.['deployment.kubernetes.io/max-replicas'], '7');
    assert.equal((await podsOf(scaled)).length, 5);
    let status = (await get('web')).status;
    assert.deepEqual([status?.replicas, status?.availableReplicas, status?.unavailableReplicas], [5, 3, 2]);
    assert.equal(status?.conditions?.find((c) => c.type === 'Available')?.status, 'False', '3 available of 5 with maxUnavailable 25% (1)');
    await cluster.ok('PATCH', `${deploymentsPath}/web/scale`, { spec: { replicas: 2 } }, mergePatch);
    await cluster.settle();
    scaled = (await replicaSetsOf(d))[0]!;
    assert.equal(scaled.spec?.replicas, 2);
    const left = (await podsOf(scaled)).map((p) => p.metadata.name);
    assert.equal(left.length, 2);
    for (const name of left) assert.ok(readyBefore.includes(name), `${name} is one of the ready Pods`);
    status = (await get('web')).status;
    assert.deepEqual([status?.replicas, status?.readyReplicas, status?.availableReplicas, status?.unavailableReplicas], [2, 2, 2, undefined]);
    assert.equal(status?.conditions?.find((c) => c.type === 'Available')?.status, 'True');
  });

  test('Pods that never become Ready exceed the progress deadline, on the simulation clock; Ready Pods complete it after', async () => {
    await cluster.ok('POST', deploymentsPath, deployment('stuck', { replicas: 2, progressDeadlineSeconds: 30 }));
    await cluster.settle();
    const progressing = async (): Promise<V1DeploymentCondition | undefined> => (await get('stuck')).status?.conditions?.find((c) => c.type === 'Progressing');
    assert.equal((await progressing())?.reason, 'ReplicaSetUpdated');
    await cluster.advance(30_000);
    assert.equal((await progressing())?.reason, 'ReplicaSetUpdated', 'the deadline is not passed at exactly 30 s');
    await cluster.advance(1_000);
    const [rs] = await replicaSetsOf(await get('stuck'));
    assert.deepEqual(conditions(await get('stuck')), [
      { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
      { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rs!.metadata.name}" has timed out progressing.` },
    ]);
    await readyAll('stuck');
    assert.equal((await progressing())?.reason, 'NewReplicaSetAvailable');
  });

  test('Recreate scales the old ReplicaSet to 0 and makes new Pods only once the old ones are gone, terminating ones too', async () => {
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('recreate', { replicas: 2, strategy: { type: 'Recreate' } }));
    await cluster.settle();
    await readyAll('recreate');
    const [oldRs] = await replicaSetsOf(created);
    const oldPods = await podsOf(oldRs!);
    // A finalizer keeps each old Pod terminating after its deletion, as a kubelet's grace period would.
    for (const pod of oldPods) await cluster.ok('PATCH', `${podsPath}/${pod.metadata.name}`, { metadata: { finalizers: ['example.com/hold'] } }, mergePatch);
    await cluster.ok('PATCH', `${deploymentsPath}/recreate`, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } }, 'application/strategic-merge-patch+json');
    await cluster.settle();
    const terminating = await podsLabelled('recreate');
    assert.deepEqual(terminating.map((p) => p.metadata.name).sort(), oldPods.map((p) => p.metadata.name).sort(), 'no new Pod while old ones terminate');
    assert.ok(terminating.every((p) => p.metadata.deletionTimestamp));
    assert.deepEqual((await replicaSetsOf(created)).map((rs) => [rs.metadata.name, rs.spec?.replicas]), [[oldRs!.metadata.name, 0]]);
    for (const pod of oldPods) await cluster.ok('PATCH', `${podsPath}/${pod.metadata.name}`, { metadata: { finalizers: null } }, mergePatch);
    await cluster.settle();
    const replicaSets = await replicaSetsOf(created);
    assert.equal(replicaSets.length, 2);
    const newRs = replicaSets.find((rs) => rs.metadata.uid !== oldRs!.metadata.uid)!;
    assert.equal(newRs.spec?.replicas, 2);
    assert.equal((await podsOf(newRs)).length, 2);
    assert.equal((await podsLabelled('recreate')).length, 2);
  });

  test('unavailable old replicas are scaled down first, no further than the new ReplicaSet\'s unavailable ones allow', async () => {
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('sick', { replicas: 4, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } }));
    await cluster.settle();
    const [oldRs] = await replicaSetsOf(created);
    const [a, b] = await podsOf(oldRs!);
    await cluster.markReady(ns, a!.metadata.name);
    await cluster.markReady(ns, b!.metadata.name);
    await cluster.settle();
    await cluster.ok('PATCH', `${deploymentsPath}/sick`, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } }, 'application/strategic-merge-patch+json');
    await cluster.settle();
    const sizes = (await replicaSetsOf(created)).map((rs) => ({ old: rs.metadata.uid === oldRs!.metadata.uid, replicas: rs.spec?.replicas })).sort((x, y) => Number(y.old) - Number(x.old));
    // 4 old (2 available), new 1: at most 5 - (4 - 1) - 1 = 1 old replica may go (an unavailable one); the new one then grows to 2.
    assert.deepEqual(sizes, [
      { old: true, replicas: 3 },
      { old: false, replicas: 2 },
    ]);
    const oldLeft = (await podsOf(oldRs!)).filter(isActive);
    assert.equal(oldLeft.filter(isReady).length, 2, 'both ready old Pods kept');
  });

  test('a resize in the middle of a rollout is shared among the ReplicaSets in proportion (max-replicas)', async () => {
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('prop', { replicas: 10, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }));
    await cluster.settle();
    await readyAll('prop');
    const [oldRs] = await replicaSetsOf(created);
    await cluster.ok('PATCH', `${deploymentsPath}/prop`, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } }, 'application/strategic-merge-patch+json');
    await cluster.settle();
    const sizes = async (): Promise<{ old: number | undefined; new: number | undefined; annotations: string[] }> => {
      const all = await replicaSetsOf(created);
      const old = all.find((rs) => rs.metadata.uid === oldRs!.metadata.uid)!;
      const next = all.find((rs) => rs.metadata.uid !== oldRs!.metadata.uid)!;
      const annotations = [old, next].map((rs) => `${rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas']}/${rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas']}`);
      return { old: old.spec?.replicas, new: next.spec?.replicas, annotations };
    };
    // 10 + surge 3: the new ReplicaSet gets 3, the old gives up 2 (10 ready, 2 may be unavailable), the new grows to 5.
    assert.deepEqual(await sizes(), { old: 8, new: 5, annotations: ['10/13', '10/13'] });
    await cluster.ok('PATCH', `${deploymentsPath}/prop/scale`, { spec: { replicas: 15 } }, mergePatch);
    await cluster.settle();
    // 5 more allowed (18 - 13): old round(8 * 18 / 13) - 8 = 3, new round(5 * 18 / 13) - 5 = 2.
    assert.deepEqual(await sizes(), { old: 11, new: 7, annotations: ['15/18', '15/18'] });
  });

  test('revisionHistoryLimit keeps that many old ReplicaSets, the newest revisions', async () => {
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('hist', { replicas: 1, revisionHistoryLimit: 1 }));
    await cluster.settle();
    await readyAll('hist');
    for (const image of ['nginx:2', 'nginx:3', 'nginx:4']) {
      await cluster.ok('PATCH', `${deploymentsPath}/hist`, { spec: { template: { spec: { containers: [{ name: 'web', image }] } } } }, 'application/strategic-merge-patch+json');
      await cluster.settle();
      await readyAll('hist');
    }
    const replicaSets = await replicaSetsOf(created);
    const summary = replicaSets
      .map((rs) => ({ revision: rs.metadata.annotations?.['deployment.kubernetes.io/revision'], image: rs.spec?.template?.spec?.containers[0]?.image, replicas: rs.spec?.replicas }))
      .sort((a, b) => Number(a.revision) - Number(b.revision));
    assert.deepEqual(summary, [
      { revision: '3', image: 'nginx:3', replicas: 0 },
      { revision: '4', image: 'nginx:4', replicas: 1 },
    ]);
    assert.equal((await get('hist')).metadata.annotations?.['deployment.kubernetes.io/revision'], '4');
  });

  test('a paused Deployment makes no new ReplicaSet for a new template until it is resumed', async () => {
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('pause', { replicas: 1 }));
    await cluster.settle();
    await readyAll('pause');
    await cluster.ok('PATCH', `${deploymentsPath}/pause`, { spec: { paused: true } }, mergePatch);
    await cluster.ok('PATCH', `${deploymentsPath}/pause`, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:9' }] } } } }, 'application/strategic-merge-patch+json');
    await cluster.settle();
    assert.equal((await replicaSetsOf(created)).length, 1);
    let d = await get('pause');
    assert.equal(d.status?.observedGeneration, 3);
    assert.deepEqual(conditions(d).find((c) => c.type === 'Progressing'), { type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' });
    await cluster.ok('PATCH', `${deploymentsPath}/pause`, { spec: { paused: false } }, mergePatch);
    await cluster.settle();
    assert.equal((await replicaSetsOf(created)).length, 2);
    d = await get('pause');
    assert.deepEqual(conditions(d).find((c) => c.type === 'Progressing')?.reason, 'ReplicaSetUpdated');
    await readyAll('pause');
    assert.deepEqual(conditions(await get('pause')).find((c) => c.type === 'Progressing')?.reason, 'NewReplicaSetAvailable');
  });

  test('adopts an orphan ReplicaSet of its template; releases one whose labels stop matching and, its name taken, makes the next with a collisionCount', async () => {
    const template = deployment('adopt').spec!.template;
    const orphan: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'adopt-orphan', labels: { app: 'adopt', 'pod-template-hash': 'orphan' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'adopt', 'pod-template-hash': 'orphan' } },
        template: { ...template, metadata: { labels: { app: 'adopt', 'pod-template-hash': 'orphan' } } },
      },
    };
    await cluster.ok('POST', rsPath, orphan);
    const created = await cluster.ok<Deployment>('POST', deploymentsPath, deployment('adopt'));
    await cluster.settle();
    const [adopted, ...others] = await replicaSetsOf(created);
    assert.equal(others.length, 0, 'no new ReplicaSet: the orphan has the template');
    assert.equal(adopted!.metadata.name, 'adopt-orphan');
    assert.equal(adopted!.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');

    await cluster.ok('PATCH', `${rsPath}/adopt-orphan`, { metadata: { labels: { app: 'gone', 'pod-template-hash': 'orphan' } } }, mergePatch);
    await cluster.settle();
    const released = await cluster.ok<ReplicaSet>('GET', `${rsPath}/adopt-orphan`);
    assert.equal(released.metadata.ownerReferences, undefined);
    const [next, ...more] = await replicaSetsOf(created);
    assert.equal(more.length, 0);
    assert.match(next!.metadata.name, /^adopt-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal((await get('adopt')).status?.collisionCount, undefined, 'no collision: the released one had another name');

    // A ReplicaSet holding the name the next template hashes to, with another template: a collision.
    const d = await get('adopt');
    await cluster.ok('PATCH', `${rsPath}/${next!.metadata.name}`, { metadata: { labels: { app: 'elsewhere', 'pod-template-hash': next!.metadata.labels!['pod-template-hash']! } } }, mergePatch);
    await cluster.ok('PATCH', `${rsPath}/${next!.metadata.name}`, { spec: { template: { spec: { containers: [{ name: 'web', image: 'other' }] } } } }, 'application/strategic-merge-patch+json');
    await cluster.settle();
    const after = await get('adopt');
    assert.equal(after.status?.collisionCount, 1);
    const [third] = await replicaSetsOf(d);
    assert.notEqual(third!.metadata.name, next!.metadata.name);
    assert.equal(third!.metadata.name, `adopt-${third!.metadata.labels!['pod-template-hash']}`);
  });

  test('deleting the Deployment deletes its ReplicaSets and Pods through the garbage collector', async () => {
    const d = await get('web');
    assert.ok((await replicaSetsOf(d)).length > 0);
    await cluster.ok('DELETE', `${deploymentsPath}/web`);
    await eventually(async () => {
      assert.deepEqual((await cluster.list<ReplicaSet>(rsPath)).filter((rs) => rs.metadata.labels?.['app'] === 'web'), []);
      assert.deepEqual(await podsLabelled('web'), []);
    }, { what: 'the ReplicaSets and Pods of web to be collected' });
  });
});
