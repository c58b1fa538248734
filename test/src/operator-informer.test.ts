/**
 * KubernetesBasedInformer over real HTTP against the embedded API server, with faults: dropped
 * watches (also mid-line), compacted history (410 -> relist), failing lists and watches, 429.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind, isNotFound } from '@kubeloop/resource';
import type { ConfigMap, KubeObject } from '@kubeloop/resource';
import { JitteredExponentialBackoff, KubernetesBasedInformer, SimpleWatcher } from '@kubeloop/operator';
import type { InformerErrorPhase, ListWatchClient, PatchClient, RelistReason } from '@kubeloop/operator';
import { Prng } from '@kubeloop/apiserver/testing';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

/** What handlers saw, as a cache rebuilt from events only. */
class EventMirror {
  readonly objects = new Map<string, ConfigMap>();
  readonly deletes: ConfigMap[] = [];
  readonly watcher = new SimpleWatcher<ConfigMap>({
    addFunc: async (_ctx, o) => void this.objects.set(o.metadata.name, o),
    updateFunc: async (_ctx, _old, o) => void this.objects.set(o.metadata.name, o),
    deleteFunc: async (_ctx, o) => {
      this.objects.delete(o.metadata.name);
      this.deletes.push(o);
    },
  });
}

function summary(objects: Iterable<KubeObject>): string[] {
  return [...objects].map((o) => `${o.metadata.name}=${JSON.stringify((o as ConfigMap).data ?? {})}`).sort();
}

describe('KubernetesBasedInformer against the embedded API server', () => {
  let api: KubeconfigServer;
  let informerClient: Client<ConfigMap>;
  let writer: Client<ConfigMap>;
  const stops: AbortController[] = [];

  before(async () => {
    api = await KubeconfigServer.start();
    informerClient = new Client(ConfigMapKind, api.transport);
    writer = new Client(ConfigMapKind, api.newTransport());
    // Client<T> is what the operator's small interfaces describe.
    const asListWatch: ListWatchClient<ConfigMap> = informerClient;
    const asPatch: PatchClient<ConfigMap> = informerClient;
    assert.ok(asListWatch && asPatch);
  });

  after(async () => {
    for (const s of stops) s.abort();
    await api.stop();
  });

  function start(namespace: string, options: { pageSize?: number } = {}) {
    const mirror = new EventMirror();
    const errors: InformerErrorPhase[] = [];
    const relists: RelistReason[] = [];
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, informerClient, namespace, {
      pageSize: options.pageSize ?? 500,
      backoff: new JitteredExponentialBackoff({ initialMs: 10, maxMs: 200 }),
      errorHandler: (ctx) => errors.push(ctx.phase),
    });
    informer.on('relist', (r) => relists.push(r));
    informer.addEventHandler(mirror.watcher);
    const stop = new AbortController();
    stops.push(stop);
    const running = informer.run(stop.signal);
    return { informer, mirror, errors, relists, stop, running };
  }

  test('sees every object’s final state while watches are dropped, history is compacted and requests fail', { timeout: 60_000 }, async () => {
    const ns = 'default';
    const { informer, mirror, errors, relists, stop, running } = start(ns, { pageSize: 7 });
    await informer.waitForSync(AbortSignal.timeout(10_000));

    const rng = new Prng(0x5eed);
    const random = (): number => rng.next();
    const expected = new Map<string, ConfigMap>();
    const names = Array.from({ length: 30 }, (_, i) => `load-${i}`);
    for (let op = 0; op < 400; op++) {
      const name = names[Math.floor(random() * names.length)]!;
      const current = expected.get(name);
      const roll = random();
      if (current === undefined) {
        expected.set(name, await writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { op: String(op) } }));
      } else if (roll < 0.2) {
        await writer.delete({ namespace: ns, name });
        expected.delete(name);
      } else {
        expected.set(name, await writer.patch({ namespace: ns, name }, { merge: { data: { op: String(op) } } }));
      }
      if (op % 20 === 10) {
        const fault = random();
        if (fault < 0.25) api.server.faults.dropWatches({ midLine: random() < 0.5 });
        else if (fault < 0.5) {
          api.server.faults.compact();
          api.server.faults.dropWatches();
        } else if (fault < 0.7) {
          api.server.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 503, count: 2 });
          api.server.faults.dropWatches();
        } else if (fault < 0.85) {
          api.server.faults.failNext({ verb: 'list', resource: 'configmaps', status: 500 });
          api.server.faults.compact();
          api.server.faults.dropWatches();
        } else {
          api.server.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 429, retryAfterSeconds: 1 });
          api.server.faults.dropWatches();
        }
      }
    }

    const want = summary(expected.values());
    await waitFor(() => summary(mirror.objects.values()).join() === want.join(), { timeoutMs: 20_000, what: 'the handlers to see the final state' });
    await waitFor(() => summary(informer.store.values()).join() === want.join(), { timeoutMs: 5000, what: 'the cache to hold the final state' });
    for (const [name, object] of expected) assert.equal(informer.store.get(`${ns}/${name}`)!.metadata.resourceVersion, object.metadata.resourceVersion);
    assert.ok(relists.includes('expired'), `relisted after 410 (relists: ${relists.join()})`);
    assert.ok(errors.includes('watch'), 'watch errors were reported');
    assert.ok(!errors.includes('handler'));
    stop.abort();
    await running;
  });

  test('an object deleted during a 410 gap is delivered as a delete with its last state; one recreated is delete + add', { timeout: 30_000 }, async () => {
    const ns = 'kube-system';
    const created = await writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gap', namespace: ns }, data: { v: '1' } });
    await writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'reborn', namespace: ns }, data: { v: 'old' } });
    const { informer, mirror, relists, stop, running } = start(ns);
    await informer.waitForSync(AbortSignal.timeout(10_000));
    const last = await writer.patch({ namespace: ns, name: 'gap' }, { merge: { data: { v: 'last' } } });
    await waitFor(() => mirror.objects.get('gap')?.data?.['v'] === 'last', { what: 'the last update' });
    const oldUid = mirror.objects.get('reborn')!.metadata.uid;

    // Blind the informer: watches refused, the open one cut; change things; forget history; let it back.
    api.server.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 500, count: 1_000_000 });
    api.server.faults.dropWatches();
    await writer.delete({ namespace: ns, name: 'gap' });
    await writer.delete({ namespace: ns, name: 'reborn' });
    await writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'reborn', namespace: ns }, data: { v: 'new' } });
    api.server.faults.compact();
    api.server.faults.reset();

    await waitFor(() => mirror.deletes.length >= 2, { timeoutMs: 10_000, what: 'the deletes of the gap' });
    const gapDelete = mirror.deletes.find((d) => d.metadata.name === 'gap')!;
    assert.equal(gapDelete.data?.['v'], 'last', 'the delete carries the last known state');
    assert.equal(gapDelete.metadata.resourceVersion, last.metadata.resourceVersion);
    assert.equal(gapDelete.metadata.uid, created.metadata.uid);
    const rebornDelete = mirror.deletes.find((d) => d.metadata.name === 'reborn')!;
    assert.equal(rebornDelete.metadata.uid, oldUid);
    await waitFor(() => mirror.objects.get('reborn')?.data?.['v'] === 'new', { what: 'the recreated object' });
    assert.notEqual(mirror.objects.get('reborn')!.metadata.uid, oldUid);
    assert.ok(relists.includes('expired'));
    assert.equal(informer.store.has(`${ns}/gap`), false);
    await assert.rejects(writer.get({ namespace: ns, name: 'gap' }), (e) => isNotFound(e));
    stop.abort();
    await running;
  });
});
