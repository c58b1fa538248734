import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import { ReconcileAction } from './actions.js';
import { ReconcileError, TerminalError, isNilObjectError } from '../errors.js';
import { FakePatchClient, testContext, widget } from '../testing/informer-fakes.test-helper.js';
import { OPINIONATED_CREATE_PATCH_PENDING, OPINIONATED_DELETE_PATCH_PENDING, OPINIONATED_FINALIZER_ADDED, newOpinionatedReconciler } from './opinionated-reconciler.js';
import type { OpinionatedReconciler } from './opinionated-reconciler.js';
import type { ReconcileRequest, ReconcileResult } from './reconciler.js';

const F = 'operator.v1.Widget.example.com';
const deleting = '2024-01-01T00:00:00Z';

interface Setup {
  r: OpinionatedReconciler;
  client: FakePatchClient;
  seen: { action: ReconcileAction; name: string; state: unknown; finalizers: string[] | undefined; storedFinalizers: string[] | undefined }[];
  /** What the wrapped reconciler does next: return a result or throw. */
  behaviour: { result?: ReconcileResult; error?: Error };
}

function setup(options: { finalizerFirst?: boolean } = {}): Setup {
  const client = new FakePatchClient();
  const s: Setup = { r: newOpinionatedReconciler(client, F, options), client, seen: [], behaviour: {} };
  s.r.wrap({
    reconcile: async (_ctx, req: ReconcileRequest) => {
      // What the request carried, and what the API server held when the wrapped reconciler ran.
      const storedFinalizers = client.objects.get(`default/${req.object.metadata.name}`)?.metadata.finalizers;
      s.seen.push({ action: req.action, name: req.object.metadata.name, state: req.state, finalizers: req.object.metadata.finalizers, storedFinalizers });
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

describe('OpinionatedReconciler with finalizerFirst', () => {
  /** What the reconcile threw (a test of a failure). */
  async function failureOf(promise: Promise<unknown>): Promise<ReconcileError> {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ReconcileError, `expected a ReconcileError, got ${String(err)}`);
    return err;
  }

  test('off by default: the wrapped reconciler runs before the finalizer is written (upstream order)', async () => {
    const s = setup();
    assert.equal(s.r.finalizerFirst, false);
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: s.client.put(widget('a', '1')) });
    assert.deepEqual(s.seen.map((x) => x.storedFinalizers), [undefined], 'no finalizer on the server while the wrapped reconciler ran');
    assert.deepEqual(finalizersOf(s.client), [F]);
  });

  test('Created without our finalizer: the finalizer is written first (others kept), then the written object is delegated as Created', async () => {
    const s = setup({ finalizerFirst: true });
    s.behaviour.result = { state: { step: 1 } };
    const result = await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: s.client.put(widget('a', '1', { finalizers: ['other.io/x'] })) });
    assert.deepEqual(
      s.seen.map((x) => [x.action, x.storedFinalizers, x.finalizers]),
      [[ReconcileAction.Created, ['other.io/x', F], ['other.io/x', F]]],
      'the server held our finalizer before the wrapped reconciler ran, and it got the object as written',
    );
    assert.equal(s.client.patches.length, 1);
    assert.deepEqual(result, { state: { step: 1 } }, 'a success carries no marker');
  });

  test('a failed finalizer write delegates nothing and is retried as a whole', async () => {
    const s = setup({ finalizerFirst: true });
    const object = s.client.put(widget('a', '1'));
    s.client.failPatches.push(new ApiError({ status: 500 }));
    await assert.rejects(s.r.reconcile(testContext, { action: ReconcileAction.Created, object }), /adding finalizer/);
    assert.deepEqual(s.seen, [], 'no user code before the finalizer is on');
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object });
    assert.deepEqual(actions(s), [ReconcileAction.Created]);
    assert.deepEqual(finalizersOf(s.client), [F]);
  });

  test('a failing or requeueing wrapped reconciler carries a marker: its retry delegates Created again without writing, even once the object shows our finalizer', async () => {
    const s = setup({ finalizerFirst: true });
    const object = s.client.put(widget('a', '1'));
    s.behaviour.error = new Error('inner');
    const err = await failureOf(s.r.reconcile(testContext, { action: ReconcileAction.Created, object, state: { mine: 1 } }));
    assert.equal((err.cause as Error).message, 'inner');
    assert.deepEqual(err.result.state, { mine: 1, [OPINIONATED_FINALIZER_ADDED]: true });

    s.behaviour = { result: { requeueAfter: 1000, state: { mine: 2 } } };
    const echo = structuredClone(s.client.objects.get('default/a')!);
    const requeued = await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: echo, state: err.result.state });
    assert.deepEqual(requeued, { requeueAfter: 1000, state: { mine: 2, [OPINIONATED_FINALIZER_ADDED]: true } });

    s.behaviour = {};
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: echo, state: requeued.state });
    assert.deepEqual(actions(s), [ReconcileAction.Created, ReconcileAction.Created, ReconcileAction.Created], 'still Created, not Resynced');
    assert.equal(s.client.patches.length, 1, 'the finalizer was written once');
  });

  test("a ReconcileError of the wrapped reconciler keeps its requeue and state, and a TerminalError stays the cause", async () => {
    const s = setup({ finalizerFirst: true });
    const object = s.client.put(widget('a', '1'));
    s.behaviour.error = new ReconcileError(new Error('later'), { requeueAfter: 50, state: { k: 'v' } });
    const err = await failureOf(s.r.reconcile(testContext, { action: ReconcileAction.Created, object }));
    assert.equal((err.cause as Error).message, 'later');
    assert.deepEqual(err.result, { requeueAfter: 50, state: { k: 'v', [OPINIONATED_FINALIZER_ADDED]: true } });
    const terminal = new TerminalError(new Error('bad spec'));
    s.behaviour.error = terminal;
    const wrapped = await failureOf(s.r.reconcile(testContext, { action: ReconcileAction.Created, object, state: err.result.state }));
    assert.equal(wrapped.cause, terminal, 'the controller reads the cause: never retried');
  });

  test('rule 1 is unchanged: Created with our finalizer (a restart) is delegated as Resynced, without a write', async () => {
    const s = setup({ finalizerFirst: true });
    await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: s.client.put(widget('a', '1', { finalizers: [F] })) });
    assert.deepEqual(actions(s), [ReconcileAction.Resynced]);
    assert.equal(s.client.patches.length, 0);
  });

  test('an object gone before the finalizer write is done: nothing delegated', async () => {
    const s = setup({ finalizerFirst: true });
    assert.deepEqual(await s.r.reconcile(testContext, { action: ReconcileAction.Created, object: widget('gone', '1') }), {});
    assert.deepEqual(s.seen, []);
  });
});
