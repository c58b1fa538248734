import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind, isNotFound } from '@kubeloop/resource';
import type { Client, ConfigMap } from '@kubeloop/resource';
import { noopLogger } from '../../observability/logger.js';
import { Operator } from '../../controller/operator.js';
import { startEmbeddedCluster, waitFor } from './embedded-cluster.test-helper.js';
import type { EmbeddedCluster } from './embedded-cluster.test-helper.js';
import { newController } from './reconcile-controller.js';
import { reconcileFunc } from './reconciler.js';
import type { Request } from './request.js';

const NS = 'default';

/** Level-based: make `mirror-X` hold the data of `src-X`, and remove it when `src-X` is gone. */
function mirrorReconciler(configMaps: Client<ConfigMap>, calls: Map<string, number>, delayMs = 0) {
  return reconcileFunc(async (ctx, request: Request) => {
    if (!request.name.startsWith('src-')) return {};
    calls.set(request.name, (calls.get(request.name) ?? 0) + 1);
    if (delayMs > 0) await new Promise<void>((r) => setTimeout(r, delayMs));
    const mirror = { namespace: request.namespace, name: request.name.replace(/^src-/, 'mirror-') };
    let source: ConfigMap;
    try {
      source = await configMaps.get(request, { signal: ctx.signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await configMaps.delete(mirror).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
      return {};
    }
    try {
      const existing = await configMaps.get(mirror, { signal: ctx.signal });
      await configMaps.update({ ...existing, data: source.data ?? {} });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...mirror }, data: source.data ?? {} });
    }
    return {};
  });
}

describe('level-based controller against the embedded API server', () => {
  let cluster: EmbeddedCluster;
  let configMaps: Client<ConfigMap>;
  const abort = new AbortController();
  let operatorRun: Promise<void>;
  const calls = new Map<string, number>();

  before(async () => {
    cluster = await startEmbeddedCluster();
    configMaps = cluster.client(ConfigMapKind);
    const controller = newController({
      kind: ConfigMapKind,
      client: configMaps,
      namespace: NS,
      reconciler: mirrorReconciler(configMaps, calls, 50),
      logger: noopLogger,
    });
    const operator = new Operator();
    operator.addController(controller);
    operatorRun = operator.run(abort.signal);
    await controller.waitForCacheSync(AbortSignal.timeout(10_000));
  });

  after(async () => {
    abort.abort();
    await operatorRun;
    await cluster.stop();
  });

  async function mirrorData(name: string): Promise<Record<string, string> | undefined> {
    try {
      return (await configMaps.get({ namespace: NS, name })).data ?? {};
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  test('creating, changing and deleting an object converges the state it drives', async () => {
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src-a', namespace: NS }, data: { colour: 'red' } });
    await waitFor(async () => (await mirrorData('mirror-a'))?.colour === 'red', { what: 'mirror created' });

    const current = await configMaps.get({ namespace: NS, name: 'src-a' });
    await configMaps.update({ ...current, data: { colour: 'blue' } });
    await waitFor(async () => (await mirrorData('mirror-a'))?.colour === 'blue', { what: 'mirror updated' });

    await configMaps.delete({ namespace: NS, name: 'src-a' });
    await waitFor(async () => (await mirrorData('mirror-a')) === undefined, { what: 'mirror deleted' });
  });

  test('a burst of updates to one object during slow reconciles leads to a few reconciles, ending at the last state', async () => {
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src-burst', namespace: NS }, data: { n: '0' } });
    await waitFor(async () => (await mirrorData('mirror-burst'))?.n === '0', { what: 'first mirror' });
    const before = calls.get('src-burst') ?? 0;
    const updates = 30;
    for (let i = 1; i <= updates; i++) {
      await configMaps.patch({ namespace: NS, name: 'src-burst' }, { merge: { data: { n: String(i) } } });
    }
    await waitFor(async () => (await mirrorData('mirror-burst'))?.n === String(updates), { what: 'mirror at the last update' });
    const reconciles = (calls.get('src-burst') ?? 0) - before;
    assert.ok(reconciles >= 1 && reconciles < updates / 2, `${updates} updates caused ${reconciles} reconciles`);
  });
});
