import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Duration } from 'luxon';
import { ApiError } from '@kubeloop/resource';
import type { Identifier, KubeObject } from '@kubeloop/resource';
import { isInvalidArgumentError } from '../../errors.js';
import { noopLogger } from '../../observability/logger.js';
import { widget } from '../../testing/fake-informer.js';
import { asReconciler } from './object-reconciler.js';
import type { ObjectGetter } from './object-reconciler.js';
import { reconcileFunc } from './reconciler.js';
import { requestFor, requestFromKey, requestKey } from './request.js';
import { resultIsZero } from './result.js';

const ctx = { signal: new AbortController().signal, logger: noopLogger };

function notFound(id: Identifier): ApiError {
  return new ApiError({ status: 404, reason: 'NotFound', message: `widgets "${id.name}" not found` });
}

describe('Result and Request', () => {
  test('resultIsZero is true only for a result that asks for nothing', () => {
    assert.equal(resultIsZero({}), true);
    assert.equal(resultIsZero(undefined), true);
    assert.equal(resultIsZero({ requeue: false, requeueAfter: 0 }), true);
    assert.equal(resultIsZero({ requeueAfter: Duration.fromMillis(0) }), true);
    assert.equal(resultIsZero({ requeue: true }), false);
    assert.equal(resultIsZero({ requeueAfter: 1 }), false);
    assert.equal(resultIsZero({ requeueAfter: Duration.fromObject({ seconds: 1 }) }), false);
  });

  test('resultIsZero compares with the zero value, as Go does: a negative requeueAfter is not zero', () => {
    assert.equal(resultIsZero({ requeueAfter: -5 }), false);
    assert.equal(resultIsZero({ requeueAfter: Duration.fromMillis(-5) }), false);
    assert.equal(resultIsZero({ requeue: undefined, requeueAfter: undefined }), true);
  });

  test('a request is the object key and back, cluster-scoped objects included', () => {
    assert.deepEqual(requestFor(widget('a', { namespace: 'ns' })), { namespace: 'ns', name: 'a' });
    assert.equal(requestKey({ namespace: 'ns', name: 'a' }), 'ns/a');
    assert.equal(requestKey({ namespace: '', name: 'node-1' }), 'node-1');
    assert.deepEqual(requestFromKey('ns/a'), { namespace: 'ns', name: 'a' });
    assert.deepEqual(requestFromKey('node-1'), { namespace: '', name: 'node-1' });
  });

  test('reconcileFunc turns a function into a Reconciler', async () => {
    const r = reconcileFunc(async (_ctx, req) => ({ requeueAfter: req.name.length }));
    assert.deepEqual(await r.reconcile(ctx, { namespace: 'default', name: 'test' }), { requeueAfter: 4 });
  });
});

describe('asReconciler', () => {
  test('reads the object of the request and passes it to the object reconciler', async () => {
    const stored = widget('a', { namespace: 'ns' });
    const client: ObjectGetter = { get: async (id) => (id.name === 'a' && id.namespace === 'ns' ? stored : Promise.reject(notFound(id))) };
    const seen: KubeObject[] = [];
    const r = asReconciler(client, {
      reconcile: async (_ctx, object) => {
        seen.push(object);
        return { requeue: true };
      },
    });
    assert.deepEqual(await r.reconcile(ctx, { namespace: 'ns', name: 'a' }), { requeue: true });
    assert.deepEqual(seen, [stored]);
  });

  test('a missing object means nothing to do and the object reconciler is not called', async () => {
    let called = false;
    const r = asReconciler({ get: (id) => Promise.reject(notFound(id)) }, {
      reconcile: async () => {
        called = true;
        return {};
      },
    });
    assert.deepEqual(await r.reconcile(ctx, { namespace: 'ns', name: 'gone' }), {});
    assert.equal(called, false);
  });

  test('other read errors are thrown so that the request is retried', async () => {
    const r = asReconciler({ get: () => Promise.reject(new Error('connection refused')) }, { reconcile: async () => ({}) });
    await assert.rejects(r.reconcile(ctx, { namespace: 'ns', name: 'a' }), /connection refused/);
  });

  test('refuses a missing client or reconciler', () => {
    assert.throws(() => asReconciler(undefined as never, { reconcile: async () => ({}) }), isInvalidArgumentError);
    assert.throws(() => asReconciler({ get: async () => widget('a') }, undefined as never), isInvalidArgumentError);
  });
});
