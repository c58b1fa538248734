/**
 * Issue 17, item 6: two InformerControllers reading ConfigMaps through one SharedInformerFactory
 * share one watch and one cache over real HTTP; the watch ends when the last of them stops.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController, InformerMetrics, SharedInformerFactory, SimpleReconciler, noopLogger } from '@kubeloop/operator';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

describe('shared informers (real HTTP)', () => {
  let api: KubeconfigServer;

  before(async () => {
    api = await KubeconfigServer.start();
    await api.createNamespace('shared');
  });

  after(() => api.stop());

  test('two controllers, one list and one watch; the second stopping keeps the first fed; the last stops the watch', { timeout: 30_000 }, async () => {
    const configMaps = new Client(ConfigMapKind, api.transport);
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before', namespace: 'shared' }, data: {} });
    const metrics = new InformerMetrics();
    const factory = new SharedInformerFactory({ transport: api.transport, informerOptions: { logger: noopLogger, metrics } });
    const seen = [new Set<string>(), new Set<string>()];
    const stops = seen.map(() => new AbortController());
    const runs = seen.map((names, i) => {
      const controller = new InformerController({ logger: noopLogger });
      controller.addInformer(factory.informerFor(ConfigMapKind, { namespace: 'shared' }), 'ConfigMap');
      controller.addReconciler(
        new SimpleReconciler<ConfigMap>({
          reconcileFunc: async (_ctx, req) => {
            names.add(req.object.metadata.name);
            return {};
          },
        }),
        'ConfigMap',
      );
      return controller.run(stops[i]!.signal);
    });
    const connects = async (): Promise<number> => (await metrics.watchConnectsTotal.get()).values.reduce((sum, v) => sum + v.value, 0);
    const relists = async (): Promise<number> => (await metrics.relistsTotal.get()).values.reduce((sum, v) => sum + v.value, 0);
    try {
      await waitFor(() => seen.every((s) => s.has('before')), { what: 'both controllers to see the existing object' });
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'during', namespace: 'shared' }, data: {} });
      await waitFor(() => seen.every((s) => s.has('during')), { what: 'both controllers to see the new object' });
      assert.equal(await relists(), 1, 'one list for both');
      assert.equal(await connects(), 1, 'one watch for both');

      stops[1]!.abort();
      await runs[1];
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace: 'shared' }, data: {} });
      await waitFor(() => seen[0]!.has('after'), { what: 'the remaining controller to see a later object' });
      assert.equal(seen[1]!.has('after'), false);
      assert.equal(factory.size, 1);
    } finally {
      stops[0]!.abort();
      stops[1]!.abort();
      await Promise.all(runs);
    }
    assert.equal(factory.size, 0);
    // The run resolved once the shared informer had stopped; the server notices the closed connection a moment later.
    await waitFor(() => api.server.faults.dropWatches() === 0, { what: 'no watch left open on the server' });
  });
});
