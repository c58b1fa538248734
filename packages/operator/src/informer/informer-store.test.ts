import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubeloop/resource';
import { InformerStore, ObjectIndex } from './informer-store.js';

function obj(namespace: string | undefined, name: string, resourceVersion = '1', uid = `uid-${name}`): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, resourceVersion, uid } };
}

describe('ObjectIndex', () => {
  test('finds objects by namespace/name and cluster-scoped name, and lists the same keys', () => {
    const index = new ObjectIndex();
    index.add(obj('a', 'x'));
    index.add(obj('b', 'x'));
    index.add(obj(undefined, 'node-1'));
    index.add(obj('a', 'y'));
    assert.equal(index.size, 4);
    assert.equal(index.get('a/x')?.metadata.namespace, 'a');
    assert.equal(index.get('b/x')?.metadata.namespace, 'b');
    assert.equal(index.get('node-1')?.metadata.name, 'node-1');
    assert.equal(index.get('c/x'), undefined);
    assert.equal(index.has('a/y'), true);
    assert.deepEqual([...index.keys()].sort(), ['a/x', 'a/y', 'b/x', 'node-1']);
    assert.equal([...index.values()].length, 4);
  });

  test('keys set by string round-trip through keys(), whatever their slashes', () => {
    const index = new ObjectIndex();
    for (const key of ['ns/name', 'plain', '/leading', 'a/b/c']) index.set(key, obj('ignored', key));
    assert.deepEqual([...index.keys()].sort(), ['/leading', 'a/b/c', 'ns/name', 'plain']);
    for (const key of ['ns/name', 'plain', '/leading', 'a/b/c']) assert.equal(index.get(key)?.metadata.name, key);
  });

  test('replacing keeps the size, deleting frees an emptied namespace', () => {
    const index = new ObjectIndex();
    index.add(obj('a', 'x', '1'));
    assert.equal(index.put('a', 'x', obj('a', 'x', '2'))?.metadata.resourceVersion, '1');
    assert.equal(index.size, 1);
    assert.equal(index.delete('a/x'), true);
    assert.equal(index.delete('a/x'), false);
    assert.equal(index.size, 0);
    assert.deepEqual([...index.keys()], []);
    index.add(obj('a', 'x', '3'));
    assert.equal(index.get('a/x')?.metadata.resourceVersion, '3');
  });
});

describe('InformerStore', () => {
  test('replace reports adds, updates, recreations and deletes, and the view follows the swap', () => {
    const store = new InformerStore();
    const view = store.view;
    store.replace(new Map([['a/keep', obj('a', 'keep', '1')], ['a/change', obj('a', 'change', '1')], ['a/recreate', obj('a', 'recreate', '1', 'u1')], ['a/gone', obj('a', 'gone')]]));
    assert.equal(view.size, 4);
    const fresh = new ObjectIndex();
    fresh.add(obj('a', 'keep', '1'));
    fresh.add(obj('a', 'change', '2'));
    fresh.add(obj('a', 'recreate', '5', 'u2'));
    fresh.add(obj('b', 'new'));
    const deltas = store.replace(fresh).map((d) => `${d.type}:${d.object.metadata.namespace}/${d.object.metadata.name}`);
    assert.deepEqual(deltas, ['update:a/change', 'delete:a/recreate', 'add:a/recreate', 'add:b/new', 'delete:a/gone']);
    assert.equal(view.size, 4);
    assert.equal(view.get('a/gone'), undefined);
    assert.equal(view.get('b/new')?.metadata.name, 'new');
    assert.equal(store.getByName('a', 'change')?.metadata.resourceVersion, '2');
  });
});
