// A user's program against the packed tarballs: the public entry points imported and typed, and an
// operator run against the embedded API server through the test kit.
import { readFile } from 'node:fs/promises';
import { startTestEnv, eventually, runController } from '@kubeloop/apiserver/testing';
import { kubeconfigFor } from '@kubeloop/apiserver';
import { ConfigMapKind, YamlCodec, defineKind, findCondition, identifierOf, setCondition, setControllerReference } from '@kubeloop/resource';
import type { Condition, CustomResourceDefinition } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, ReconcileAction, SimpleReconciler, createOrUpdate, noopLogger } from '@kubeloop/operator';
import { newController } from '@kubeloop/operator/reconcile';
import { Controller } from '@kubeloop/operator/controller';
import { newStdReconciler } from '@kubeloop/operator/extra';
import { Duration } from 'luxon';

const TaskKind = defineKind<{ command: string }, { conditions?: Condition[] }>({ group: 'packed.example.com', version: 'v1', kind: 'Task' });
// The CRD manifest, decoded by the packed YAML codec.
const taskCrd = new YamlCodec<CustomResourceDefinition>().decode(await readFile(new URL('../task-crd.yaml', import.meta.url), 'utf8'));

const serverLines: string[] = [];
const env = await startTestEnv({ crds: [taskCrd], server: { logger: (line) => serverLines.push(line) } });
const tasks = env.client(TaskKind);
const configMaps = env.client(ConfigMapKind);
const seen: string[] = [];
const controller = new InformerController({ logger: noopLogger });
controller.addInformer(new KubernetesBasedInformer(TaskKind, tasks, 'default'));
controller.addReconciler(
  new SimpleReconciler<ReturnType<typeof TaskKind.zeroValue>>({
    reconcileFunc: async (ctx, { action, object }) => {
      seen.push(`${ReconcileAction[action]} ${object.metadata.name}`);
      if (action === ReconcileAction.Deleted) return {};
      await createOrUpdate(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: object.metadata.name, namespace: 'default' } }, (cm) => {
        cm.data = { command: object.spec?.command ?? '' };
        setControllerReference(object, cm);
      });
      const status = structuredClone(object.status ?? {});
      if (setCondition(status, { type: 'Ready', status: 'True', reason: 'Done', message: '' })) await tasks.patchStatus(identifierOf(object), { conditions: status.conditions });
      ctx.logger.debug('reconciled');
      return { requeueAfter: Duration.fromObject({ hours: 1 }) };
    },
  }),
  TaskKind,
);
const operator = new Operator();
operator.addController(controller);
const stop = runController(operator);
try {
  await tasks.create({ apiVersion: 'packed.example.com/v1', kind: 'Task', metadata: { name: 'packed', namespace: 'default' }, spec: { command: 'echo' } });
  await eventually(async () => {
    const task = await tasks.get({ namespace: 'default', name: 'packed' });
    if (findCondition(task.status?.conditions, 'Ready')?.status !== 'True') throw new Error('not Ready yet');
  });
  const cm = await configMaps.get({ namespace: 'default', name: 'packed' });
  if (cm.data?.command !== 'echo' || cm.metadata.ownerReferences?.[0]?.kind !== 'Task') throw new Error(`unexpected ConfigMap ${JSON.stringify(cm)}`);
  // A large YAML body: parsed by the server's worker thread, whose module must be in the tarball.
  const bigYaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-yaml\ndata:\n${Array.from({ length: 5_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`;
  const created = await fetch(`${env.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: bigYaml });
  if (created.status !== 201) throw new Error(`large YAML create: ${created.status} ${await created.text()}`);
  if (serverLines.some((line) => line.includes('YAML'))) throw new Error(`the YAML worker did not run: ${serverLines.join('\n')}`);
  const collectors = operator.prometheusCollectors().map((c) => (c as unknown as { name: string }).name);
  if (!collectors.includes('informer_relists_total')) throw new Error(`informer metrics missing from ${collectors.join(', ')}`);
} finally {
  await stop();
  await env.stop();
}
// The other entry points resolve and are typed.
void [newController, Controller, newStdReconciler, kubeconfigFor];
console.log(`reconciled: ${seen.join(', ')}`);
