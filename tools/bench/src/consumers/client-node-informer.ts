/**
 * @kubernetes/client-node 1.4: `makeInformer` over the typed `listNamespacedConfigMap`, as its README
 * shows, with no-op add/update/delete handlers.
 */
import { CoreV1Api, KubeConfig, makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import type { ConsumerContext, PreparedConsumer } from './consumer.js';

export function prepare(ctx: ConsumerContext): PreparedConsumer {
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfigPath);
  const api = kc.makeApiClient(CoreV1Api);
  let resolveSynced!: () => void;
  let rejectSynced!: (err: unknown) => void;
  const synced = new Promise<void>((resolve, reject) => {
    resolveSynced = resolve;
    rejectSynced = reject;
  });
  // Synced once every listed object has reached the add handler (the informer has no hasSynced()).
  let toAdd = -1;
  const informer = makeInformer(kc, `/api/v1/namespaces/${ctx.namespace}/configmaps`, async () => {
    const list = await api.listNamespacedConfigMap({ namespace: ctx.namespace });
    toAdd = list.items.length;
    if (toAdd === 0) resolveSynced();
    return list;
  });
  const handler = (obj: KubernetesObject): void => ctx.observe(obj.metadata);
  informer.on('add', (obj) => {
    handler(obj);
    if (toAdd > 0 && --toAdd === 0) resolveSynced();
  });
  informer.on('update', handler);
  informer.on('delete', handler);
  informer.on('error', (err) => rejectSynced(err));
  return {
    start: () => {
      informer.start().catch(rejectSynced);
      return { synced, cachedObjects: () => informer.list().length, stop: () => informer.stop() };
    },
  };
}
