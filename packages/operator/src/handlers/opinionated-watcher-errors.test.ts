import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { isFinalizerOperationError, isNilObjectError } from '../errors.js';
import { FakePatchClient, testContext, widget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import { newOpinionatedWatcher } from './opinionated-watcher.js';

// The errors of OpinionatedWatcher, with upstream's texts (grafana-app-sdk operator/opinionatedwatcher.go).

const F = 'operator.v1.Widget.example.com';
const deleting = '2024-01-01T00:00:00Z';

function setup() {
  const client = new FakePatchClient();
  const calls: string[] = [];
  const w = newOpinionatedWatcher(widgetKind, client);
  w.addFunc = async (_ctx, o) => void calls.push(`add:${o.metadata.name}`);
  w.deleteFunc = async (_ctx, o) => void calls.push(`delete:${o.metadata.name}`);
  return { w, client, calls };
}

const etcdDown = (): ApiError => new ApiError({ status: 500, reason: 'InternalError', message: 'etcd down' });

describe('OpinionatedWatcher errors', () => {
  test('update with a missing old or new object says which, and is still a nil-object error', async () => {
    const { w } = setup();
    await assert.rejects(w.update(testContext, undefined as never, widget('a', '1')), (e: Error) => e.message === 'old cannot be nil' && isNilObjectError(e));
    await assert.rejects(w.update(testContext, widget('a', '1'), undefined as never), (e: Error) => e.message === 'new cannot be nil' && isNilObjectError(e));
    await assert.rejects(w.add(testContext, undefined as never), (e: Error) => e.message === 'object cannot be nil');
  });

  test('a failed finalizer add is "error adding finalizer: <the patch error>", on add and on update', async () => {
    const { w, client } = setup();
    const failure = etcdDown();
    client.failPatches.push(failure);
    const object = client.put(widget('a', '1', { generation: 1 }));
    await assert.rejects(w.add(testContext, object), (e: Error) => isFinalizerOperationError(e) && e.message === 'error adding finalizer: etcd down' && e.cause === failure);
    client.failPatches.push(etcdDown());
    const changed: KubeObject = { ...object, metadata: { ...object.metadata, generation: 2 } };
    await assert.rejects(w.update(testContext, object, changed), (e: Error) => e.message === 'error adding finalizer: etcd down');
  });

  test('a failed finalizer removal on add returns the patch error unchanged, after deleteFunc', async () => {
    const { w, client, calls } = setup();
    const failure = etcdDown();
    client.failPatches.push(failure);
    await assert.rejects(w.add(testContext, client.put(widget('a', '1', { finalizers: [F], deletionTimestamp: deleting }))), (e) => e === failure);
    assert.deepEqual(calls, ['delete:a']);
    assert.deepEqual(client.objects.get('default/a')?.metadata.finalizers, [F], 'the finalizer stays until a removal succeeds');
  });

  test('a failed finalizer removal on update returns the patch error unchanged, after deleteFunc', async () => {
    const { w, client, calls } = setup();
    const failure = etcdDown();
    const now = client.put(widget('a', '2', { generation: 2, finalizers: [F], deletionTimestamp: deleting }));
    client.failPatches.push(failure);
    await assert.rejects(w.update(testContext, widget('a', '1', { generation: 1, finalizers: [F] }), now), (e) => e === failure);
    assert.deepEqual(calls, ['delete:a']);
    assert.deepEqual(client.objects.get('default/a')?.metadata.finalizers, [F]);
  });
});
