// A user's program against the packed tarballs: every public entry point imported, typed, and run
// against the embedded API server.
import { startApiServer } from '@kubeloop/apiserver';
import { Client, ConfigMapKind, HttpTransport } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, ReconcileAction, SimpleReconciler } from '@kubeloop/operator';
import { newController } from '@kubeloop/operator/reconcile';
import { Duration } from 'luxon';

const server = await startApiServer();
const transport = new HttpTransport({ server: server.url });
const configMaps = new Client(ConfigMapKind, transport);
const seen: string[] = [];
const controller = new InformerController();
controller.addInformer(new KubernetesBasedInformer(ConfigMapKind, configMaps, 'default'), 'ConfigMap');
controller.addReconciler(
  new SimpleReconciler<ConfigMap>({
    reconcileFunc: async (_ctx, { action, object }) => {
      seen.push(`${ReconcileAction[action]} ${object.metadata.name}`);
      return { requeueAfter: Duration.fromObject({ hours: 1 }) };
    },
  }),
  'ConfigMap',
);
void newController;
const operator = new Operator();
operator.addController(controller);
const stop = new AbortController();
const running = operator.run(stop.signal);
await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'packed', namespace: 'default' }, data: { a: '1' } });
const deadline = Date.now() + 10_000;
while (!seen.includes('Created packed')) {
  if (Date.now() > deadline) throw new Error(`no reconcile of the ConfigMap (seen: ${seen.join(', ')})`);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
stop.abort();
await running;
transport.close();
await server.stop();
console.log(`reconciled: ${seen.join(', ')}`);
