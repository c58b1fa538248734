import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMapKind } from '@kubeloop/resource';
import type { Client, ConfigMap, KubeObject } from '@kubeloop/resource';
import { CacheIndexer, indexByField, indexByLabel, indexByNamespace, indexByOwnerUid } from './cache-indexer.js';
import { isInvalidArgumentError } from '../errors.js';
import { KubernetesBasedInformer } from './kubernetes-based-informer.js';
import { startEmbeddedCluster, waitFor } from '../frontends/reconcile/embedded-cluster.test-helper.js';
import type { EmbeddedCluster } from '../frontends/reconcile/embedded-cluster.test-helper.js';
import { CachingInformer, widget } from '../testing/fake-informer.js';

function labelled(name: string, labels: Record<string, string>, namespace = 'default'): KubeObject {
  const o = widget(name, { namespace });
  o.metadata.labels = labels;
  return o;
}

const names = (objects: KubeObject[]): string[] => objects.map((o) => o.metadata.name).sort();

describe('CacheIndexer', () => {
  test('indexes what the cache already holds, then follows adds, updates and deletes', () => {
    const informer = new CachingInformer();
    informer.add(labelled('a', { app: 'web' }));
    const indexer = new CacheIndexer(informer, { app: indexByLabel('app'), namespace: indexByNamespace });
    assert.deepEqual(names(indexer.byIndex('app', 'web')), ['a']);

    informer.add(labelled('b', { app: 'web' }, 'other'));
    informer.update(labelled('a', { app: 'web' }), labelled('a', { app: 'db' }));
    assert.deepEqual(names(indexer.byIndex('app', 'web')), ['b']);
    assert.deepEqual(names(indexer.byIndex('app', 'db')), ['a']);
    assert.deepEqual(indexer.indexKeys('namespace', 'other'), ['other/b']);
    assert.deepEqual(indexer.indexValues('app').sort(), ['db', 'web']);

    informer.delete(labelled('b', { app: 'web' }, 'other'));
    assert.deepEqual(indexer.byIndex('app', 'web'), []);
    assert.deepEqual(indexer.indexValues('app'), ['db'], 'an emptied value is dropped');
  });

  test('a field index and a custom index with several values per object; indexes added later are built from the cache', () => {
    const informer = new CachingInformer();
    const one = widget('one', { spec: { node: 'n1', tags: ['x', 'y', 'x'] } });
    informer.add(one);
    const indexer = new CacheIndexer(informer, { node: indexByField((o: KubeObject) => (o.spec as { node?: string }).node) });
    const more = indexer.addIndexers({ tag: (o: KubeObject) => (o.spec as { tags: string[] }).tags });
    assert.deepEqual(names(more.byIndex('node', 'n1')), ['one']);
    assert.deepEqual(names(more.byIndex('tag', 'x')), ['one'], 'a value given twice indexes the object once');
    assert.deepEqual(names(more.byIndex('tag', 'y')), ['one']);
  });

  test('a lookup never returns a state the cache no longer has, even before the event reaches the indexer', () => {
    const informer = new CachingInformer();
    informer.add(labelled('a', { app: 'web' }));
    const indexer = new CacheIndexer(informer, { app: indexByLabel('app') });
    informer.cache.set('default/a', labelled('a', { app: 'db' })); // the store moved on, the event is not delivered yet
    assert.deepEqual(indexer.byIndex('app', 'web'), []);
    informer.cache.delete('default/a');
    assert.deepEqual(indexer.byIndex('app', 'db'), []);
  });

  test('bad input: unknown index, duplicate name, non-function, empty label, a throwing index function (counted)', () => {
    const informer = new CachingInformer();
    const indexer = new CacheIndexer(informer, {
      fails: () => {
        throw new Error('bug');
      },
    });
    informer.add(widget('a'));
    assert.equal(indexer.indexFuncErrors, 1);
    assert.deepEqual(indexer.indexValues('fails'), []);
    assert.throws(() => (indexer as CacheIndexer<KubeObject, string>).byIndex('nope', 'x'), isInvalidArgumentError);
    assert.throws(() => indexer.addIndexers({ fails: indexByNamespace }), isInvalidArgumentError);
    assert.throws(() => indexer.addIndexers({ bad: 'x' as never }), isInvalidArgumentError);
    assert.throws(() => indexByLabel(''), isInvalidArgumentError);
    assert.throws(() => new CacheIndexer(undefined as never, {}), isInvalidArgumentError);
  });

  describe('on a real informer over HTTP', () => {
    let cluster: EmbeddedCluster;
    let configMaps: Client<ConfigMap>;
    before(async () => {
      cluster = await startEmbeddedCluster();
      configMaps = cluster.client(ConfigMapKind);
    });
    after(async () => {
      await cluster.stop();
    });

    test('finds the children of an owner by uid without scanning the cache', async () => {
      const parent = await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'parent', namespace: 'default' } });
      const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: parent.metadata.uid!, controller: true };
      await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'child-1', namespace: 'default', ownerReferences: [owner] } });
      const informer = new KubernetesBasedInformer(ConfigMapKind, configMaps, 'default');
      const indexer = new CacheIndexer(informer, { owner: indexByOwnerUid });
      const stop = new AbortController();
      const running = informer.run(stop.signal);
      try {
        await informer.waitForSync(AbortSignal.timeout(10_000));
        assert.deepEqual(names(indexer.byIndex('owner', parent.metadata.uid!)), ['child-1']);
        await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'child-2', namespace: 'default', ownerReferences: [owner] } });
        await waitFor(() => indexer.byIndex('owner', parent.metadata.uid!).length === 2, { what: 'child-2 indexed' });
        await configMaps.delete({ namespace: 'default', name: 'child-1' });
        await waitFor(() => indexer.byIndex('owner', parent.metadata.uid!).length === 1, { what: 'child-1 unindexed' });
        assert.deepEqual(names(indexer.byIndex('owner', parent.metadata.uid!)), ['child-2']);
      } finally {
        stop.abort();
        await running;
      }
    });
  });
});
