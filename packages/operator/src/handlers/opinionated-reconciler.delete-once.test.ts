/**
 * Regression (found by the reliability suite, test/src/reliability): an object being deleted whose
 * other finalizer goes away while ours is being handled reaches the OpinionatedReconciler twice
 * with our finalizer still on the event's (older) object; the user's delete must run once.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReconcileAction } from './actions.js';
import { FakePatchClient, testContext, widget } from '../testing/informer-fakes.test-helper.js';
import { newOpinionatedReconciler } from './opinionated-reconciler.js';

const F = 'operator.v1.Widget.example.com';
const OTHER = 'other.example.com/cleanup';
const deleting = '2024-01-01T00:00:00Z';

describe('OpinionatedReconciler deletes', () => {
  test('two updates of one object being deleted, both still showing our finalizer, run the user delete once', async () => {
    const client = new FakePatchClient();
    const r = newOpinionatedReconciler(client, F);
    const seen: ReconcileAction[] = [];
    r.wrap({
      reconcile: async (_ctx, req) => {
        seen.push(req.action);
        return {};
      },
    });
    // The deletion starts: both finalizers on. Then the other controller removes its own: an update
    // of the object as it was before our removal landed.
    const first = client.put(widget('a', '5', { finalizers: [OTHER, F], deletionTimestamp: deleting }));
    await r.reconcile(testContext, { action: ReconcileAction.Updated, object: first });
    const second = widget('a', '6', { finalizers: [F], deletionTimestamp: deleting });
    await r.reconcile(testContext, { action: ReconcileAction.Updated, object: second });
    // And the final delete event.
    await r.reconcile(testContext, { action: ReconcileAction.Deleted, object: second });
    assert.deepEqual(seen, [ReconcileAction.Deleted]);
  });
});
