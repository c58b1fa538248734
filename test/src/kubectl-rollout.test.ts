/**
 * The real kubectl's rollout commands against the embedded server's simulated Deployment
 * controller: `rollout status` waits and returns once the Deployment is available (or fails on
 * its progress deadline), `scale`, `set image`, `rollout history`, `rollout undo` and `rollout
 * restart` behave as on a cluster. The simulation runs on a VirtualClock without its kubelet: the
 * test plays the kubelet by writing each Pod's Ready status through `/status`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@kubeloop/resource';
import { eventually } from '@kubeloop/apiserver/testing';
import type { Deployment, Pod, ReplicaSet } from '@kubeloop/resource';
import type { Kubectl } from './support/kubectl.js';
import { KubectlServer } from './support/kubectl-server.js';
import { rawRequest } from './support/raw-api.js';

const podsPath = '/api/v1/namespaces/default/pods';

describe('kubectl rollout with the simulated Deployment controller', { timeout: 120_000 }, () => {
  let env: KubectlServer;
  let kubectl: Kubectl;
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));

  before(async () => {
    env = await KubectlServer.start({ simulate: { clock, kubelet: false } });
    kubectl = env.kubectl;
  });
  after(() => env.stop());

  const settle = (): Promise<void> => env.server.simulation!.whenIdle();
  const get = async <T>(path: string): Promise<T> => {
    const res = await rawRequest<T>(env.server.url, 'GET', path);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  /** Plays the kubelet once: every Pod of `app` not yet Ready becomes Ready now; returns how many. */
  const readyPods = async (app: string): Promise<number> => {
    const pods = (await get<{ items: Pod[] }>(`${podsPath}?labelSelector=app%3D${app}`)).items;
    let marked = 0;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp || pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
      const since = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
      const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }] };
      const res = await rawRequest(env.server.url, 'PATCH', `${podsPath}/${pod.metadata.name}/status`, { body: { status }, contentType: 'application/merge-patch+json' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      marked++;
    }
    await settle();
    return marked;
  };

  /** Runs `kubectl rollout status` while playing the kubelet until it exits; its output. */
  const rolloutStatusWhileReadying = async (app: string): Promise<string> => {
    const status = env.spawn(['rollout', 'status', `deployment/${app}`, '--timeout=60s']);
    // Plays the kubelet (each new Pod made Ready) until kubectl, polling the server, sees the rollout done.
    await eventually(
      async () => {
        await readyPods(app);
        assert.notEqual(status.exit, undefined, 'kubectl rollout status still waits');
      },
      { timeoutMs: 60_000 },
    );
    const exit = await status.waitForExit();
    assert.equal(exit.code, 0, `stdout: ${status.stdout}\nstderr: ${status.stderr}`);
    return status.stdout;
  };

  const replicaSets = async (app: string): Promise<ReplicaSet[]> => (await get<{ items: ReplicaSet[] }>(`/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3D${app}`)).items;
  const revisionOf = (rs: ReplicaSet): string | undefined => rs.metadata.annotations?.['deployment.kubernetes.io/revision'];
  const imageOf = (object: { spec?: { template?: { spec?: { containers: { image?: string }[] } } } }): string | undefined => object.spec?.template?.spec?.containers[0]?.image;

  test('rollout status waits until the created Deployment is available, then reports it rolled out', async () => {
    assert.match(await kubectl.ok(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3']), /deployment\.apps\/web created/);
    await settle();
    const waiting = env.spawn(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    await waiting.waitForOutput('Waiting for deployment "web" rollout to finish: 0 of 3 updated replicas are available...');
    assert.equal(waiting.exit, undefined, 'still waiting while no Pod is Ready');
    assert.equal(await readyPods('web'), 3);
    assert.equal((await waiting.waitForExit()).code, 0, waiting.stderr);
    assert.match(waiting.stdout, /deployment "web" successfully rolled out/);
    assert.match(await kubectl.ok(['get', 'deployment', 'web']), /^web\s+3\/3\s+3\s+3\s+\d+s$/m);
    const out = await kubectl.ok(['get', 'replicasets', '-l', 'app=web']);
    assert.match(out, /^web-[bcdfghjklmnpqrstvwxz2456789]+\s+3\s+3\s+3\s+\d+s$/m);
  });

  test('scale resizes the ReplicaSet; rollout status follows', async () => {
    assert.match(await kubectl.ok(['scale', 'deployment', 'web', '--replicas=5']), /deployment\.apps\/web scaled/);
    await settle();
    assert.equal((await get<{ items: Pod[] }>(`${podsPath}?labelSelector=app%3Dweb`)).items.length, 5);
    assert.match(await rolloutStatusWhileReadying('web'), /deployment "web" successfully rolled out/);
    assert.match(await kubectl.ok(['get', 'deployment', 'web']), /^web\s+5\/5\s+5\s+5\s+\d+s$/m);
    assert.equal((await replicaSets('web')).length, 1);
  });

  test('set image rolls out revision 2; rollout undo brings back revision 1 as revision 3, with the old ReplicaSet', async () => {
    await kubectl.ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.28']);
    await settle();
    assert.match(await rolloutStatusWhileReadying('web'), /deployment "web" successfully rolled out/);
    const history = await kubectl.ok(['rollout', 'history', 'deployment/web']);
    assert.match(history, /^1\s+<none>$/m);
    assert.match(history, /^2\s+<none>$/m);
    const before = await replicaSets('web');
    assert.deepEqual(before.map((rs) => [revisionOf(rs), imageOf(rs), rs.spec?.replicas]).sort(), [['1', 'nginx:1.27', 0], ['2', 'nginx:1.28', 5]]);

    assert.match(await kubectl.ok(['rollout', 'undo', 'deployment/web']), /deployment\.apps\/web rolled back/);
    await settle();
    assert.equal(imageOf(await get<Deployment>('/apis/apps/v1/namespaces/default/deployments/web')), 'nginx:1.27');
    assert.match(await rolloutStatusWhileReadying('web'), /deployment "web" successfully rolled out/);
    const after = await replicaSets('web');
    assert.equal(after.length, 2, 'the revision-1 ReplicaSet is reused, no new one');
    const restored = after.find((rs) => imageOf(rs) === 'nginx:1.27')!;
    assert.equal(restored.metadata.name, before.find((rs) => revisionOf(rs) === '1')!.metadata.name);
    assert.equal(revisionOf(restored), '3');
    assert.equal(restored.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(restored.spec?.replicas, 5);
    assert.equal((await get<Deployment>('/apis/apps/v1/namespaces/default/deployments/web')).metadata.annotations?.['deployment.kubernetes.io/revision'], '3');
    const newHistory = await kubectl.ok(['rollout', 'history', 'deployment/web']);
    assert.match(newHistory, /^2\s+<none>$/m);
    assert.match(newHistory, /^3\s+<none>$/m);
    assert.doesNotMatch(newHistory, /^1\s/m);
  });

  test('rollout restart makes a new ReplicaSet from the restartedAt annotation and rolls it out', async () => {
    assert.match(await kubectl.ok(['rollout', 'restart', 'deployment/web']), /deployment\.apps\/web restarted/);
    await settle();
    assert.match(await rolloutStatusWhileReadying('web'), /deployment "web" successfully rolled out/);
    const all = await replicaSets('web');
    assert.equal(all.length, 3);
    const newest = all.find((rs) => revisionOf(rs) === '4')!;
    assert.ok(newest.spec?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'], 'the template carries restartedAt');
    assert.equal(imageOf(newest), 'nginx:1.27');
    assert.equal(newest.spec?.replicas, 5);
    assert.deepEqual(all.filter((rs) => rs !== newest).map((rs) => rs.spec?.replicas), [0, 0]);
  });

  test('rollout status fails once the progress deadline passes on the simulation clock with no Pod Ready', async () => {
    await kubectl.ok(['create', 'deployment', 'stuck', '--image=nginx:1.27', '--replicas=2']);
    await kubectl.ok(['patch', 'deployment', 'stuck', '--type=merge', '-p', '{"spec":{"progressDeadlineSeconds":10}}']);
    await settle();
    const waiting = env.spawn(['rollout', 'status', 'deployment/stuck', '--timeout=60s']);
    await waiting.waitForOutput('Waiting for deployment "stuck" rollout to finish: 0 of 2 updated replicas are available...');
    await clock.advance(11_000);
    await settle();
    const exit = await waiting.waitForExit();
    assert.notEqual(exit.code, 0);
    assert.match(waiting.stderr, /deployment "stuck" exceeded its progress deadline/);
  });
});
