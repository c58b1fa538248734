import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { PatchError } from './patch-error.js';

type Doc = Record<string, unknown>;

const owner = (uid: string, extra: Doc = {}): Doc => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${uid}`, uid, ...extra });

function configMap(metadata: Doc = {}, data: Doc = { a: '1' }): Doc {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', ...metadata }, data };
}

function meta(doc: Doc): Doc {
  return doc['metadata'] as Doc;
}

function expectPatchError(fn: () => unknown, status: number): void {
  assert.throws(fn, (err: unknown) => err instanceof PatchError && err.status === status);
}

describe('applyStrategicMergePatch: finalizers (patchStrategy merge, a set of strings)', () => {
  test('adds new finalizers after the existing ones and keeps existing ones', () => {
    const out = applyStrategicMergePatch(configMap({ finalizers: ['a', 'b'] }), { metadata: { finalizers: ['b', 'c'] } });
    assert.deepEqual(meta(out)['finalizers'], ['a', 'b', 'c']);
  });

  test('removes a finalizer with $deleteFromPrimitiveList', () => {
    const out = applyStrategicMergePatch(configMap({ finalizers: ['a', 'b', 'c'] }), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } });
    assert.deepEqual(meta(out)['finalizers'], ['a', 'c']);
  });

  test('removes one finalizer and adds another in the same patch', () => {
    const out = applyStrategicMergePatch(configMap({ finalizers: ['a'] }), {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['z'] },
    });
    assert.deepEqual(meta(out)['finalizers'], ['z']);
  });

  test('reorders with $setElementOrder as kubectl sends it', () => {
    const out = applyStrategicMergePatch(configMap({ finalizers: ['a', 'b', 'c'] }), {
      metadata: { '$setElementOrder/finalizers': ['c', 'a'], finalizers: ['c'] },
    });
    assert.deepEqual(meta(out)['finalizers'], ['c', 'a', 'b']);
  });

  test('deletes the whole list with null', () => {
    const out = applyStrategicMergePatch(configMap({ finalizers: ['a'] }), { metadata: { finalizers: null } });
    assert.equal('finalizers' in meta(out), false);
  });
});

describe('applyStrategicMergePatch: ownerReferences (merged by uid)', () => {
  test('merges an existing reference by uid and appends a new one', () => {
    const doc = configMap({ ownerReferences: [owner('1'), owner('2')] });
    const out = applyStrategicMergePatch(doc, { metadata: { ownerReferences: [{ uid: '2', controller: true }, owner('3')] } });
    assert.deepEqual(meta(out)['ownerReferences'], [owner('1'), owner('2', { controller: true }), owner('3')]);
  });

  test('removes a reference with $patch: delete', () => {
    const out = applyStrategicMergePatch(configMap({ ownerReferences: [owner('1'), owner('2')] }), {
      metadata: { ownerReferences: [{ uid: '1', $patch: 'delete' }] },
    });
    assert.deepEqual(meta(out)['ownerReferences'], [owner('2')]);
  });

  test('replaces the list with a $patch: replace item', () => {
    const out = applyStrategicMergePatch(configMap({ ownerReferences: [owner('1'), owner('2')] }), {
      metadata: { ownerReferences: [{ $patch: 'replace' }, owner('9')] },
    });
    assert.deepEqual(meta(out)['ownerReferences'], [owner('9')]);
  });

  test('refuses an item without the merge key with 422', () => {
    expectPatchError(() => applyStrategicMergePatch(configMap({ ownerReferences: [owner('1')] }), { metadata: { ownerReferences: [{ name: 'x' }] } }), 422);
  });
});

describe('applyStrategicMergePatch: maps and other lists', () => {
  test('merges labels and deletes one with null', () => {
    const out = applyStrategicMergePatch(configMap({ labels: { a: '1', b: '2' } }), { metadata: { labels: { b: null, c: '3' } } });
    assert.deepEqual(meta(out)['labels'], { a: '1', c: '3' });
  });

  test('merges ConfigMap data key by key', () => {
    const out = applyStrategicMergePatch(configMap({}, { a: '1', b: '2' }), { data: { b: '20', c: '3' } });
    assert.deepEqual(out['data'], { a: '1', b: '20', c: '3' });
  });

  test('replaces a map with $patch: replace', () => {
    const out = applyStrategicMergePatch(configMap({}, { a: '1', b: '2' }), { data: { $patch: 'replace', z: '26' } });
    assert.deepEqual(out['data'], { z: '26' });
  });

  test('deletes a map with $patch: delete', () => {
    const out = applyStrategicMergePatch(configMap({ annotations: { a: 'b' } }), { metadata: { annotations: { $patch: 'delete' } } });
    assert.equal('annotations' in meta(out), false);
  });

  test('keeps only $retainKeys after merging', () => {
    const out = applyStrategicMergePatch(configMap({}, { a: '1', b: '2', c: '3' }), { data: { $retainKeys: ['a', 'd'], d: '4' } });
    assert.deepEqual(out['data'], { a: '1', d: '4' });
  });

  test('refuses content outside $retainKeys with 422', () => {
    expectPatchError(() => applyStrategicMergePatch(configMap(), { data: { $retainKeys: ['a'], b: '2' } }), 422);
  });

  test('replaces lists that carry no merge strategy', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { versions: [{ name: 'v1' }, { name: 'v2' }] },
    };
    const out = applyStrategicMergePatch(crd, { spec: { versions: [{ name: 'v3', $patch: 'merge' }] } });
    assert.deepEqual((out['spec'] as Doc)['versions'], [{ name: 'v3' }]);
  });

  test('merges Namespace conditions by type', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'True' }] } };
    const out = applyStrategicMergePatch(ns, { status: { conditions: [{ type: 'B', status: 'False' }] } });
    assert.deepEqual((out['status'] as Doc)['conditions'], [
      { type: 'A', status: 'True' },
      { type: 'B', status: 'False' },
    ]);
  });

  test('never stores directives in new values', () => {
    const out = applyStrategicMergePatch(configMap(), { metadata: { labels: { $patch: 'merge', a: 'b' } }, binaryData: { $retainKeys: ['x'], x: 'eA==' } });
    assert.deepEqual(meta(out)['labels'], { a: 'b' });
    assert.deepEqual(out['binaryData'], { x: 'eA==' });
  });

  test('does not mutate the document', () => {
    const doc = configMap({ finalizers: ['a'], labels: { a: '1' } });
    const before = structuredClone(doc);
    applyStrategicMergePatch(doc, { metadata: { finalizers: ['b'], labels: { a: null } }, data: { $patch: 'replace' } });
    assert.deepEqual(doc, before);
  });

  test('rejects a patch that is not an object and an unknown $patch with 400', () => {
    expectPatchError(() => applyStrategicMergePatch(configMap(), [1]), 400);
    expectPatchError(() => applyStrategicMergePatch(configMap(), { data: { $patch: 'explode' } }), 400);
    expectPatchError(() => applyStrategicMergePatch(configMap(), { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }), 400);
  });
});
