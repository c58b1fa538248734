/**
 * Issue 17, item 11: metadata-only reads over real HTTP against the embedded API server:
 * `MetadataClient` (client-go's metadata client) lists, gets and watches `PartialObjectMetadata`,
 * and a `KubernetesBasedInformer` over it caches metadata only (paginated or streamed initial list).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, MetadataClient, SecretKind, isApiError } from '@kubeloop/resource';
import type { PartialObjectMetadata, Secret, WatchEvent } from '@kubeloop/resource';
import { KubernetesBasedInformer, noopLogger } from '@kubeloop/operator';
import { KubeconfigServer } from './support/kubeconfig-server.js';
import { waitFor } from './support/wait-for.js';

describe('metadata-only reads and informers (real HTTP)', () => {
  let api: KubeconfigServer;
  let secrets: Client<Secret>;
  let metadata: MetadataClient;

  before(async () => {
    api = await KubeconfigServer.start();
    secrets = new Client(SecretKind, api.transport);
    metadata = new MetadataClient(SecretKind, api.transport);
    await api.createNamespace('meta');
    for (const name of ['one', 'two', 'three']) {
      await secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'meta', labels: { app: name } }, stringData: { password: `${name}-secret` } });
    }
  });

  after(() => api.stop());

  test('list, get and pages answer PartialObjectMetadata: names, labels, resourceVersions, never the data', async () => {
    const list = await metadata.list('meta');
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.items.map((i) => i.metadata.name).sort(), ['one', 'three', 'two']);
    for (const item of list.items) {
      assert.equal(item.kind, 'PartialObjectMetadata');
      assert.equal(item.apiVersion, 'meta.k8s.io/v1');
      assert.equal('data' in item || 'stringData' in item, false);
    }
    const full = await secrets.get({ namespace: 'meta', name: 'two' });
    assert.deepEqual(await metadata.get({ namespace: 'meta', name: 'two' }), { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: full.metadata });
    const page = await metadata.list('meta', { limit: 2 });
    assert.equal(page.items.length, 2);
    assert.ok(page.metadata.continue);
    await assert.rejects(metadata.get({ namespace: 'meta', name: 'missing' }), (err: unknown) => isApiError(err) && err.status === 404);
  });

  test('a watch delivers PartialObjectMetadata events', { timeout: 20_000 }, async () => {
    const from = (await metadata.list('meta')).metadata.resourceVersion;
    const watch = await metadata.watch('meta', { resourceVersion: from });
    const seen: WatchEvent<PartialObjectMetadata>[] = [];
    const reading = (async () => {
      for await (const event of watch) {
        seen.push(event);
        if (event.type === 'MODIFIED') break;
      }
    })();
    try {
      await secrets.patch({ namespace: 'meta', name: 'one' }, { merge: { metadata: { annotations: { touched: 'yes' } } } });
      await waitFor(() => seen.some((e) => e.type === 'MODIFIED'), { what: 'the MODIFIED event' });
      const modified = seen.find((e) => e.type === 'MODIFIED');
      assert.ok(modified && modified.type !== 'ERROR');
      assert.equal(modified.object.kind, 'PartialObjectMetadata');
      assert.equal(modified.object.metadata.annotations?.['touched'], 'yes');
      assert.equal('data' in modified.object, false);
    } finally {
      watch.stop();
      await reading;
    }
  });

  for (const strategy of ['list', 'watchList'] as const) {
    test(`an informer over MetadataClient caches metadata only and follows changes (initialListStrategy ${strategy})`, { timeout: 20_000 }, async () => {
      const informer = new KubernetesBasedInformer<PartialObjectMetadata>(SecretKind, metadata, 'meta', { initialListStrategy: strategy, logger: noopLogger });
      const stop = new AbortController();
      const running = informer.run(stop.signal);
      try {
        await informer.waitForSync(AbortSignal.timeout(10_000));
        const cached = informer.store.get('meta/two');
        assert.ok(cached);
        assert.equal(cached.kind, 'PartialObjectMetadata');
        assert.equal(cached.metadata.labels?.['app'], 'two');
        assert.equal([...informer.store.values()].some((o) => 'data' in o), false);
        await secrets.patch({ namespace: 'meta', name: 'three' }, { merge: { metadata: { labels: { app: `changed-${strategy}` } } } });
        await waitFor(() => informer.store.get('meta/three')?.metadata.labels?.['app'] === `changed-${strategy}`, { what: 'the label change in the cache' });
      } finally {
        stop.abort();
        await running;
      }
    });
  }
});
