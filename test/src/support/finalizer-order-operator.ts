/**
 * An operator process for the finalizer-order test (`finalizer-first.test.ts`): ConfigMaps of one
 * namespace, reconciled by an `OpinionatedReconciler` around a reconciler whose side effect outside
 * Kubernetes is a record file per ConfigMap, and whose cleanup (the delegated Deleted) removes it and
 * appends the name to `cleanups.log`. With `BLOCK_AFTER_SIDE_EFFECT=1` the reconcile blocks right after
 * writing the record, so that the test can kill the process at that moment.
 *
 * Environment: `KUBECONFIG`, `NAMESPACE`, `RECORD_DIR`, `FINALIZER_FIRST` ('1' or '0'),
 * `BLOCK_AFTER_SIDE_EFFECT` ('1' or '0'). Prints `side effect <name>`, `cleanup <name>`, and `idle` once
 * the caches have synced and the initial work is done. Stops on SIGTERM.
 */
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigMapKind, createClient, loadKubeConfig } from '@kubeloop/resource';
import type { ConfigMap } from '@kubeloop/resource';
import { InformerController, KubernetesBasedInformer, Operator, ReconcileAction, SimpleReconciler, newOpinionatedReconciler, noopLogger, shutdownSignal } from '@kubeloop/operator';

/** The finalizer of the test's operator. */
export const RECORD_FINALIZER = 'kubeloop.dev/record-cleanup';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
}

const namespace = requiredEnv('NAMESPACE');
const recordDir = requiredEnv('RECORD_DIR');
const finalizerFirst = process.env['FINALIZER_FIRST'] === '1';
const block = process.env['BLOCK_AFTER_SIDE_EFFECT'] === '1';

const client = createClient(ConfigMapKind, loadKubeConfig());
const opinionated = newOpinionatedReconciler<ConfigMap>(client, RECORD_FINALIZER, { finalizerFirst });
opinionated.wrap(
  new SimpleReconciler<ConfigMap>({
    reconcileFunc: async (_ctx, { action, object }) => {
      const name = object.metadata.name;
      if (action === ReconcileAction.Deleted) {
        await rm(join(recordDir, `${name}.record`), { force: true });
        await appendFile(join(recordDir, 'cleanups.log'), `${name}\n`);
        console.log(`cleanup ${name}`);
        return {};
      }
      await writeFile(join(recordDir, `${name}.record`), object.metadata.uid ?? '');
      console.log(`side effect ${name}`);
      // The test kills the process here: after the side effect, before the reconcile returns.
      if (block) await new Promise<never>(() => undefined);
      return {};
    },
  }),
);

const controller = new InformerController({ logger: noopLogger });
controller.addInformer(new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, client, namespace, { logger: noopLogger }), ConfigMapKind);
controller.addReconciler(opinionated, ConfigMapKind);
const operator = new Operator();
operator.addController(controller);

const stop = shutdownSignal();
const running = operator.run(stop.signal);
while (!controller.hasSynced()) await new Promise((resolve) => setTimeout(resolve, 10));
await controller.whenIdle();
console.log('idle');
await running;
stop.dispose();
