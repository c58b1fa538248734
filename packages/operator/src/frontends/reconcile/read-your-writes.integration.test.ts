import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, compareResourceVersions } from '@kubeloop/resource';
import type { Client, ConfigMap } from '@kubeloop/resource';
import { noopLogger } from '../../observability/logger.js';
import { useEmbeddedCluster, waitFor } from './embedded-cluster.test-helper.js';
import { newController } from './reconcile-controller.js';
import type { ReconcileController } from './reconcile-controller.js';
import { reconcileFunc } from './reconciler.js';

const NS = 'default';
const STEPS = 8;

describe('read your own writes against the embedded API server', () => {
  const cluster = useEmbeddedCluster();
  let configMaps: Client<ConfigMap>;
  before(() => {
    configMaps = cluster.client(ConfigMapKind);
  });

  test('a counter that the reconciler reads from the cache and bumps through the tracking client is bumped once per step', async () => {
    const stale: string[] = [];
    let lastWrite = '';
    // eslint-disable-next-line prefer-const -- the reconciler refers to the controller it belongs to
    let controller: ReconcileController<ConfigMap>;
    const reconciler = reconcileFunc(async (ctx, request) => {
      const cached = controller.informer.store.get(`${request.namespace}/${request.name}`);
      if (cached === undefined) return {};
      if (lastWrite !== '' && compareResourceVersions(cached.metadata.resourceVersion, lastWrite) === -1) stale.push(cached.metadata.resourceVersion ?? '');
      const count = Number(cached.data?.count ?? '0');
      if (count >= STEPS) return {};
      // Read-modify-write from the cache, as controllers do: a stale cache writes the same step twice.
      const written = await tracked.patch(request, { merge: { data: { count: String(count + 1), log: `${cached.data?.log ?? ''}${count + 1},` } } }, { signal: ctx.signal });
      lastWrite = written.metadata.resourceVersion ?? '';
      // Come back at once, before the watch has necessarily delivered the echo of that patch.
      controller.enqueue(request);
      return {};
    });
    controller = newController({ kind: ConfigMapKind, client: configMaps, namespace: NS, reconciler, logger: noopLogger, errorHandler: () => undefined });
    const tracked = controller.trackWrites(configMaps);
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    try {
      await controller.waitForCacheSync(AbortSignal.timeout(10_000));
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counter', namespace: NS }, data: {} });
      await waitFor(async () => (await configMaps.get({ namespace: NS, name: 'counter' })).data?.count === String(STEPS), { what: `count ${STEPS}` });
      await controller.whenIdle();
      const final = await configMaps.get({ namespace: NS, name: 'counter' });
      assert.equal(final.data?.log, Array.from({ length: STEPS }, (_, i) => `${i + 1},`).join(''), 'every step written exactly once');
      assert.deepEqual(stale, [], 'no reconcile saw a cache older than its own last write');
    } finally {
      stop.abort();
      await running;
    }
  });
});
