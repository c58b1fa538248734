/**
 * Stages of kubeloop's watch path, each alone, to show where the time of the full path goes:
 * - `kubeloop-watch`: `Client.watch` only (HTTP, line splitting, JSON.parse, async iteration) into a Map;
 * - `kubeloop-informer-only`: `KubernetesBasedInformer` with a no-op handler and no controller.
 */
import { KubernetesBasedInformer, SimpleWatcher } from '@kubeloop/operator';
import { ConfigMapKind, createClient, loadKubeConfig, type ConfigMap } from '@kubeloop/resource';
import type { ConsumerContext, PreparedConsumer } from './consumer.js';

/** `Client.list` then `Client.watch` from its resourceVersion, latest object per name in a Map. */
export function prepareWatchOnly(ctx: ConsumerContext): PreparedConsumer {
  const client = createClient(ConfigMapKind, loadKubeConfig({ kubeconfigPath: ctx.kubeconfigPath }));
  return {
    start: () => {
      const cache = new Map<string, ConfigMap>();
      const abort = new AbortController();
      let loop: Promise<void> = Promise.resolve();
      const synced = (async () => {
        const list = await client.list(ctx.namespace);
        for (const item of list.items) cache.set(item.metadata.name, item);
        const watch = await client.watch(ctx.namespace, { resourceVersion: list.metadata.resourceVersion, signal: abort.signal });
        loop = (async () => {
          for await (const event of watch) {
            if (event.type === 'ERROR') throw event.error;
            if (event.type === 'DELETED') cache.delete(event.object.metadata.name);
            else cache.set(event.object.metadata.name, event.object);
            ctx.observe(event.object.metadata);
          }
        })();
      })();
      return {
        synced,
        cachedObjects: () => cache.size,
        stop: async () => {
          abort.abort();
          await loop;
        },
      };
    },
  };
}

/** The informer alone with a no-op handler. */
export function prepareInformerOnly(ctx: ConsumerContext): PreparedConsumer {
  const client = createClient(ConfigMapKind, loadKubeConfig({ kubeconfigPath: ctx.kubeconfigPath }));
  const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, client, ctx.namespace);
  informer.addEventHandler(
    new SimpleWatcher<ConfigMap>({
      addFunc: async (_c, obj) => ctx.observe(obj.metadata),
      updateFunc: async (_c, _old, obj) => ctx.observe(obj.metadata),
      deleteFunc: async (_c, obj) => ctx.observe(obj.metadata),
    }),
  );
  return {
    start: () => {
      const abort = new AbortController();
      const run = informer.run(abort.signal);
      return {
        synced: informer.waitForSync(),
        cachedObjects: () => informer.store.size,
        stop: async () => {
          abort.abort();
          await run;
        },
      };
    },
  };
}
