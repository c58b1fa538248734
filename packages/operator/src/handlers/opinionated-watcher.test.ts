import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { FinalizerOperationError, isNilObjectError } from '../errors.js';
import { FakePatchClient, testContext, widget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import { newOpinionatedWatcher } from './opinionated-watcher.js';
import type { OpinionatedWatcher } from './opinionated-watcher.js';
import { SimpleWatcher } from './simple-watcher.js';

const F = 'operator.v1.Widget.example.com';
const deleting = '2024-01-01T00:00:00Z';

/** A watcher over a fake client, recording every user function call. */
function setup(): { w: OpinionatedWatcher; client: FakePatchClient; calls: string[]; fail: Set<string> } {
  const client = new FakePatchClient();
  const calls: string[] = [];
  const fail = new Set<string>();
  const w = newOpinionatedWatcher(widgetKind, client);
  const record = (name: string) => async (_ctx: unknown, o: KubeObject, n?: KubeObject) => {
    calls.push(`${name}:${(n ?? o).metadata.name}`);
    if (fail.has(name)) throw new Error(`${name} failed`);
  };
  w.addFunc = record('add');
  w.updateFunc = record('update');
  w.deleteFunc = record('delete');
  w.syncFunc = record('sync');
  return { w, client, calls, fail };
}

function finalizersOf(client: FakePatchClient): string[] | undefined {
  return client.objects.get('default/a')?.metadata.finalizers;
}

describe('OpinionatedWatcher', () => {
  test('uses the default finalizer operator.{version}.{kind}.{group}, and validates its construction', () => {
    assert.equal(setup().w.finalizer, F);
    assert.throws(() => newOpinionatedWatcher(undefined as never, new FakePatchClient()), /schema cannot be nil/);
    assert.throws(() => newOpinionatedWatcher(widgetKind, undefined as never), /client cannot be nil/);
    assert.throws(() => newOpinionatedWatcher(widgetKind, new FakePatchClient(), { finalizerSupplier: () => 'x'.repeat(64) }), /63/);
    assert.equal(newOpinionatedWatcher(widgetKind, new FakePatchClient(), { finalizerSupplier: () => 'my.io/f' }).finalizer, 'my.io/f');
  });

  describe('add', () => {
    test('a missing object is ErrNilObject', async () => {
      await assert.rejects(setup().w.add(testContext, undefined as never), (e) => isNilObjectError(e));
    });

    test('a deleting object without our finalizer is ignored', async () => {
      const { w, client, calls } = setup();
      await w.add(testContext, client.put(widget('a', '1', { finalizers: ['other.io/x'], deletionTimestamp: deleting })));
      assert.deepEqual(calls, []);
      assert.equal(client.patches.length, 0);
    });

    test('a deleting object with our finalizer gets deleteFunc, then our finalizer removed by value', async () => {
      const { w, client, calls } = setup();
      await w.add(testContext, client.put(widget('a', '1', { finalizers: ['other.io/x', F], deletionTimestamp: deleting })));
      assert.deepEqual(calls, ['delete:a']);
      assert.deepEqual(finalizersOf(client), ['other.io/x']);
    });

    test('when deleteFunc fails on a deleting object, the error is returned and nothing is patched', async () => {
      const { w, client, calls, fail } = setup();
      fail.add('delete');
      await assert.rejects(w.add(testContext, client.put(widget('a', '1', { finalizers: [F], deletionTimestamp: deleting }))), /delete failed/);
      assert.deepEqual(calls, ['delete:a']);
      assert.equal(client.patches.length, 0);
    });

    test('an object that already has our finalizer gets syncFunc (handled by an earlier run)', async () => {
      const { w, client, calls } = setup();
      await w.add(testContext, client.put(widget('a', '1', { finalizers: [F] })));
      assert.deepEqual(calls, ['sync:a']);
      assert.equal(client.patches.length, 0);
    });

    test('a new object gets addFunc, then our finalizer appended after the others', async () => {
      const { w, client, calls } = setup();
      await w.add(testContext, client.put(widget('a', '1', { finalizers: ['other.io/x'] })));
      assert.deepEqual(calls, ['add:a']);
      assert.deepEqual(finalizersOf(client), ['other.io/x', F]);
    });

    test('when addFunc fails, no finalizer is added', async () => {
      const { w, client, fail } = setup();
      fail.add('add');
      await assert.rejects(w.add(testContext, client.put(widget('a', '1'))), /add failed/);
      assert.equal(client.patches.length, 0);
    });

    test('a finalizer patch error is returned as "error adding finalizer"', async () => {
      const { w, client } = setup();
      client.failPatches.push(new ApiError({ status: 500, message: 'etcd down' }));
      await assert.rejects(w.add(testContext, client.put(widget('a', '1'))), (e) => e instanceof FinalizerOperationError && /error adding finalizer/.test(e.message));
    });
  });

  describe('update', () => {
    test('a missing old or new object is ErrNilObject', async () => {
      const { w } = setup();
      await assert.rejects(w.update(testContext, undefined as never, widget('a', '1')), (e) => isNilObjectError(e));
      await assert.rejects(w.update(testContext, widget('a', '1'), undefined as never), (e) => isNilObjectError(e));
    });

    test('an unchanged generation is ignored (status and metadata writes)', async () => {
      const { w, calls } = setup();
      await w.update(testContext, widget('a', '1', { generation: 2, finalizers: [F] }), widget('a', '2', { generation: 2, finalizers: [F] }));
      assert.deepEqual(calls, []);
    });

    test('without our finalizer and not deleting: addFunc, then the finalizer, then updateFunc (as upstream)', async () => {
      const { w, client, calls } = setup();
      const old = client.put(widget('a', '1', { generation: 1 }));
      await w.update(testContext, old, { ...old, metadata: { ...old.metadata, generation: 2 } });
      assert.deepEqual(calls, ['add:a', 'update:a']);
      assert.deepEqual(finalizersOf(client), [F]);
    });

    test('without our finalizer: a failing addFunc stops before the finalizer and updateFunc', async () => {
      const { w, client, calls, fail } = setup();
      fail.add('add');
      const old = client.put(widget('a', '1', { generation: 1 }));
      await assert.rejects(w.update(testContext, old, { ...old, metadata: { ...old.metadata, generation: 2 } }));
      assert.deepEqual(calls, ['add:a']);
      assert.equal(finalizersOf(client), undefined, 'no finalizer added');
    });

    test('deleting without our finalizer is ignored (the delete event will carry it)', async () => {
      const { w, calls } = setup();
      await w.update(testContext, widget('a', '1', { generation: 1 }), widget('a', '2', { generation: 2, deletionTimestamp: deleting }));
      assert.deepEqual(calls, []);
    });

    test('deleting with our finalizer gets deleteFunc, then our finalizer removed, keeping others', async () => {
      const { w, client, calls } = setup();
      const now = client.put(widget('a', '2', { generation: 2, finalizers: [F, 'other.io/x'], deletionTimestamp: deleting }));
      await w.update(testContext, widget('a', '1', { generation: 1, finalizers: [F, 'other.io/x'] }), now);
      assert.deepEqual(calls, ['delete:a']);
      assert.deepEqual(finalizersOf(client), ['other.io/x']);
    });

    test('the echo of our own finalizer add is ignored', async () => {
      const { w, calls } = setup();
      await w.update(testContext, widget('a', '1'), widget('a', '2', { finalizers: [F] }));
      assert.deepEqual(calls, []);
    });

    test('a real change of generation gets updateFunc', async () => {
      const { w, calls } = setup();
      await w.update(testContext, widget('a', '1', { generation: 1, finalizers: [F] }), widget('a', '2', { generation: 2, finalizers: [F] }));
      assert.deepEqual(calls, ['update:a']);
    });

    test('objects without a generation (ConfigMaps) are never ignored for it', async () => {
      const { w, calls } = setup();
      await w.update(testContext, widget('a', '1', { finalizers: [F] }), widget('a', '2', { finalizers: [F] }));
      assert.deepEqual(calls, ['update:a']);
    });
  });

  describe('delete (our fix: a delete is not lost)', () => {
    test('after our deleteFunc ran and the finalizer was removed, the final delete event is ignored', async () => {
      const { w, client, calls } = setup();
      const dying = client.put(widget('a', '2', { finalizers: [F], deletionTimestamp: deleting }));
      await w.add(testContext, dying);
      await w.delete(testContext, { ...dying, metadata: { ...dying.metadata, finalizers: [] } });
      assert.deepEqual(calls, ['delete:a']);
    });

    test('when addFunc failed, so no finalizer guarded the object, its delete event calls deleteFunc', async () => {
      const { w, client, calls, fail } = setup();
      const object = client.put(widget('a', '1', { generation: 1 }));
      fail.add('add');
      await assert.rejects(w.add(testContext, object));
      // Deleted before the retry succeeded: no finalizer of ours, so the API deletes it at once.
      await w.update(testContext, object, { ...object, metadata: { ...object.metadata, generation: 2, deletionTimestamp: deleting } });
      await w.delete(testContext, object);
      assert.deepEqual(calls, ['add:a', 'delete:a']);
    });

    test('a retry after a failed finalizer removal does not call deleteFunc twice', async () => {
      const { w, client, calls } = setup();
      const dying = client.put(widget('a', '2', { finalizers: [F], deletionTimestamp: deleting }));
      client.failPatches.push(new ApiError({ status: 500 }));
      await assert.rejects(w.add(testContext, dying));
      await w.add(testContext, dying);
      assert.deepEqual(calls, ['delete:a']);
      assert.equal(client.objects.size, 0);
    });
  });

  test('wrap sends adds, updates and deletes to a watcher, and syncs too when syncToAdd', async () => {
    const seen: string[] = [];
    const inner = new SimpleWatcher({
      addFunc: async (_c, o) => void seen.push(`add:${o.metadata.name}`),
      updateFunc: async (_c, _o, n) => void seen.push(`update:${n.metadata.name}`),
      deleteFunc: async (_c, o) => void seen.push(`delete:${o.metadata.name}`),
    });
    const client = new FakePatchClient();
    const w = newOpinionatedWatcher(widgetKind, client);
    w.wrap(inner, false);
    await w.add(testContext, client.put(widget('a', '1', { finalizers: [F] })));
    assert.deepEqual(seen, [], 'no sync without syncToAdd');
    w.wrap(inner, true);
    await w.add(testContext, client.put(widget('b', '1', { finalizers: [F] })));
    await w.update(testContext, widget('b', '1', { generation: 1, finalizers: [F] }), widget('b', '2', { generation: 2, finalizers: [F] }));
    await w.delete(testContext, widget('c', '1'));
    assert.deepEqual(seen, ['add:b', 'update:b', 'delete:c']);
  });
});
