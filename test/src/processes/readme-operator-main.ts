/**
 * The root README's "A controller in a few lines", as its own process the way a user runs it: the
 * kubeconfig from KUBECONFIG, stopped by SIGTERM. One change: the informer's backoff is capped at 1 s
 * (default 30 s), so that an outage longer than the cap fits a test.
 */
import { createClient, defineKindFor, loadKubeConfig } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { InformerController, JitteredExponentialBackoff, KubernetesBasedInformer, Operator, ReconcileAction, SimpleReconciler, shutdownSignal } from '@kubeloop/operator';

type Widget = KubeObject<{ size: number }>;
const WidgetKind = defineKindFor<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget' });
const client = createClient(WidgetKind, loadKubeConfig());

const controller = new InformerController();
controller.addInformer(new KubernetesBasedInformer(WidgetKind, client, 'default', { backoff: new JitteredExponentialBackoff({ maxMs: 1000 }) }), 'widgets');
controller.addReconciler(
  new SimpleReconciler<Widget>({
    reconcileFunc: async (_ctx, { action, object }) => {
      console.log(ReconcileAction[action], object.metadata.name, object.spec?.size);
      return {};
    },
  }),
  'widgets',
);

const operator = new Operator();
operator.addController(controller);
const stop = shutdownSignal();
await operator.run(stop.signal);
stop.dispose();
console.log('operator stopped');
