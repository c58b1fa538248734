import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, LeaseKind, NamespaceKind } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import type { ListWatchClient } from '../../informer/list-watch-client.js';
import { runOperator } from '../../runtime/graceful-shutdown.js';
import { noopLogger } from '../../observability/logger.js';
import { Operator } from '../../controller/operator.js';
import { OperatorServer } from '../../runtime/operator-server.js';
import { deferred } from '../../testing/fake-informer.js';
import { eventually } from '@kubeloop/apiserver/testing';
import { useEmbeddedCluster, waitFor } from './embedded-cluster.test-helper.js';
import { newController } from './reconcile-controller.js';
import { reconcileFunc } from './reconciler.js';

const OBJECTS = ['a', 'b', 'c'];

/**
 * A follower (the lease is held by `other`) running a reconcile controller over real HTTP, with or
 * without warm-up; the test then releases the lease so that the follower takes over.
 */
describe('warm replicas against the embedded API server', () => {
  const cluster = useEmbeddedCluster();

  /** `listGate` holds the informer's list until it resolves; `server` gets runOperator's checks. */
  async function follower(namespace: string, warmup: boolean, options: { listGate?: Promise<void>; server?: OperatorServer } = {}) {
    await cluster.client(NamespaceKind).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const configMaps = cluster.client(ConfigMapKind);
    for (const name of OBJECTS) await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
    const leases = cluster.client(LeaseKind);
    const lease = { namespace, name: 'operator' };
    await leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: lease, spec: { holderIdentity: 'other', leaseDurationSeconds: 3600 } });

    const lists: string[] = [];
    const counting: ListWatchClient<ConfigMap> = {
      list: async (ns, listOptions) => {
        lists.push(ns);
        await options.listGate;
        return configMaps.list(ns, listOptions);
      },
      watch: (ns, options) => configMaps.watch(ns, options),
    };
    const reconciled = new Set<string>();
    const controller = newController({
      kind: ConfigMapKind,
      client: counting,
      namespace,
      reconciler: reconcileFunc(async (_ctx, request) => {
        reconciled.add(request.name);
        return {};
      }),
      logger: noopLogger,
    });
    const operator = new Operator();
    operator.addController(controller);
    const stop = new AbortController();
    const result = runOperator({
      operator,
      server: options.server,
      signal: stop.signal,
      logger: noopLogger,
      leaderElection: { client: leases, lease, identity: 'me', leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 50, warmup },
    });
    const takeOver = async (): Promise<void> => {
      const current = await leases.get(lease);
      await leases.update({ ...current, spec: { ...current.spec, holderIdentity: '' } });
      await waitFor(() => controller.hasSynced() && reconciled.size === OBJECTS.length, { what: 'the new leader to reconcile every object' });
    };
    const holder = async (): Promise<string | null | undefined> => (await leases.get(lease)).spec?.holderIdentity;
    return { controller, lists, reconciled, takeOver, holder, stop: async () => (stop.abort(), await result) };
  }

  test('with warm-up a follower fills its cache before leading, and takes over without a relist', async () => {
    const f = await follower('warm', true);
    await f.controller.waitForCacheSync(AbortSignal.timeout(10_000));
    assert.equal(await f.holder(), 'other', 'still a follower');
    assert.deepEqual(f.lists, ['warm'], 'one initial list while following');
    assert.equal(f.controller.hasSynced(), false, 'no worker before leading');
    assert.equal(f.reconciled.size, 0, 'no reconcile before leading');

    await f.takeOver();
    assert.equal(await f.holder(), 'me');
    assert.deepEqual(f.lists, ['warm'], 'no list on taking over');
    assert.deepEqual([...f.reconciled].sort(), OBJECTS);
    assert.deepEqual(await f.stop(), { exitCode: 0, leaderElection: 'stopped' });
  });

  test('a warm follower is not ready until its cache has synced, then ready while still following', async () => {
    const server = new OperatorServer({ host: '127.0.0.1', port: 0, collectDefaultMetrics: false });
    await server.start();
    const listing = deferred();
    const f = await follower('warm-ready', true, { server, listGate: listing.promise });
    try {
      const readyz = async (): Promise<{ status: number; text: string }> => {
        const response = await fetch(`${server.url}/readyz?verbose`);
        return { status: response.status, text: await response.text() };
      };
      const cold = await eventually(
        async () => {
          const ready = await readyz();
          assert.doesNotMatch(ready.text, /leader not known/);
          return ready;
        },
        { what: 'the lease to be read' },
      );
      assert.equal(cold.status, 500, 'not ready while the initial list is held');
      assert.match(cold.text, /warm-up: informer caches have not synced yet/);

      listing.resolve();
      await eventually(async () => assert.equal((await readyz()).status, 200), { what: 'readiness once the cache is warm' });
      assert.equal(await f.holder(), 'other', 'ready while still a follower');
      assert.equal(f.reconciled.size, 0, 'no reconcile before leading');
      assert.deepEqual(await f.stop(), { exitCode: 0, leaderElection: 'stopped' });
    } finally {
      listing.resolve();
      await server.stop();
    }
  });

  test('without warm-up a follower runs no informer, and lists after taking over', async () => {
    const f = await follower('cold', false);
    assert.equal(await f.holder(), 'other', 'still a follower');
    assert.deepEqual(f.lists, [], 'nothing listed while following');
    assert.equal(f.controller.hasSynced(), false);

    await f.takeOver();
    assert.deepEqual(f.lists, ['cold'], 'the initial list happens on taking over');
    assert.deepEqual([...f.reconciled].sort(), OBJECTS);
    assert.deepEqual(await f.stop(), { exitCode: 0, leaderElection: 'stopped' });
  });
});
