// The README's "A controller in a few lines", run for real against the embedded API server, so
// that the first code a newcomer copies is known to compile and to work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEnv } from '@kubeloop/apiserver/testing';
import { createClient, defineKindFor, loadKubeConfig } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, ReconcileAction, SimpleReconciler } from '@kubeloop/operator';
import { testCrd } from './support/crd.js';
import { waitFor } from './support/wait-for.js';

test('the README controller example reconciles a Widget created on the embedded API server', async () => {
  // The example loads the kubeconfig from a file, as a program run against a cluster does.
  const env = await startTestEnv({ crds: [testCrd({ group: 'example.com', kind: 'Widget', spec: { size: { type: 'integer' } } })] });
  const { kubeconfigPath } = env;
  const stop = new AbortController();
  try {
    const seen: string[] = [];
    // --- the README example, with the log line recorded and the signal under the test's control ---
    type Widget = KubeObject<{ size: number }>;
    const WidgetKind = defineKindFor<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget' });
    const client = createClient(WidgetKind, loadKubeConfig({ kubeconfigPath }));

    const controller = new InformerController();
    controller.addInformer(new KubernetesBasedInformer(WidgetKind, client, 'default'), 'widgets');
    controller.addReconciler(
      new SimpleReconciler<Widget>({
        reconcileFunc: async (_ctx, { action, object }) => {
          seen.push(`${ReconcileAction[action]} ${object.metadata.name} ${object.spec?.size}`);
          return {};
        },
      }),
      'widgets',
    );

    const operator = new Operator();
    operator.addController(controller);
    const running = operator.run(stop.signal);
    // --- end of the example ---

    await client.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 3 } });
    await waitFor(() => seen.includes('Created w1 3'), { what: 'the Created reconcile of w1' });
    const current = await client.get({ namespace: 'default', name: 'w1' });
    await client.update({ ...current, spec: { size: 4 } });
    await waitFor(() => seen.includes('Updated w1 4'), { what: 'the Updated reconcile of w1' });

    stop.abort();
    await running;
    assert.deepEqual(seen, ['Created w1 3', 'Updated w1 4']);
  } finally {
    stop.abort();
    await env.stop();
  }
});
