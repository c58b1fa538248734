/**
 * The finalizer lifecycle end to end over real HTTP: InformerController + KubernetesBasedInformer +
 * OpinionatedReconciler (and OpinionatedWatcher) against the embedded API server, including a
 * delete that happens while the operator is stopped, and another controller's finalizer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind, isNotFound } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import {
  DefaultFinalizerSupplier,
  InformerController,
  JitteredExponentialBackoff,
  KubernetesBasedInformer,
  ReconcileAction,
  SimpleReconciler,
  newOpinionatedReconciler,
  newOpinionatedWatcher,
  noopLogger,
  removeFinalizer,
} from '@kubeloop/operator';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

const F = DefaultFinalizerSupplier(ConfigMapKind);
const OTHER = 'other.example.com/keep';

describe('finalizers end to end against the embedded API server', () => {
  let api: KubeconfigServer;
  let client: Client<ConfigMap>;
  const stops: AbortController[] = [];

  before(async () => {
    api = await KubeconfigServer.start();
    client = new Client(ConfigMapKind, api.transport);
  });

  after(async () => {
    for (const s of stops) s.abort();
    await api.stop();
  });

  /** One operator run: an InformerController with an OpinionatedReconciler that records what it is asked. */
  function startOperator(namespace: string) {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const inner = new SimpleReconciler<ConfigMap>({
      reconcileFunc: async (_ctx, req) => {
        seen.push(`${ReconcileAction[req.action]}:${req.object.metadata.name}`);
        return {};
      },
    });
    const opinionated = newOpinionatedReconciler<ConfigMap>(client, F);
    opinionated.wrap(inner);
    const controller = new InformerController({ logger: noopLogger, errorHandler: (_ctx, err) => errors.push(err) });
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, client, namespace, {
      backoff: new JitteredExponentialBackoff({ initialMs: 10, maxMs: 200 }),
      errorHandler: (_context, err) => errors.push(err),
    });
    controller.addInformer(informer, 'configmaps');
    controller.addReconciler(opinionated, 'configmaps');
    const stop = new AbortController();
    stops.push(stop);
    const running = controller.run(stop.signal);
    return {
      seen,
      errors,
      informer,
      async stop() {
        stop.abort();
        await running;
      },
    };
  }

  const finalizersOf = async (namespace: string, name: string): Promise<string[] | undefined> =>
    (await client.get({ namespace, name })).metadata.finalizers ?? [];
  const gone = async (namespace: string, name: string): Promise<boolean> =>
    client.get({ namespace, name }).then(
      () => false,
      (e: unknown) => isNotFound(e),
    );

  test('create adds our finalizer after the others; delete is reconciled once, then only our finalizer is removed', { timeout: 30_000 }, async () => {
    const ns = 'default';
    const op = startOperator(ns);
    await op.informer.waitForSync(AbortSignal.timeout(10_000));
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'life', namespace: ns, finalizers: [OTHER] }, data: { a: '1' } });
    await waitFor(async () => (await finalizersOf(ns, 'life'))?.join() === [OTHER, F].join(), { what: 'our finalizer after the other one' });
    assert.deepEqual(op.seen.filter((s) => s.endsWith(':life')).slice(0, 1), ['Created:life']);

    await client.delete({ namespace: ns, name: 'life' });
    await waitFor(async () => (await finalizersOf(ns, 'life'))?.join() === OTHER, { what: 'our finalizer removed, the other kept' });
    assert.equal(op.seen.filter((s) => s === 'Deleted:life').length, 1);

    // The other controller finishes: the object goes, and our reconciler is not told twice.
    const current = await client.get({ namespace: ns, name: 'life' });
    await removeFinalizer(client, current, OTHER);
    await waitFor(() => gone(ns, 'life'), { what: 'the object to go' });
    await waitFor(() => op.informer.store.get(`${ns}/life`) === undefined, { what: 'the informer to see it go' });
    assert.equal(op.seen.filter((s) => s === 'Deleted:life').length, 1);
    assert.deepEqual(op.errors, []);
    await op.stop();
  });

  test('a delete that happens while the operator is stopped is handled when it starts again; survivors resync', { timeout: 30_000 }, async () => {
    const ns = 'kube-system';
    const first = startOperator(ns);
    await first.informer.waitForSync(AbortSignal.timeout(10_000));
    for (const name of ['doomed', 'survivor']) {
      await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: '1' } });
    }
    await waitFor(async () => (await finalizersOf(ns, 'doomed'))?.includes(F) && (await finalizersOf(ns, 'survivor'))?.includes(F), {
      what: 'finalizers on both',
    });
    await first.stop();

    await client.delete({ namespace: ns, name: 'doomed' });
    const pending = await client.get({ namespace: ns, name: 'doomed' });
    assert.ok(pending.metadata.deletionTimestamp, 'our finalizer holds the object while we are away');

    const second = startOperator(ns);
    await waitFor(() => gone(ns, 'doomed'), { what: 'the delete to be handled after the restart' });
    assert.ok(second.seen.includes('Deleted:doomed'));
    await waitFor(() => second.seen.includes('Resynced:survivor'), { what: 'the survivor to be resynced, not created again' });
    assert.ok(!second.seen.includes('Created:survivor'));
    assert.deepEqual(second.errors, []);
    await second.stop();
  });

  test('the OpinionatedWatcher keeps other finalizers and calls deleteFunc before letting the object go', { timeout: 30_000 }, async () => {
    const ns = 'default';
    const calls: string[] = [];
    const watcher = newOpinionatedWatcher<ConfigMap>(ConfigMapKind, client);
    watcher.addFunc = async (_ctx, o) => void calls.push(`add:${o.metadata.name}`);
    watcher.deleteFunc = async (_ctx, o) => void calls.push(`delete:${o.metadata.name}`);
    const controller = new InformerController({ logger: noopLogger });
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, client, ns, { fieldSelector: 'metadata.name=watched' });
    controller.addInformer(informer, 'configmaps');
    controller.addWatcher(watcher, 'configmaps');
    const stop = new AbortController();
    stops.push(stop);
    const running = controller.run(stop.signal);
    await informer.waitForSync(AbortSignal.timeout(10_000));

    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', namespace: ns, finalizers: [OTHER] } });
    await waitFor(async () => (await finalizersOf(ns, 'watched'))?.join() === [OTHER, F].join(), { what: 'our finalizer' });
    await client.delete({ namespace: ns, name: 'watched' });
    await waitFor(async () => (await finalizersOf(ns, 'watched'))?.join() === OTHER, { what: 'our finalizer removed' });
    assert.deepEqual(calls, ['add:watched', 'delete:watched']);
    await removeFinalizer(client, await client.get({ namespace: ns, name: 'watched' }), OTHER);
    await waitFor(() => gone(ns, 'watched'), { what: 'the object to go' });
    await waitFor(() => informer.store.size === 0, { what: 'the informer to see it go' });
    assert.deepEqual(calls, ['add:watched', 'delete:watched'], 'the final delete event does not call deleteFunc again');
    stop.abort();
    await running;
  });
});
