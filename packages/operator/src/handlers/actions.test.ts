import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ReconcileAction,
  ResourceActionCreate,
  ResourceActionDelete,
  ResourceActionUpdate,
  reconcileActionFromResourceAction,
  resourceActionFromReconcileAction,
} from './actions.js';

describe('actions', () => {
  test('ReconcileAction keeps the values of upstream iota order', () => {
    assert.deepEqual(
      [ReconcileAction.Unknown, ReconcileAction.Created, ReconcileAction.Updated, ReconcileAction.Deleted, ReconcileAction.Resynced],
      [0, 1, 2, 3, 4],
    );
    assert.deepEqual([ResourceActionCreate, ResourceActionUpdate, ResourceActionDelete], ['CREATE', 'UPDATE', 'DELETE']);
  });

  test('reconcileActionFromResourceAction maps CREATE, UPDATE, DELETE and anything else to Unknown', () => {
    assert.equal(reconcileActionFromResourceAction('CREATE'), ReconcileAction.Created);
    assert.equal(reconcileActionFromResourceAction('UPDATE'), ReconcileAction.Updated);
    assert.equal(reconcileActionFromResourceAction('DELETE'), ReconcileAction.Deleted);
    assert.equal(reconcileActionFromResourceAction('create'), ReconcileAction.Unknown);
    assert.equal(reconcileActionFromResourceAction(''), ReconcileAction.Unknown);
  });

  test('resourceActionFromReconcileAction is the reverse, and Resynced and Unknown have no resource action', () => {
    assert.equal(resourceActionFromReconcileAction(ReconcileAction.Created), 'CREATE');
    assert.equal(resourceActionFromReconcileAction(ReconcileAction.Updated), 'UPDATE');
    assert.equal(resourceActionFromReconcileAction(ReconcileAction.Deleted), 'DELETE');
    assert.equal(resourceActionFromReconcileAction(ReconcileAction.Resynced), '');
    assert.equal(resourceActionFromReconcileAction(ReconcileAction.Unknown), '');
    assert.equal(resourceActionFromReconcileAction(42 as ReconcileAction), '');
  });
});
