import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { TerminalError, isTerminalError } from '../../errors.js';
import { FakePatchClient, testContext } from '../../testing/informer-fakes.test-helper.js';
import type { Result } from '../reconcile/result.js';
import { widget } from '../../testing/fake-informer.js';
import type { K8sDiff } from './diff.js';
import { isPhaseError } from './phase-error.js';
import type { K8sDiffResult, K8sPhaseReconciler, K8sReconciler, ReconcileData } from './reconciler.js';
import { newStdK8sReconciler } from './std-k8s-reconciler.js';

const FINALIZER = 'children.test.kubeloop.dev/cleanup';
const req = { namespace: 'default', name: 'a' };

/** Shared step log of the main reconciler and its phases. */
type Log = string[];

class MainReconciler implements K8sReconciler {
  failDelete = false;
  onErrorResult: Result | 'rethrow' = 'rethrow';
  onSuccessFails = false;
  readonly errors: unknown[] = [];
  constructor(private readonly log: Log) {}
  configure(): Result {
    this.log.push('main.configure');
    return {};
  }
  read(_ctx: unknown, _r: KubeObject, data: ReconcileData): Result {
    this.log.push('main.read');
    data.readByMain = true;
    return {};
  }
  async delete(): Promise<void> {
    this.log.push('main.delete');
    if (this.failDelete) throw new Error('main delete failed');
  }
  async onError(_ctx: unknown, r: KubeObject, _d: ReconcileData, err: unknown): Promise<Result> {
    this.log.push('main.onError');
    this.errors.push(err);
    r.status = { conditions: [{ type: 'Ready', status: 'False', message: errorText(err) }] };
    if (this.onErrorResult === 'rethrow') throw err;
    return this.onErrorResult;
  }
  async onSuccess(_ctx: unknown, r: KubeObject): Promise<Result> {
    this.log.push('main.onSuccess');
    if (this.onSuccessFails) throw new Error('main onSuccess failed');
    r.status = { conditions: [{ type: 'Ready', status: 'True' }] };
    return { requeueAfter: 600_000 };
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

class Phase implements K8sPhaseReconciler {
  diffResult: K8sDiff = { needCreate: false, needUpdate: false, needDelete: false };
  fail: string | undefined;
  results: Record<string, Result> = {};
  onErrorResult: Result | 'rethrow' | 'terminal' = 'rethrow';
  constructor(
    private readonly name: string,
    private readonly log: Log,
  ) {}
  private step(step: string, data?: ReconcileData): Result {
    this.log.push(`${this.name}.${step}`);
    if (data !== undefined) assert.equal(data.readByMain, true, 'phases see what the main read put in data');
    if (this.fail === step) throw new Error(`${this.name}.${step} failed`);
    return this.results[step] ?? {};
  }
  configure(): Result {
    return this.step('configure');
  }
  async read(_ctx: unknown, _r: KubeObject, data: ReconcileData): Promise<Result> {
    return this.step('read', data);
  }
  async create(): Promise<Result> {
    return this.step('create');
  }
  async update(): Promise<Result> {
    return this.step('update');
  }
  async delete(): Promise<Result> {
    return this.step('delete');
  }
  async onError(_ctx: unknown, _r: KubeObject, _d: ReconcileData, err: unknown): Promise<Result> {
    this.log.push(`${this.name}.onError`);
    if (this.onErrorResult === 'rethrow') throw new Error(`${this.name} could not handle it`);
    if (this.onErrorResult === 'terminal') throw new TerminalError(err);
    return this.onErrorResult;
  }
  async onSuccess(_ctx: unknown, _r: KubeObject, _d: ReconcileData, diff: K8sDiff): Promise<Result> {
    assert.equal(diff, this.diffResult);
    return this.step('onSuccess');
  }
  diff(): K8sDiffResult {
    return [this.diffResult, this.step('diff')];
  }
  getName(): string {
    return this.name;
  }
}

function setup(options: { finalizers?: string[]; deleting?: boolean } = {}) {
  const client = new FakePatchClient();
  const obj = widget('a');
  obj.metadata.finalizers = options.finalizers ?? [FINALIZER];
  if (options.deleting) obj.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
  client.put(obj);
  const log: Log = [];
  const main = new MainReconciler(log);
  const p1 = new Phase('configmap', log);
  const p2 = new Phase('secret', log);
  const p3 = new Phase('service', log);
  const std = newStdK8sReconciler(client, FINALIZER, main, { phases: [p1, p2, p3] });
  return { client, log, main, p1, p2, p3, std, stored: () => client.objects.get('default/a') };
}

describe('StdK8sReconciler', () => {
  test('2. a missing finalizer is added and the reconcile ends with requeue: true; the next pass runs the flow', async () => {
    const t = setup({ finalizers: ['someone.else/keep'] });
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeue: true });
    assert.deepEqual(t.stored()?.metadata.finalizers, ['someone.else/keep', FINALIZER]);
    assert.deepEqual(t.log, []);
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 600_000 });
    assert.equal(t.log.at(-1), 'main.onSuccess');
  });

  test('2. a failed finalizer add goes to the main onError', async () => {
    const t = setup({ finalizers: [] });
    t.client.failPatches.push(new ApiError({ status: 500, reason: 'InternalError', message: 'etcd down' }));
    t.main.onErrorResult = { requeueAfter: 3_000 };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 3_000 });
    assert.deepEqual(t.log, ['main.onError']);
  });

  test('runs the main steps, then each phase in order with every step the diff asks for, then the main onSuccess', async () => {
    const t = setup();
    t.p1.diffResult = { needCreate: true, needUpdate: false, needDelete: false };
    t.p2.diffResult = { needCreate: true, needUpdate: true, needDelete: true };
    const result = await t.std.reconcile(testContext, req);
    assert.deepEqual(result, { requeueAfter: 600_000 });
    assert.deepEqual(t.log, [
      'main.configure',
      'main.read',
      'configmap.configure',
      'configmap.read',
      'configmap.diff',
      'configmap.create',
      'configmap.onSuccess',
      'secret.configure',
      'secret.read',
      'secret.diff',
      'secret.create',
      'secret.update',
      'secret.delete',
      'secret.onSuccess',
      'service.configure',
      'service.read',
      'service.diff',
      'service.onSuccess',
      'main.onSuccess',
    ]);
  });

  test('the result of the last write a phase ran counts: an empty one after a non-empty one goes on', async () => {
    const t = setup();
    t.p1.diffResult = { needCreate: true, needUpdate: true, needDelete: false };
    t.p1.results.create = { requeue: true };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 600_000 });
    assert.ok(t.log.includes('configmap.onSuccess'));
    assert.equal(t.log.at(-1), 'main.onSuccess');
  });

  test('a non-empty result of the last write ends the reconcile with it, without the phase onSuccess', async () => {
    const t = setup();
    t.p1.diffResult = { needCreate: true, needUpdate: true, needDelete: true };
    t.p1.results.delete = { requeueAfter: 7_000 };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 7_000 });
    assert.deepEqual(t.log.slice(-3), ['configmap.create', 'configmap.update', 'configmap.delete']);
  });

  test('a non-empty result of configure, read or diff, or of the phase onSuccess, ends the reconcile with it', async () => {
    for (const step of ['configure', 'read', 'diff', 'onSuccess']) {
      const t = setup();
      t.p2.results[step] = { requeueAfter: 4_000 };
      assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 4_000 }, step);
      assert.equal(t.log.at(-1), `secret.${step}`);
      assert.ok(!t.log.some((s) => s.startsWith('service.')), `no later phase after ${step}`);
    }
  });

  test('an error in a phase handled with an empty result goes on with the next phase and the main onSuccess', async () => {
    const t = setup();
    t.p2.fail = 'read';
    t.p2.onErrorResult = {};
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 600_000 });
    assert.deepEqual(t.log.slice(-8), [
      'secret.configure',
      'secret.read',
      'secret.onError',
      'service.configure',
      'service.read',
      'service.diff',
      'service.onSuccess',
      'main.onSuccess',
    ]);
  });

  test('an error in a phase handled with a non-empty result ends the reconcile with it', async () => {
    const t = setup();
    t.p2.fail = 'read';
    t.p2.onErrorResult = { requeueAfter: 1_000 };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 1_000 });
    assert.deepEqual(t.log.slice(-4), ['configmap.onSuccess', 'secret.configure', 'secret.read', 'secret.onError']);
    assert.ok(!t.log.some((s) => s.startsWith('service.')), 'later phases do not run');
    assert.ok(!t.log.includes('main.onSuccess'));
  });

  test('an error a phase does not handle goes to the main onError as a PhaseError, whose result ends the reconcile', async () => {
    const t = setup();
    t.p1.diffResult = { needCreate: false, needUpdate: true, needDelete: false };
    t.p1.fail = 'update';
    t.main.onErrorResult = { requeueAfter: 2_000 };
    assert.deepEqual(await t.std.reconcile(testContext, req), { requeueAfter: 2_000 });
    assert.deepEqual(t.log.slice(-3), ['configmap.update', 'configmap.onError', 'main.onError']);
    const err = t.main.errors[0];
    assert.ok(isPhaseError(err));
    assert.equal(err.phase, 'configmap');
    assert.equal(err.message, 'Error when run phase configmap: configmap could not handle it');
  });

  test('an error thrown by a phase onSuccess goes to the main onError, not to the phase onError', async () => {
    const t = setup();
    t.p1.fail = 'onSuccess';
    t.main.onErrorResult = {};
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.deepEqual(t.log.slice(-2), ['configmap.onSuccess', 'main.onError']);
    assert.match(String(t.main.errors[0]), /configmap\.onSuccess failed/);
  });

  test('a TerminalError passed on by a phase stays terminal through the PhaseError', async () => {
    const t = setup();
    t.p1.onErrorResult = 'terminal';
    t.p1.fail = 'read';
    await assert.rejects(t.std.reconcile(testContext, req), (err: unknown) => isTerminalError(err));
  });

  test('an error nobody handles rejects the reconcile, so that the controller retries it', async () => {
    const t = setup();
    t.p3.fail = 'diff';
    await assert.rejects(t.std.reconcile(testContext, req), /service could not handle it/);
    assert.deepEqual(t.log.slice(-3), ['service.diff', 'service.onError', 'main.onError']);
  });

  test('an error of the main onSuccess is the reconcile error, as is: the main onError does not see it', async () => {
    const t = setup();
    t.main.onSuccessFails = true;
    await assert.rejects(t.std.reconcile(testContext, req), /main onSuccess failed/);
    assert.equal(t.log.at(-1), 'main.onSuccess');
    assert.equal(t.main.errors.length, 0);
  });

  test('a status set by the main onSuccess or onError is written to the status subresource', async () => {
    const t = setup();
    await t.std.reconcile(testContext, req);
    assert.deepEqual(t.stored()?.status, { conditions: [{ type: 'Ready', status: 'True' }] });
    assert.equal(t.client.patchOptions.at(-1)?.subresource, 'status');

    t.p1.fail = 'read';
    await assert.rejects(t.std.reconcile(testContext, req));
    assert.deepEqual(t.stored()?.status, { conditions: [{ type: 'Ready', status: 'False', message: 'Error when run phase configmap: configmap could not handle it' }] });
  });

  test('an object being deleted runs the main delete, removes only our finalizer and runs no phase', async () => {
    const t = setup({ finalizers: [FINALIZER, 'someone.else/keep'], deleting: true });
    assert.deepEqual(await t.std.reconcile(testContext, req), {});
    assert.deepEqual(t.log, ['main.configure', 'main.read', 'main.delete']);
    assert.deepEqual(t.stored()?.metadata.finalizers, ['someone.else/keep']);
  });

  test('a failed delete keeps the finalizer and goes to the main onError', async () => {
    const t = setup({ deleting: true });
    t.main.failDelete = true;
    await assert.rejects(t.std.reconcile(testContext, req), /main delete failed/);
    assert.deepEqual(t.stored()?.metadata.finalizers, [FINALIZER]);
    assert.deepEqual(t.log, ['main.configure', 'main.read', 'main.delete', 'main.onError']);
  });

  // Deliberate difference (README): upstream sleeps 1 s at the start of every reconcile.
  test('reconcile reads the object at once, without sleeping first', async () => {
    const t = setup();
    let done = false;
    const reconciled = t.std.reconcile(testContext, req).then(() => (done = true));
    // A timer of any length would still be pending when the next macrotask runs.
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(done, true);
    await reconciled;
  });

  test('phases given to reconcile replace the configured ones', async () => {
    const t = setup();
    const only = new Phase('only', t.log);
    await t.std.reconcile(testContext, req, {}, only);
    assert.deepEqual(t.log, ['main.configure', 'main.read', 'only.configure', 'only.read', 'only.diff', 'only.onSuccess', 'main.onSuccess']);
  });
});
