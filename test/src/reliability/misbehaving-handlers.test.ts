/**
 * Handlers that misbehave, next to a healthy one, over real HTTP: watchers that throw (also
 * non-Errors, also synchronously), reject, or return nonsense; reconcilers that throw or return
 * nonsense results. The healthy mirror must see every change in order and converge, the errors must
 * reach the errorHandler, retries must stay bounded, and nothing may escape as an unhandled
 * rejection or an uncaught exception. Each scenario is bounded in time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConfigMap, KubeObject } from '@kubeloop/resource';
import {
  InformerController,
  JitteredExponentialBackoff,
  KubernetesBasedInformer,
  ReconcileAction,
  exponentialBackoffRetryPolicy,
  isHandlerTimeoutError,
  noopLogger,
} from '@kubeloop/operator';
import type { ErrorHandlerContext, Reconciler, ResourceWatcher } from '@kubeloop/operator';
import { ConfigMapKind } from '@kubeloop/resource';
import { TempDirs } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { NAMESPACE, ReliabilityCluster } from './cluster.js';
import { HandlerRecord, viewKey } from './handler-record.js';
import { ProcessGuard } from './process-guard.js';

/** The misbehaviours, chosen per object by its `misbehave` label value. */
const NONSENSE_RESULTS: readonly unknown[] = [42, null, 'done', { requeueAfter: 'banana' }, { requeueAfter: Number.NaN }, { requeueAfter: -5 }, { state: 'not an object' }, [1, 2, 3]];
const THROWN_VALUES: readonly unknown[] = ['a string', null, undefined, 42, { message: 'an object' }, new TypeError('a TypeError')];

/** A promise rejected with anything, as handlers written in plain JavaScript may return. */
function rejectWith(value: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rejecting with non-Errors is the misbehaviour under test
  return Promise.reject(value);
}

/** A watcher of the healthy kind: believes every event. */
function mirror(record: HandlerRecord): ResourceWatcher {
  return {
    add: async (_ctx, o) => record.set(viewKey('configmap', o), o),
    update: async (_ctx, _old, o) => record.set(viewKey('configmap', o), o),
    delete: async (_ctx, o) => record.remove(viewKey('configmap', o), o),
  };
}

describe('reliability: misbehaving handlers beside a healthy one', () => {
  const temp = new TempDirs();
  let cluster: ReliabilityCluster;

  before(async () => {
    cluster = await ReliabilityCluster.start(await temp.make('misbehaving'));
  });

  after(async () => {
    await cluster.stop();
    await temp.removeAll();
  });

  test('throwing, rejecting and nonsense-returning handlers stop nothing: the healthy mirror converges, errors are reported, retries end', { timeout: 60_000 }, async () => {
    const guard = new ProcessGuard();
    guard.start();
    const errors: { ctx: ErrorHandlerContext; err: unknown }[] = [];
    const controller = new InformerController({
      retryPolicy: exponentialBackoffRetryPolicy(20, 3),
      errorHandler: (ctx, err) => errors.push({ ctx, err }),
      logger: noopLogger,
    });
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, cluster.configMaps, NAMESPACE, {
      backoff: new JitteredExponentialBackoff({ initialMs: 50, maxMs: 500 }),
      logger: noopLogger,
    });
    controller.addInformer(informer, 'configmaps');

    const calls = { syncThrow: 0, reject: 0, nonsenseWatcher: 0, throwingReconciler: 0, nonsenseReconciler: 0 };
    let n = 0;
    const next = <T>(list: readonly T[]): T => list[n++ % list.length]!;
    const syncThrow: ResourceWatcher = {
      add: () => {
        calls.syncThrow++;
        throw next(THROWN_VALUES);
      },
      update: () => {
        calls.syncThrow++;
        throw next(THROWN_VALUES);
      },
      delete: () => {
        calls.syncThrow++;
        throw next(THROWN_VALUES);
      },
    };
    const rejecting: ResourceWatcher = {
      add: () => (calls.reject++, rejectWith(next(THROWN_VALUES))),
      update: () => (calls.reject++, rejectWith(next(THROWN_VALUES))),
      delete: () => (calls.reject++, rejectWith(next(THROWN_VALUES))),
    };
    // Plain JavaScript handlers may return anything.
    const nonsenseWatcher = {
      add: () => (calls.nonsenseWatcher++, next(NONSENSE_RESULTS)),
      update: () => (calls.nonsenseWatcher++, next(NONSENSE_RESULTS)),
      delete: () => (calls.nonsenseWatcher++, next(NONSENSE_RESULTS)),
    } as unknown as ResourceWatcher;
    const throwingReconciler: Reconciler = {
      reconcile: async () => {
        calls.throwingReconciler++;
        throw next(THROWN_VALUES) as Error;
      },
    };
    const nonsenseReconciler = {
      reconcile: async () => (calls.nonsenseReconciler++, next(NONSENSE_RESULTS)),
    } as unknown as Reconciler;

    const healthy = new HandlerRecord('healthy mirror', 'version');
    const reconciled = new HandlerRecord('healthy reconciler', 'version');
    controller.addWatcher(syncThrow, 'configmaps');
    controller.addWatcher(rejecting, 'configmaps');
    controller.addWatcher(nonsenseWatcher, 'configmaps');
    controller.addWatcher(mirror(healthy), 'configmaps');
    controller.addReconciler(throwingReconciler, 'configmaps');
    controller.addReconciler(nonsenseReconciler, 'configmaps');
    controller.addReconciler(
      {
        reconcile: async (_ctx, req) => {
          const key = viewKey('configmap', req.object);
          if (req.action === ReconcileAction.Deleted) reconciled.remove(key, req.object);
          else reconciled.set(key, req.object);
          return {};
        },
      },
      'configmaps',
    );

    const stop = new AbortController();
    let runError: unknown;
    const running = controller.run(stop.signal).catch((e: unknown) => (runError = e));
    try {
      await informer.waitForSync(AbortSignal.timeout(10_000));
      for (let i = 0; i < 20; i++) {
        const name = `bad-${i % 8}`;
        const id = { namespace: NAMESPACE, name };
        if (i < 8) await cluster.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { v: String(i) } });
        else if (i < 16) await cluster.configMaps.patch(id, { merge: { data: { v: String(i) } } });
        else await cluster.configMaps.delete(id);
      }
      const expected = async (): Promise<Map<string, string>> =>
        new Map((await cluster.configMaps.listAll(NAMESPACE)).items.map((o: KubeObject) => [viewKey('configmap', o), o.metadata.resourceVersion ?? '']));
      const converged = (record: HandlerRecord, want: Map<string, string>): boolean =>
        record.view.size === want.size && [...want].every(([k, rv]) => record.view.get(k)?.resourceVersion === rv);
      await waitFor(async () => {
        const want = await expected();
        return converged(healthy, want) && converged(reconciled, want);
      }, { timeoutMs: 10_000, what: 'the healthy handlers to converge' });

      // Retries are bounded: 20 ms doubling, up to attempt 3, so every retry is over after 20+40+80+160 ms.
      await sleep(1000);
      await controller.whenIdle();
      const settled = { ...calls };
      await sleep(500);
      assert.deepEqual(calls, settled, 'no handler is still being called: retries ended and nothing loops');

      assert.deepEqual([...healthy.violations, ...reconciled.violations], []);
      for (const source of ['watcher', 'reconciler'] as const) assert.ok(errors.some((e) => e.ctx.source === source), `errors of ${source}s were reported`);
      assert.ok(errors.every((e) => e.ctx.source !== 'informer' || e.ctx.phase !== 'handler'), 'nothing was thrown into the informer');
      assert.ok(calls.syncThrow >= 20 && calls.reject >= 20 && calls.throwingReconciler >= 20, `every bad handler saw every event and its retries: ${JSON.stringify(calls)}`);
      console.log(`misbehaving handlers: calls ${JSON.stringify(calls)}, ${errors.length} errors reported, the healthy handlers converged`);
    } finally {
      stop.abort();
      await running;
      guard.stop();
    }
    assert.equal(runError, undefined, 'the controller never stopped by itself');
    assert.deepEqual(guard.problems, [], 'no unhandled rejection, no uncaught exception');
  });
  test('hanging handlers are given up on at handlerTimeoutMs: their signal aborts, the timeout is an error, the others go on', { timeout: 60_000 }, async () => {
    const guard = new ProcessGuard();
    guard.start();
    const timeoutMs = 150;
    const errors: unknown[] = [];
    const controller = new InformerController({
      handlerTimeoutMs: timeoutMs,
      retryPolicy: exponentialBackoffRetryPolicy(20, 1),
      errorHandler: (_ctx, err) => errors.push(err),
      logger: noopLogger,
    });
    const informer = new KubernetesBasedInformer<ConfigMap>(ConfigMapKind, cluster.configMaps, NAMESPACE, {
      backoff: new JitteredExponentialBackoff({ initialMs: 50, maxMs: 500 }),
      logger: noopLogger,
    });
    controller.addInformer(informer, 'configmaps');
    const aborted = { watcher: 0, reconciler: 0 };
    let calls = 0;
    // Never settles; notices its signal abort (as a handler passing ctx.signal to its requests would).
    const hang = (signal: AbortSignal, which: keyof typeof aborted): Promise<never> => {
      calls++;
      signal.addEventListener('abort', () => aborted[which]++, { once: true });
      return new Promise<never>(() => undefined);
    };
    const hangingWatcher: ResourceWatcher = {
      add: (ctx) => hang(ctx.signal, 'watcher'),
      update: (ctx) => hang(ctx.signal, 'watcher'),
      delete: (ctx) => hang(ctx.signal, 'watcher'),
    };
    const hangingReconciler: Reconciler = { reconcile: (ctx) => hang(ctx.signal, 'reconciler') };
    const healthy = new HandlerRecord('healthy mirror', 'version');
    controller.addWatcher(hangingWatcher, 'configmaps');
    controller.addWatcher(mirror(healthy), 'configmaps');
    controller.addReconciler(hangingReconciler, 'configmaps');

    const stop = new AbortController();
    let runError: unknown;
    const running = controller.run(stop.signal).catch((e: unknown) => (runError = e));
    try {
      await informer.waitForSync(AbortSignal.timeout(10_000));
      const names = ['hang-0', 'hang-1', 'hang-2'];
      for (const name of names) await cluster.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { v: '0' } });
      for (const name of names) await cluster.configMaps.patch({ namespace: NAMESPACE, name }, { merge: { data: { v: '1' } } });
      await cluster.configMaps.delete({ namespace: NAMESPACE, name: 'hang-2' });
      const started = Date.now();
      const ours = (key: string): boolean => key.startsWith(`configmap/${NAMESPACE}/hang-`);
      await waitFor(
        async () => {
          const want = new Map((await cluster.configMaps.listAll(NAMESPACE)).items.map((o: KubeObject) => [viewKey('configmap', o), o.metadata.resourceVersion]));
          const have = [...healthy.view].filter(([k]) => ours(k));
          return have.length === [...want.keys()].filter(ours).length && have.every(([k, v]) => want.get(k) === v.resourceVersion);
        },
        { timeoutMs: 20_000, what: 'the healthy mirror to converge past the hanging handlers' },
      );
      const convergedAfterMs = Date.now() - started;
      // Retries (20 ms, then 40 ms, then none) of every hanging call end too.
      await waitFor(async () => {
        await controller.whenIdle();
        const before = calls;
        await sleep(4 * timeoutMs);
        return calls === before;
      }, { timeoutMs: 20_000, what: 'the retries of the hanging handlers to end' });
      const timeouts = errors.filter(isHandlerTimeoutError);
      assert.ok(timeouts.length > 0 && timeouts.length === errors.length, `every error is a HandlerTimeoutError: ${errors.map(String).join('; ')}`);
      assert.equal(aborted.watcher + aborted.reconciler, calls, 'every hanging call had its signal aborted');
      assert.deepEqual(healthy.violations, []);
      console.log(`hanging handlers: ${calls} calls given up on after ${timeoutMs} ms each, ${timeouts.length} HandlerTimeoutErrors, the healthy mirror converged in ${convergedAfterMs} ms`);
    } finally {
      stop.abort();
      await running;
      guard.stop();
    }
    assert.equal(runError, undefined, 'the controller never stopped by itself');
    assert.deepEqual(guard.problems, [], 'no unhandled rejection, no uncaught exception');
  });
});
