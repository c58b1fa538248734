import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import { ReconcileAction } from './actions.js';
import { ReconcileError, isNilObjectError } from '../errors.js';
import { FakePatchClient, testContext, widget } from '../testing/informer-fakes.test-helper.js';
import { OPINIONATED_CREATE_PATCH_PENDING, OPINIONATED_DELETE_PATCH_PENDING, newOpinionatedReconciler } from './opinionated-reconciler.js';
import type { OpinionatedReconciler } from './opinionated-reconciler.js';
import type { ReconcileRequest, ReconcileResult } from './reconciler.js';

const F = 'operator.v1.Widget.example.com';
const deleting = '2024-01-01T00:00:00Z';

interface Setup {
  r: OpinionatedReconciler;
  client: FakePatchClient;
  seen: { action: ReconcileAction; name: string; state: unknown }[];
  /** What the wrapped reconciler does next: return a result or throw. */
  behaviour: { result?: ReconcileResult; error?: Error };
}

function setup(): Setup {
  const client = new FakePatchClient();
  const s: Setup = { r: newOpinionatedReconciler(client, F), client, seen: [], behaviour: {} };
  s.r.wrap({
    reconcile: async (_ctx, req: ReconcileRequest) => {
      s.seen.push({ action: req.action, name: req.object.metadata.name, state: req.state });
      if (s.behaviour.error) throw s.behaviour.error;
      return s.behaviour.result ?? {};
    },
  });
  return s;
}

const finalizersOf = (client: FakePatchClient): string[] | undefined => client.objects.get('default/a')?.metadata.finalizers;
const actions = (s: Setup): ReconcileAction[] => s.seen.map((x) => x.action);

describe('OpinionatedReconciler', () => {
  test('construction checks the client and the finalizer', () => {
    assert.throws(() => newOpinionatedReconciler(undefined as never, F), /client cannot be nil/);
    assert.throws(() => newOpinionatedReconciler(new FakePatchClient(), ''), /finalizer cannot be empty/);
    assert.throws(() => newOpinionatedReconciler(new FakePatchClient(), 'x'.repeat(64)), /63/);
  });

  test('a missing object is ErrNilObject', async () => {
    await assert.rejects(setup().r.reconcile(testContext, { action: ReconcileAction.Created, object: undefined as never }), (e) => isNilObjectError(e));
  });

  test('rule 1: Created with our finalizer is delegated as Resynced', async () => {
    const s = setup();
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: s.client.put(widget('a', '1', { finalizers: [F] })) });
    assert.deepEqual(actions(s), [ReconcileAction.Resynced]);
    assert.equal(s.client.patches.length, 0);
  });

  test('rule 2: Created without our finalizer is delegated, then the finalizer is appended to the others', async () => {
    const s = setup();
    s.behaviour.result = { state: { step: 1 } };
    const result = await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: s.client.put(widget('a', '1', { finalizers: ['other.io/x'] })) });
    assert.deepEqual(actions(s), [ReconcileAction.Created]);
    assert.deepEqual(finalizersOf(s.client), ['other.io/x', F]);
    assert.deepEqual(result, { state: { step: 1 } });
  });

  test('rule 2: when the delegate fails or requeues, that is returned and no finalizer is added', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '1'));
    s.behaviour.error = new Error('inner');
    await assert.rejects(s.r.reconcile(testContext, { action: ReconcileAction.Created, object }), /inner/);
    s.behaviour = { result: { requeueAfter: 1000 } };
    assert.deepEqual(await s.r.reconcile(testContext, { action: ReconcileAction.Created, object }), { requeueAfter: 1000 });
    assert.equal(s.client.patches.length, 0);
  });

  test('rule 2: a finalizer patch error is thrown with a state marker, and the retry only patches', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '1'));
    s.client.failPatches.push(new ApiError({ status: 500 }));
    s.behaviour.result = { state: { mine: true } };
    const err = await s.r.reconcile(testContext, { action: ReconcileAction.Created, object }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ReconcileError);
    assert.deepEqual(err.result.state, { mine: true, [OPINIONATED_CREATE_PATCH_PENDING]: true });
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object, state: err.result.state });
    assert.equal(s.seen.length, 1, 'the retry skipped the delegate');
    assert.deepEqual(finalizersOf(s.client), [F]);
  });

  test('rule 0a (fixed): Updated, deleting, with our finalizer: delegated as Deleted first, then the finalizer removed', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '2', { finalizers: ['other.io/x', F], deletionTimestamp: deleting }));
    await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object });
    assert.deepEqual(actions(s), [ReconcileAction.Deleted]);
    assert.deepEqual(finalizersOf(s.client), ['other.io/x']);
  });

  test('rule 0a (fixed): when the delegated delete fails or requeues, the finalizer stays', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '2', { finalizers: [F], deletionTimestamp: deleting }));
    s.behaviour.error = new Error('cleanup failed');
    await assert.rejects(s.r.reconcile(testContext, { action: ReconcileAction.Updated, object }), /cleanup failed/);
    s.behaviour = { result: { requeueAfter: 5 } };
    assert.deepEqual(await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object }), { requeueAfter: 5 });
    assert.deepEqual(finalizersOf(s.client), [F]);
    assert.equal(s.client.patches.length, 0);
  });

  test('rule 0a (fixed): a failed removal is retried without delegating the delete again', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '2', { finalizers: [F], deletionTimestamp: deleting }));
    s.client.failPatches.push(new ApiError({ status: 503 }));
    const err = await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ReconcileError);
    assert.equal(err.result.state?.[OPINIONATED_DELETE_PATCH_PENDING], true);
    await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object, state: err.result.state });
    assert.deepEqual(actions(s), [ReconcileAction.Deleted]);
    assert.equal(s.client.objects.size, 0, 'the last finalizer gone, the object is deleted');
  });

  test('rule 0a (fixed): Created of an object being deleted with our finalizer (a restart) is handled as its deletion', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '2', { finalizers: [F], deletionTimestamp: deleting }));
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object });
    assert.deepEqual(actions(s), [ReconcileAction.Deleted]);
    assert.equal(s.client.objects.size, 0);
  });

  test('rule 0b (fixed): an object being deleted never gets our finalizer; the request is delegated unchanged', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '2', { finalizers: ['other.io/x'], deletionTimestamp: deleting }));
    await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object });
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object });
    assert.deepEqual(actions(s), [ReconcileAction.Updated, ReconcileAction.Created]);
    assert.equal(s.client.patches.length, 0);
  });

  test('rule 3: Updated without our finalizer adds it and does not delegate', async () => {
    const s = setup();
    await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object: s.client.put(widget('a', '1', { finalizers: ['other.io/x'] })) });
    assert.deepEqual(s.seen, []);
    assert.deepEqual(finalizersOf(s.client), ['other.io/x', F]);
  });

  test('rule 3 on resync: Resynced without our finalizer adds it and does not delegate (upstream resyncs arrive as Updated)', async () => {
    const s = setup();
    await s.r.reconcile(testContext, { action: ReconcileAction.Resynced, object: s.client.put(widget('a', '1', { finalizers: ['other.io/x'] })) });
    assert.deepEqual(s.seen, []);
    assert.deepEqual(finalizersOf(s.client), ['other.io/x', F]);
    // With the finalizer, a resync is delegated unchanged (rule 5).
    await s.r.reconcile(testContext, { action: ReconcileAction.Resynced, object: s.client.objects.get('default/a')! });
    assert.deepEqual(actions(s), [ReconcileAction.Resynced]);
  });

  test('rule 4 (fixed): the final Deleted of an object whose deletion was delegated is skipped; another Deleted is delegated', async () => {
    const s = setup();
    const object = s.client.put(widget('a', '2', { finalizers: [F], deletionTimestamp: deleting }));
    await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object });
    await s.r.reconcile(testContext, { action: ReconcileAction.Deleted, object });
    assert.deepEqual(actions(s), [ReconcileAction.Deleted]);
    await s.r.reconcile(testContext, { action: ReconcileAction.Deleted, object: widget('b', '1', { uid: 'other' }) });
    assert.deepEqual(actions(s), [ReconcileAction.Deleted, ReconcileAction.Deleted]);
  });

  test('rule 5: everything else is delegated unchanged, with its state', async () => {
    const s = setup();
    const object = widget('a', '1', { finalizers: [F] });
    await s.r.reconcile(testContext, { action: ReconcileAction.Updated, object, state: { k: 1 } });
    await s.r.reconcile(testContext, { action: ReconcileAction.Resynced, object });
    await s.r.reconcile(testContext, { action: ReconcileAction.Deleted, object: widget('a', '1') });
    assert.deepEqual(
      s.seen.map((x) => [x.action, x.state]),
      [
        [ReconcileAction.Updated, { k: 1 }],
        [ReconcileAction.Resynced, undefined],
        [ReconcileAction.Deleted, undefined],
      ],
    );
  });

  test('without a wrapped reconciler, delegated requests succeed empty', async () => {
    const client = new FakePatchClient();
    const r = newOpinionatedReconciler(client, F);
    assert.deepEqual(await r.reconcile(testContext, { action: ReconcileAction.Created, object: client.put(widget('a', '1')) }), {});
    assert.deepEqual(finalizersOf(client), [F]);
  });
});
