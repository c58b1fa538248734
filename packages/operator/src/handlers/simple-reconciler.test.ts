import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReconcileAction } from './actions.js';
import { testContext, widget } from '../testing/informer-fakes.test-helper.js';
import { SimpleReconciler } from './simple-reconciler.js';

describe('SimpleReconciler', () => {
  test('returns what reconcileFunc returns', async () => {
    const r = new SimpleReconciler({ reconcileFunc: async (_ctx, req) => ({ requeueAfter: 5, state: { action: req.action } }) });
    assert.deepEqual(await r.reconcile(testContext, { action: ReconcileAction.Created, object: widget('a', '1') }), {
      requeueAfter: 5,
      state: { action: ReconcileAction.Created },
    });
  });

  test('without reconcileFunc every request succeeds with an empty result', async () => {
    assert.deepEqual(await new SimpleReconciler().reconcile(testContext, { action: ReconcileAction.Updated, object: widget('a', '1') }), {});
  });
});
