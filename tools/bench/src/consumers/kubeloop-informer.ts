/**
 * kubeloop: `KubernetesBasedInformer` (over `createClient` + `HttpTransport.fromKubeConfig`) ->
 * `InformerController` -> a no-op `SimpleWatcher`, the path every kubeloop operator takes.
 */
import { InformerController, KubernetesBasedInformer, SimpleWatcher, noopLogger, stripManagedFields } from '@kubeloop/operator';
import { ConfigMapKind, createClient, loadKubeConfig, type ConfigMap } from '@kubeloop/resource';
import type { ConsumerContext, PreparedConsumer } from './consumer.js';

/** Prepares the kubeloop consumer, with or without the managedFields-stripping transform. */
export function prepareKubeloop(ctx: ConsumerContext, strip: boolean): PreparedConsumer {
  const client = createClient(ConfigMapKind, loadKubeConfig({ kubeconfigPath: ctx.kubeconfigPath }));
  const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, client, ctx.namespace, strip ? { transform: stripManagedFields } : {});
  const controller = new InformerController({ logger: noopLogger });
  controller.addInformer(informer, ConfigMapKind.kind);
  controller.addWatcher(
    new SimpleWatcher<ConfigMap>({
      addFunc: async (_c, obj) => ctx.observe(obj.metadata),
      updateFunc: async (_c, _old, obj) => ctx.observe(obj.metadata),
      deleteFunc: async (_c, obj) => ctx.observe(obj.metadata),
    }),
    ConfigMapKind.kind,
  );
  return {
    start: () => {
      const abort = new AbortController();
      const run = controller.run(abort.signal);
      return {
        synced: Promise.race([informer.waitForSync(), run.then(() => Promise.reject(new Error('controller stopped before sync')))]),
        cachedObjects: () => informer.store.size,
        stop: async () => {
          abort.abort();
          await run;
        },
      };
    },
  };
}

export function prepare(ctx: ConsumerContext): PreparedConsumer {
  return prepareKubeloop(ctx, false);
}
