// The kit's seeded fault schedule end to end: a real InformerController, over real HTTP, follows the
// test's writes through every kind of fault (drops, 410, 5xx/429, latency, server restarts), and its
// convergence is checked with env.converge().
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConfigMapKind, isNotFound } from '@kubeloop/resource';
import type { ConfigMap, Transport } from '@kubeloop/resource';
import { InformerController, JitteredExponentialBackoff, KubernetesBasedInformer, ReconcileAction, SimpleReconciler, exponentialBackoffRetryPolicy, noopLogger } from '@kubeloop/operator';
import { faultSchedule, runController, startTestEnv } from '@kubeloop/apiserver/testing';
import type { StopController, TestEnv } from '@kubeloop/apiserver/testing';

const NAMESPACE = 'mirror';
const SOURCE = 'role=source';

/** Copies every ConfigMap labelled role=source to `<name>-copy`, and deletes the copy with its source. */
function mirrorController(transport: Transport): InformerController {
  const configMaps = new Client(ConfigMapKind, transport);
  const controller = new InformerController({ retryPolicy: exponentialBackoffRetryPolicy(20, 30), logger: noopLogger });
  controller.addInformer(
    new KubernetesBasedInformer(ConfigMapKind, configMaps, NAMESPACE, {
      labelSelector: SOURCE,
      // Fast reconnects: the default backoff (0.8 s up to 30 s) would make a 20-fault schedule slow.
      backoff: new JitteredExponentialBackoff({ initialMs: 20, maxMs: 400 }),
      logger: noopLogger,
    }),
  );
  controller.addReconciler(
    new SimpleReconciler<ConfigMap>({
      reconcileFunc: async (_ctx, { action, object: source }) => {
        const copy = { namespace: NAMESPACE, name: `${source.metadata.name}-copy` };
        if (action === ReconcileAction.Deleted) {
          await configMaps.delete(copy).catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
          return {};
        }
        const existing = await configMaps.get(copy).catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        });
        if (existing === undefined) await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: copy, data: source.data ?? {} });
        else await configMaps.update({ ...existing, data: source.data ?? {} });
        return {};
      },
    }),
    ConfigMapKind,
  );
  return controller;
}

let env: TestEnv;
let stopController: StopController;

before(async () => {
  env = await startTestEnv({ persistent: true, namespaces: [NAMESPACE] });
  stopController = runController(mirrorController(env.transport));
});

after(async () => {
  await stopController();
  await env.stop();
});

for (const seed of [1, 2, 3]) {
  test(`the controller converges through fault schedule seed ${seed} (all kinds, restarts included)`, async () => {
    const configMaps = env.client(ConfigMapKind);
    const names = [0, 1, 2, 3].map((i) => `s${seed}-${i}`);
    const schedule = faultSchedule({ seed, count: 12, kinds: ['dropWatches', 'compact', 'failNext', 'latency', 'restart'], resources: ['configmaps'] });
    assert.equal(new Set(schedule.faults.map((f) => f.kind)).size > 1, true);
    await env.runFaultSchedule(schedule, {
      between: async ({ rng }) => {
        const name = rng.pick(names);
        const current = await configMaps.get({ namespace: NAMESPACE, name }).catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        });
        if (current === undefined) {
          await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE, labels: { role: 'source' } }, data: { v: String(rng.int(0, 99)) } });
        } else if (rng.chance(0.3)) {
          await configMaps.delete({ namespace: NAMESPACE, name });
        } else {
          await configMaps.update({ ...current, data: { v: String(rng.int(0, 99)) } });
        }
      },
    });
    await env.converge(
      async () => {
        const all = (await configMaps.list(NAMESPACE)).items;
        const want = all.filter((cm) => names.includes(cm.metadata.name)).map((cm) => [`${cm.metadata.name}-copy`, cm.data]);
        const have = all.filter((cm) => names.some((n) => cm.metadata.name === `${n}-copy`)).map((cm) => [cm.metadata.name, cm.data]);
        assert.deepEqual(have.sort(), want.sort());
      },
      { timeoutMs: 20_000, what: `the copies of seed ${seed}'s sources` },
    );
  });
}
