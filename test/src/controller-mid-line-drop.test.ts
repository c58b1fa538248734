/**
 * Issue 9, item 1, as reported: KubernetesBasedInformer on ConfigMaps -> InformerController -> one
 * SimpleReconciler mirroring name -> data, about 400 sequential writes over 60 names, and the
 * watch cut in the middle of a line after the 10th write (then again now and then). The
 * reconciler must go on being called and end with the server's state, over real HTTP.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, ReconcileAction, SimpleReconciler, noopLogger } from '@kubeloop/operator';
import { Prng } from '@kubeloop/apiserver/testing';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

describe('a controller through mid-line watch drops under steady writes (real HTTP)', () => {
  let api: KubeconfigServer;

  before(async () => {
    api = await KubeconfigServer.start();
  });

  after(() => api.stop());

  for (const [name, dropEvery] of [
    ['one drop after the 10th write', 0],
    ['a drop after the 10th write and then every 50 writes', 50],
  ] as const) {
    test(`${name}: the reconciler keeps being called and ends with the server's state`, { timeout: 90_000 }, async () => {
      const ns = `drops-${dropEvery}`;
      // One client for the informer and the writes, as a new user writes it.
      const client: Client<ConfigMap> = new Client(ConfigMapKind, api.transport);
      await api.createNamespace(ns);
      const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, client, ns, { logger: noopLogger });
      const controller = new InformerController({ logger: noopLogger, errorHandler: () => {} });
      controller.addInformer(informer, 'ConfigMap');
      const mirror = new Map<string, string>();
      let calls = 0;
      controller.addReconciler(
        new SimpleReconciler<ConfigMap>({
          reconcileFunc: async (_ctx, req) => {
            calls++;
            if (req.action === ReconcileAction.Deleted) mirror.delete(req.object.metadata.name);
            else mirror.set(req.object.metadata.name, JSON.stringify(req.object.data ?? {}));
            return {};
          },
        }),
        'ConfigMap',
      );
      const stop = new AbortController();
      const running = controller.run(stop.signal);
      await informer.waitForSync(AbortSignal.timeout(10_000));

      const rng = new Prng(0x9ad + dropEvery);
      const random = (): number => rng.next();
      const expected = new Map<string, string>();
      let callsAtFirstDrop = -1;
      for (let write = 1; write <= 400; write++) {
        const name = `n-${Math.floor(random() * 60)}`;
        const data = { write: String(write) };
        if (!expected.has(name)) {
          await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
          expected.set(name, JSON.stringify(data));
        } else if (random() < 0.2) {
          await client.delete({ namespace: ns, name });
          expected.delete(name);
        } else {
          await client.update({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
          expected.set(name, JSON.stringify(data));
        }
        if (write === 10) {
          callsAtFirstDrop = calls;
          assert.equal(api.server.faults.dropWatches({ midLine: true }), 1, 'the watch was open at the first drop');
        } else if (dropEvery > 0 && write % dropEvery === 0) {
          // Cuts the watch if one is open (the informer may still be waiting after the last cut).
          api.server.faults.dropWatches({ midLine: true });
        }
      }
      const summary = (m: Map<string, string>): string => [...m].sort().join('|');
      // Bound: the backoff cap (30 s) plus margin; in practice about a second.
      const started = Date.now();
      await waitFor(() => summary(mirror) === summary(expected), { timeoutMs: 35_000, intervalMs: 50, what: "the mirror to equal the server's state" });
      assert.ok(calls > callsAtFirstDrop + 100, `the reconciler went on after the first drop (${callsAtFirstDrop} -> ${calls} calls)`);
      assert.ok(Date.now() - started < 35_000);
      stop.abort();
      await running;
    });
  }
});
