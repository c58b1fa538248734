import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import type { EventRecorder, EventType } from '../../handlers/event-recorder.js';
import { TerminalError, isInvalidArgumentError } from '../../errors.js';
import { FakePatchClient, testContext } from '../../testing/informer-fakes.test-helper.js';
import { noopLogger } from '../../observability/logger.js';
import type { Logger } from '../../observability/logger.js';
import type { Result } from '../reconcile/result.js';
import { widget } from '../../testing/fake-informer.js';
import type { Diff } from './diff.js';
import type { ReconcileData, Reconciler } from './reconciler.js';
import { newStdReconciler } from './std-reconciler.js';

const FINALIZER = 'external.test.kubeloop.dev/cleanup';
const req = { namespace: 'default', name: 'a' };

interface Meta {
  api: string;
}

/** An external-resource reconciler that logs its steps; `fail` makes one step throw. */
class RecordingReconciler implements Reconciler<KubeObject, Meta> {
  readonly steps: string[] = [];
  errors: { meta: Meta | undefined; err: unknown }[] = [];
  diffResult: Diff = { needCreate: false, needUpdate: false };
  readResult: Result = {};
  createResult: Result = {};
  updateResult: Result = {};
  /** Runs in onError / onSuccess: the place to set a status condition. */
  onErrorDoes: ((resource: KubeObject) => void) | undefined;
  onSuccessDoes: ((resource: KubeObject) => void) | undefined;
  fail: string | undefined;
  onErrorThrows = false;

  private step(name: string): void {
    this.steps.push(name);
    if (this.fail === name) throw new Error(`${name} failed`);
  }

  configure(): Meta {
    this.step('configure');
    return { api: 'client' };
  }
  async read(_ctx: unknown, _r: KubeObject, data: ReconcileData, meta: Meta): Promise<Result> {
    this.step('read');
    data.actual = `read with ${meta.api}`;
    return this.readResult;
  }
  async create(): Promise<Result> {
    this.step('create');
    return this.createResult;
  }
  async update(): Promise<Result> {
    this.step('update');
    return this.updateResult;
  }
  async delete(): Promise<void> {
    this.step('delete');
  }
  async onError(_ctx: unknown, r: KubeObject, _data: ReconcileData, meta: Meta | undefined, err: unknown): Promise<void> {
    this.steps.push('onError');
    this.errors.push({ meta, err });
    this.onErrorDoes?.(r);
    if (this.onErrorThrows) throw new Error('onError broke');
  }
  async onSuccess(_ctx: unknown, r: KubeObject, data: ReconcileData, _meta: Meta, diff: Diff): Promise<void> {
    this.step('onSuccess');
    this.onSuccessDoes?.(r);
    assert.equal(data.actual, 'read with client');
    assert.equal(diff, this.diffResult);
  }
  diff(): Diff {
    this.step('diff');
    return this.diffResult;
  }
}

class Events implements EventRecorder {
  readonly recorded: [EventType, string][] = [];
  recordEvent(_object: KubeObject, type: EventType, reason: string): void {
    this.recorded.push([type, reason]);
  }
}

function setup(options: { finalizers?: string[]; deleting?: boolean; finalizer?: string; exists?: boolean } = {}) {
  const client = new FakePatchClient();
  if (options.exists !== false) {
    const obj = widget('a');
    obj.metadata.finalizers = options.finalizers ?? [];
    if (options.deleting) obj.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    client.put(obj);
  }
  const reconciler = new RecordingReconciler();
  const events = new Events();
  const errorsLogged: string[] = [];
  const logger: Logger = { ...noopLogger, error: (message) => errorsLogged.push(message) };
  const std = newStdReconciler(client, options.finalizer ?? FINALIZER, reconciler, { recorder: events, logger });
  const stored = (): KubeObject | undefined => client.objects.get('default/a');
  return { client, reconciler, events, std, stored, errorsLogged };
}

describe('StdReconciler', () => {
  test('1. a missing object is done: no step runs', async () => {
    const t = setup({ exists: false });
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.deepEqual(t.reconciler.steps, []);
  });

  test('2. a new object gets the finalizer added beside the others and the reconcile ends with requeue: true', async () => {
    const t = setup({ finalizers: ['someone.else/keep'] });
    t.reconciler.diffResult = { needCreate: true, needUpdate: false };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeue: true });
    assert.deepEqual(t.stored()?.metadata.finalizers, ['someone.else/keep', FINALIZER]);
    assert.deepEqual(t.reconciler.steps, [], 'the flow runs on the next pass, from the written object');
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'diff', 'create', 'onSuccess']);
    assert.deepEqual(t.events.recorded, [
      ['Normal', 'AddedFinalizer'],
      ['Normal', 'Created'],
    ]);
  });

  test('2. a failed finalizer add records a Warning and is thrown, without onError', async () => {
    const t = setup({ finalizers: [] });
    t.client.failPatches.push(new ApiError({ status: 500, reason: 'InternalError', message: 'etcd down' }));
    await assert.rejects(t.std.reconcile(testContext, req), /etcd down/);
    assert.deepEqual(t.reconciler.steps, []);
    assert.deepEqual(t.events.recorded, [['Warning', 'AddingFinalizer']]);
  });

  test('3-4. configure runs before read, and a non-empty read result ends the reconcile with it', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    t.reconciler.readResult = { requeueAfter: 30_000 };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 30_000 });
    assert.deepEqual(t.reconciler.steps, ['configure', 'read']);
  });

  test('5. an object being deleted has its external resource deleted, then only our finalizer removed', async () => {
    const t = setup({ finalizers: ['someone.else/keep', FINALIZER], deleting: true });
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'delete']);
    assert.deepEqual(t.stored()?.metadata.finalizers, ['someone.else/keep']);
    assert.deepEqual(t.events.recorded, [['Normal', 'Deleted']]);
  });

  test('5. when delete fails the finalizer stays, onError is called and the error is thrown', async () => {
    const t = setup({ finalizers: [FINALIZER], deleting: true });
    t.reconciler.fail = 'delete';
    await assert.rejects(t.std.reconcile(testContext, req), /delete failed/);
    assert.deepEqual(t.stored()?.metadata.finalizers, [FINALIZER]);
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'delete', 'onError']);
  });

  test('5. the last finalizer removed deletes the object and the flow is done', async () => {
    const t = setup({ finalizers: [FINALIZER], deleting: true });
    await t.std.reconcile(testContext, req);
    assert.equal(t.stored(), undefined);
  });

  test('2. an object being deleted without our finalizer is done: nothing of ours to clean up', async () => {
    const t = setup({ finalizers: ['someone.else/keep'], deleting: true });
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.deepEqual(t.reconciler.steps, []);
    assert.deepEqual(t.stored()?.metadata.finalizers, ['someone.else/keep']);
  });

  test('without a finalizer none is added and a deleted object is never passed to delete', async () => {
    const t = setup({ finalizer: '' });
    t.reconciler.diffResult = { needCreate: false, needUpdate: true, diff: 'size 1 -> 2' };
    await t.std.reconcile(testContext, req);
    assert.deepEqual(t.stored()?.metadata.finalizers, []);
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'diff', 'update', 'onSuccess']);

    const d = setup({ finalizer: '', deleting: true, finalizers: ['someone.else/keep'] });
    await d.std.reconcile(testContext, req);
    assert.deepEqual(d.reconciler.steps, []);
  });

  test('7. create and then update run when both are flagged, and the last result counts', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    t.reconciler.diffResult = { needCreate: true, needUpdate: true };
    t.reconciler.createResult = { requeueAfter: 5_000 };
    assert.deepEqual(await t.std.reconcile(testContext, req), {}, "update's empty result replaces create's, as upstream");
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'diff', 'create', 'update', 'onSuccess']);
  });

  test('7-8. a non-empty result of the last write ends the reconcile with it, without onSuccess', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    t.reconciler.diffResult = { needCreate: true, needUpdate: false };
    t.reconciler.createResult = { requeueAfter: 5_000 };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 5_000 });
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'diff', 'create']);

    const u = setup({ finalizers: [FINALIZER] });
    u.reconciler.diffResult = { needCreate: true, needUpdate: true };
    u.reconciler.updateResult = { requeue: true };
    assert.deepEqual(await u.std.reconcile(testContext, req), { requeue: true });
    assert.deepEqual(u.reconciler.steps, ['configure', 'read', 'diff', 'create', 'update']);
  });

  test('a status changed by onSuccess is written to the status subresource, guarded by the resourceVersion', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    const rv = t.stored()?.metadata.resourceVersion;
    t.reconciler.onSuccessDoes = (r) => {
      r.status = { conditions: [{ type: 'Ready', status: 'True' }] };
    };
    await t.std.reconcile(testContext, req);
    assert.deepEqual(t.stored()?.status, { conditions: [{ type: 'Ready', status: 'True' }] });
    assert.deepEqual(t.client.patches.at(-1)?.operations, [
      { op: 'test', path: '/metadata/resourceVersion', value: rv },
      { op: 'add', path: '/status', value: { conditions: [{ type: 'Ready', status: 'True' }] } },
    ]);
    assert.equal(t.client.patchOptions.at(-1)?.subresource, 'status');
  });

  test('a status changed by onError is written back too, and the error is still thrown', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    t.reconciler.fail = 'read';
    t.reconciler.onErrorDoes = (r) => {
      r.status = { conditions: [{ type: 'Ready', status: 'False', reason: 'ReadFailed' }] };
    };
    await assert.rejects(t.std.reconcile(testContext, req), /read failed/);
    assert.deepEqual(t.stored()?.status, { conditions: [{ type: 'Ready', status: 'False', reason: 'ReadFailed' }] });
  });

  test('an unchanged status is not written, and a failed status write is logged, not thrown', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    await t.std.reconcile(testContext, req);
    assert.equal(t.client.patches.length, 0, 'nothing changed, nothing written');

    t.reconciler.onSuccessDoes = (r) => {
      r.status = { phase: 'Ready' };
    };
    t.client.failPatches.push(new ApiError({ status: 409, reason: 'Conflict', message: 'the object has been modified' }));
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.equal(t.client.patches.length, 1);
    assert.equal(t.stored()?.status, undefined);
    assert.deepEqual(t.errorsLogged, ['error when updating the status']);
  });

  test('6-8. nothing to do still calls onSuccess and returns an empty result', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'diff', 'onSuccess']);
    assert.deepEqual(t.events.recorded, []);
  });

  test('an error in a step calls onError with the meta, records a Warning and is thrown', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    t.reconciler.diffResult = { needCreate: true, needUpdate: false };
    t.reconciler.fail = 'create';
    await assert.rejects(t.std.reconcile(testContext, req), /create failed/);
    assert.deepEqual(t.reconciler.steps, ['configure', 'read', 'diff', 'create', 'onError']);
    assert.deepEqual(t.reconciler.errors[0]?.meta, { api: 'client' });
    assert.deepEqual(t.events.recorded, [['Warning', 'Failed']]);
  });

  test('a configure error reaches onError without meta', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    t.reconciler.fail = 'configure';
    await assert.rejects(t.std.reconcile(testContext, req), /configure failed/);
    assert.equal(t.reconciler.errors[0]?.meta, undefined);
  });

  test('a failing onError does not hide the original error, and a TerminalError stays terminal', async () => {
    const t = setup({ finalizers: [FINALIZER] });
    t.reconciler.onErrorThrows = true;
    t.reconciler.fail = 'read';
    await assert.rejects(t.std.reconcile(testContext, req), /read failed/);

    const terminal = setup({ finalizers: [FINALIZER] });
    terminal.reconciler.read = async () => {
      throw new TerminalError(new Error('spec cannot be satisfied'));
    };
    await assert.rejects(terminal.std.reconcile(testContext, req), (err: unknown) => err instanceof TerminalError);
  });

  test('an invalid finalizer name or a missing client or reconciler is refused', () => {
    const reconciler = new RecordingReconciler();
    assert.throws(() => newStdReconciler(new FakePatchClient(), 'Not A Valid/Finalizer!', reconciler), isInvalidArgumentError);
    assert.throws(() => newStdReconciler(undefined as never, FINALIZER, reconciler), isInvalidArgumentError);
    assert.throws(() => newStdReconciler(new FakePatchClient(), FINALIZER, undefined as never), isInvalidArgumentError);
  });
});
