import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { FinalizerOperationError, InvalidArgumentError } from '../errors.js';
import { DefaultFinalizerSupplier, addFinalizer, hasFinalizer, removeFinalizer, validateFinalizerName } from './finalizer.js';
import { FakePatchClient, applyJsonPatch, widget, widgetKind } from '../testing/informer-fakes.test-helper.js';

const ours = 'operator.v1.Widget.example.com';
const id = { namespace: 'default', name: 'a' };

function stored(client: FakePatchClient, finalizers?: string[], extra: { deletionTimestamp?: string } = {}): KubeObject {
  return client.put(widget('a', '1', { finalizers, ...extra }));
}

describe('finalizer names', () => {
  test('DefaultFinalizerSupplier is operator.{version}.{kind}.{group}, the kind as written', () => {
    assert.equal(DefaultFinalizerSupplier(widgetKind), 'operator.v1.Widget.example.com');
    assert.equal(DefaultFinalizerSupplier({ ...widgetKind, group: '', kind: 'ConfigMap' }), 'operator.v1.ConfigMap');
  });

  test('validateFinalizerName accepts qualified names and rejects the rest', () => {
    for (const good of [ours, 'example.com/cleanup', 'kubernetes', 'a'.repeat(63), `${'a'.repeat(200)}.io/x`]) validateFinalizerName(good);
    for (const bad of ['', 'a'.repeat(64), 'Example.com/x', '-a', 'a/b/c', '/x', 'x/', `example.com/${'a'.repeat(64)}`]) {
      assert.throws(() => validateFinalizerName(bad), InvalidArgumentError, bad);
    }
  });
});

describe('addFinalizer', () => {
  test('creates the list when the object has none, guarded by the resourceVersion', async () => {
    const client = new FakePatchClient();
    const object = stored(client);
    const written = await addFinalizer(client, object, ours);
    assert.deepEqual(written!.metadata.finalizers, [ours]);
    assert.deepEqual(client.patches[0]!.operations, [
      { op: 'test', path: '/metadata/resourceVersion', value: object.metadata.resourceVersion },
      { op: 'add', path: '/metadata/finalizers', value: [ours] },
    ]);
  });

  test('appends to the finalizers of others and never replaces them', async () => {
    const client = new FakePatchClient();
    const object = stored(client, ['other.io/keep', 'third.io/keep']);
    const written = await addFinalizer(client, object, ours);
    assert.deepEqual(written!.metadata.finalizers, ['other.io/keep', 'third.io/keep', ours]);
    assert.equal(client.patches[0]!.operations[1]!.path, '/metadata/finalizers/-');
  });

  test('a concurrent edit fails the guard; the latest object is read and the add retried, keeping what the other writer added', async () => {
    const client = new FakePatchClient();
    const object = stored(client);
    client.beforePatch = (_id, n) => {
      if (n === 1) client.edit(id, (o) => (o.metadata.finalizers = ['other.io/raced']));
    };
    const written = await addFinalizer(client, object, ours);
    assert.deepEqual(written!.metadata.finalizers, ['other.io/raced', ours]);
    assert.equal(client.gets.length, 1);
    assert.equal(client.patches.length, 2);
  });

  test('does nothing when the finalizer is already there', async () => {
    const client = new FakePatchClient();
    const object = stored(client, [ours]);
    assert.equal(await addFinalizer(client, object, ours), object);
    assert.equal(client.patches.length, 0);
  });

  test('never adds to an object being deleted', async () => {
    const client = new FakePatchClient();
    const object = stored(client, ['other.io/x'], { deletionTimestamp: '2024-01-01T00:00:00Z' });
    assert.equal(await addFinalizer(client, object, ours), object);
    assert.equal(client.patches.length, 0);
  });

  test('an object that is gone resolves undefined', async () => {
    const client = new FakePatchClient();
    assert.equal(await addFinalizer(client, widget('a', '1'), ours), undefined);
  });

  test('conflicts beyond maxAttempts, and other API errors, become a FinalizerOperationError with the cause', async () => {
    const client = new FakePatchClient();
    const object = stored(client);
    client.beforePatch = () => client.edit(id, (o) => (o.metadata.labels = { n: String(Math.random()) }));
    const err = await addFinalizer(client, object, ours, { maxAttempts: 3 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof FinalizerOperationError);
    assert.equal(err.operation, 'add');
    assert.equal(client.patches.length, 3);

    const forbidden = new FakePatchClient();
    forbidden.failPatches.push(new ApiError({ status: 403 }));
    const err2 = await addFinalizer(forbidden, stored(forbidden), ours).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err2 instanceof FinalizerOperationError);
    assert.equal((err2.cause as ApiError).status, 403);
    assert.match(err2.message, /error adding finalizer/);
  });
});

describe('removeFinalizer', () => {
  test('removes by value, guarded by a test of the value at its index, keeping the others', async () => {
    const client = new FakePatchClient();
    const object = stored(client, ['other.io/a', ours, 'other.io/b']);
    const written = await removeFinalizer(client, object, ours);
    assert.deepEqual(written!.metadata.finalizers, ['other.io/a', 'other.io/b']);
    assert.deepEqual(client.patches[0]!.operations, [
      { op: 'test', path: '/metadata/finalizers/1', value: ours },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
  });

  test('under a concurrent edit that moves the finalizer, the guard fails and the retry removes ours, not someone else’s', async () => {
    const client = new FakePatchClient();
    const object = stored(client, ['other.io/a', ours, 'other.io/b']);
    client.beforePatch = (_id, n) => {
      if (n === 1) client.edit(id, (o) => (o.metadata.finalizers = [ours, 'other.io/b']));
    };
    const written = await removeFinalizer(client, object, ours);
    assert.deepEqual(written!.metadata.finalizers, ['other.io/b']);
    assert.equal(client.patches.length, 2);
    assert.equal(client.patches[1]!.operations[0]!.path, '/metadata/finalizers/0');
  });

  test('an unrelated concurrent write does not conflict', async () => {
    const client = new FakePatchClient();
    const object = stored(client, [ours]);
    client.edit(id, (o) => (o.metadata.labels = { x: 'y' }));
    const written = await removeFinalizer(client, object, ours);
    assert.deepEqual(written!.metadata.finalizers, []);
    assert.equal(client.patches.length, 1);
  });

  test('an absent finalizer needs no write, and an object that is gone counts as success', async () => {
    const client = new FakePatchClient();
    const object = stored(client, ['other.io/a']);
    assert.equal(await removeFinalizer(client, object, ours), object);
    assert.equal(client.patches.length, 0);
    assert.equal(await removeFinalizer(new FakePatchClient(), widget('a', '1', { finalizers: [ours] }), ours), undefined);
  });

  test('removing the last finalizer of an object being deleted lets it go', async () => {
    const client = new FakePatchClient();
    const object = stored(client, [ours], { deletionTimestamp: '2024-01-01T00:00:00Z' });
    await removeFinalizer(client, object, ours);
    assert.equal(client.objects.size, 0);
  });

  test('hasFinalizer reads the list', () => {
    assert.equal(hasFinalizer(widget('a', '1', { finalizers: [ours] }), ours), true);
    assert.equal(hasFinalizer(widget('a', '1'), ours), false);
  });
});

describe('the test JSON patch applier', () => {
  test('rejects a failed test', () => {
    assert.throws(() => applyJsonPatch({ a: [1] }, [{ op: 'test', path: '/a/0', value: 2 }]), /test failed/);
  });
});
