import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReconcileAction } from './actions.js';
import { FakePatchClient, testContext, widget } from '../testing/informer-fakes.test-helper.js';
import { newOpinionatedReconciler } from './opinionated-reconciler.js';
import type { ReconcileRequest } from './reconciler.js';

// How OpinionatedReconciler's rule 2 (Created, our finalizer absent) treats the request's state.

const F = 'operator.v1.Widget.example.com';

describe('OpinionatedReconciler rule 2 and state', () => {
  test('the request is delegated as it is: same action, object and state', async () => {
    const client = new FakePatchClient();
    const seen: ReconcileRequest[] = [];
    const r = newOpinionatedReconciler(client, F);
    r.wrap({
      reconcile: async (_ctx, req) => {
        seen.push(req);
        return {};
      },
    });
    const object = client.put(widget('a', '1'));
    // A retry of a Created whose earlier call returned user state.
    const request: ReconcileRequest = { action: ReconcileAction.Created, object, state: { step: 'volumes-created' } };
    assert.deepEqual(await r.reconcile(testContext, request), {});
    assert.equal(seen.length, 1);
    assert.equal(seen[0], request, 'the very request, not a copy with changes');
    assert.deepEqual(seen[0]?.state, { step: 'volumes-created' });
    assert.deepEqual(client.objects.get('default/a')?.metadata.finalizers, [F]);
  });

  test('the result of the delegate, its state included, is returned once the finalizer is added', async () => {
    const client = new FakePatchClient();
    const r = newOpinionatedReconciler(client, F);
    r.wrap({ reconcile: async () => ({ state: { step: 'done' } }) });
    const object = client.put(widget('a', '1'));
    assert.deepEqual(await r.reconcile(testContext, { action: ReconcileAction.Created, object }), { state: { step: 'done' } });
  });
});
