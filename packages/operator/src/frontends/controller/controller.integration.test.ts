import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind } from '@kubeloop/resource';
import type { Client, ConfigMap } from '@kubeloop/resource';
import { KubernetesBasedInformer } from '../../informer/kubernetes-based-informer.js';
import { noopLogger } from '../../observability/logger.js';
import { startEmbeddedCluster, waitFor } from '../reconcile/embedded-cluster.test-helper.js';
import type { EmbeddedCluster } from '../reconcile/embedded-cluster.test-helper.js';
import { newResource } from './resource.js';
import { testControllerRun } from './test-controller-run.js';

const NS = 'default';

describe('consul-style controller against the embedded API server', () => {
  let cluster: EmbeddedCluster;
  let configMaps: Client<ConfigMap>;
  /** The "catalog" the resource syncs to, as consul-k8s syncs services to Consul. */
  const catalog = new Map<string, string>();
  const deletedWith = new Map<string, string | undefined>();
  let failNextUpsertOf: string | undefined;
  let upsertAttempts = 0;
  let stop: () => Promise<void>;

  before(async () => {
    cluster = await startEmbeddedCluster();
    configMaps = cluster.client(ConfigMapKind);
    const informer = new KubernetesBasedInformer(ConfigMapKind, configMaps, NS, { labelSelector: 'sync=catalog', errorHandler: () => {} });
    const resource = newResource<ConfigMap>(
      informer,
      (key, obj) => {
        upsertAttempts++;
        if (failNextUpsertOf === key) {
          failNextUpsertOf = undefined;
          throw new Error('catalog unavailable');
        }
        catalog.set(key, obj.data?.address ?? '');
      },
      (key, obj) => {
        deletedWith.set(key, obj.data?.address);
        catalog.delete(key);
      },
    );
    stop = testControllerRun(resource, { log: noopLogger });
    await informer.waitForSync(AbortSignal.timeout(10_000));
  });

  after(async () => {
    await stop();
    await cluster.stop();
  });

  function service(name: string, address: string): ConfigMap {
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { sync: 'catalog' } }, data: { address } };
  }

  test('objects are upserted as they are created and changed, and deleted with their last state', async () => {
    await configMaps.create(service('web', '10.0.0.1'));
    await configMaps.create(service('db', '10.0.0.2'));
    await waitFor(() => catalog.get(`${NS}/web`) === '10.0.0.1' && catalog.get(`${NS}/db`) === '10.0.0.2', { what: 'both upserted' });

    await configMaps.patch({ namespace: NS, name: 'web' }, { merge: { data: { address: '10.0.0.9' } } });
    await waitFor(() => catalog.get(`${NS}/web`) === '10.0.0.9', { what: 'update upserted' });

    await configMaps.delete({ namespace: NS, name: 'web' });
    await waitFor(() => !catalog.has(`${NS}/web`), { what: 'delete handled' });
    assert.equal(deletedWith.get(`${NS}/web`), '10.0.0.9');
    assert.equal(catalog.get(`${NS}/db`), '10.0.0.2');
  });

  test('a failed upsert is retried with backoff until it lands', async () => {
    failNextUpsertOf = `${NS}/cache`;
    const attemptsBefore = upsertAttempts;
    await configMaps.create(service('cache', '10.0.0.3'));
    await waitFor(() => catalog.get(`${NS}/cache`) === '10.0.0.3', { what: 'retried upsert' });
    assert.ok(upsertAttempts - attemptsBefore >= 2);
  });
});
