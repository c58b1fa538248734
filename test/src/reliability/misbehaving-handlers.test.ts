/**
 * Handlers that misbehave, next to a healthy one, over real HTTP: watchers that throw (also
 * non-Errors, also synchronously), reject, or return nonsense; reconcilers that throw or return
 * nonsense results; watchers and reconcilers that hang (given up on at `handlerTimeoutMs`). The healthy mirror must see every change in order and converge, the errors must
 * reach the errorHandler, retries must stay bounded, and nothing may escape as an unhandled
 * rejection or an uncaught exception. Each scenario is bounded in time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReconcileAction, exponentialBackoffRetryPolicy, isHandlerTimeoutError } from '@kubeloop/operator';
import type { Reconciler, ResourceWatcher } from '@kubeloop/operator';
import { TempDirs } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { NAMESPACE, ReliabilityCluster } from './cluster.js';
import { ConfigMapController } from './configmap-controller.js';
import { HandlerRecord, viewKey } from './handler-record.js';
import { mirrorWatcher } from './operator-under-test.js';

/** The misbehaviours, cycled through call by call. */
const NONSENSE_RESULTS: readonly unknown[] = [42, null, 'done', { requeueAfter: 'banana' }, { requeueAfter: Number.NaN }, { requeueAfter: -5 }, { state: 'not an object' }, [1, 2, 3]];
const THROWN_VALUES: readonly unknown[] = ['a string', null, undefined, 42, { message: 'an object' }, new TypeError('a TypeError')];

/** A promise rejected with anything, as handlers written in plain JavaScript may return. */
function rejectWith(value: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rejecting with non-Errors is the misbehaviour under test
  return Promise.reject(value);
}

/** Waits until `count()` stops changing for `quietMs` (retries over, nothing looping). */
async function settles(count: () => number, quietMs: number, what: string): Promise<void> {
  await waitFor(
    async () => {
      const before = count();
      await sleep(quietMs);
      return count() === before;
    },
    { timeoutMs: 20_000, what },
  );
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
    const harness = new ConfigMapController(cluster, { config: { retryPolicy: exponentialBackoffRetryPolicy(20, 3) } });
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
    const { controller } = harness;
    controller.addWatcher(syncThrow, 'configmaps');
    controller.addWatcher(rejecting, 'configmaps');
    controller.addWatcher(nonsenseWatcher, 'configmaps');
    controller.addWatcher(mirrorWatcher(healthy, 'configmap'), 'configmaps');
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

    const ours = (key: string): boolean => key.startsWith(`configmap/${NAMESPACE}/bad-`);
    let problems: string[];
    let convergedAfterMs: number;
    try {
      await harness.start();
      for (let i = 0; i < 20; i++) {
        const name = `bad-${i % 8}`;
        const id = { namespace: NAMESPACE, name };
        if (i < 8) await cluster.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { v: String(i) } });
        else if (i < 16) await cluster.configMaps.patch(id, { merge: { data: { v: String(i) } } });
        else await cluster.configMaps.delete(id);
      }
      const wrote = Date.now();
      await harness.converged(healthy, 'the healthy mirror to converge', ours);
      await harness.converged(reconciled, 'the healthy reconciler to converge', ours);
      convergedAfterMs = Date.now() - wrote;
      // Retries are bounded: 20 ms doubling, up to attempt 3, so every retry is over after 20+40+80+160 ms.
      await settles(() => Object.values(calls).reduce((a, b) => a + b, 0), 500, 'the retries of the bad handlers to end');
    } finally {
      problems = await harness.stop();
    }
    assert.deepEqual(problems, [], 'no unhandled rejection or uncaught exception; the controller never stopped by itself');
    assert.deepEqual([...healthy.violations, ...reconciled.violations], []);
    for (const source of ['watcher', 'reconciler'] as const) assert.ok(harness.errors.some((e) => e.ctx.source === source), `errors of ${source}s were reported`);
    assert.ok(harness.errors.every((e) => e.ctx.source !== 'informer' || e.ctx.phase !== 'handler'), 'nothing was thrown into the informer');
    assert.ok(calls.syncThrow >= 20 && calls.reject >= 20 && calls.throwingReconciler >= 20, `every bad handler saw every event and its retries: ${JSON.stringify(calls)}`);
    console.log(`misbehaving handlers: calls ${JSON.stringify(calls)}, ${harness.errors.length} errors reported, the healthy handlers converged ${convergedAfterMs} ms after the last write`);
  });

  test('hanging handlers are given up on at handlerTimeoutMs: their signal aborts, the timeout is an error, the others go on', { timeout: 60_000 }, async () => {
    const timeoutMs = 150;
    const harness = new ConfigMapController(cluster, { config: { handlerTimeoutMs: timeoutMs, retryPolicy: exponentialBackoffRetryPolicy(20, 1) } });
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
    harness.controller.addWatcher(hangingWatcher, 'configmaps');
    harness.controller.addWatcher(mirrorWatcher(healthy, 'configmap'), 'configmaps');
    harness.controller.addReconciler(hangingReconciler, 'configmaps');

    let problems: string[];
    let convergedAfterMs: number;
    try {
      await harness.start();
      const names = ['hang-0', 'hang-1', 'hang-2'];
      for (const name of names) await cluster.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { v: '0' } });
      for (const name of names) await cluster.configMaps.patch({ namespace: NAMESPACE, name }, { merge: { data: { v: '1' } } });
      await cluster.configMaps.delete({ namespace: NAMESPACE, name: 'hang-2' });
      const started = Date.now();
      await harness.converged(healthy, 'the healthy mirror to converge past the hanging handlers', (key) => key.startsWith(`configmap/${NAMESPACE}/hang-`));
      convergedAfterMs = Date.now() - started;
      // Retries (20 ms, then 40 ms, then none) of every hanging call end too.
      await settles(() => calls, 4 * timeoutMs, 'the retries of the hanging handlers to end');
    } finally {
      problems = await harness.stop();
    }
    assert.deepEqual(problems, [], 'no unhandled rejection or uncaught exception; the controller never stopped by itself');
    const timeouts = harness.errors.filter((e) => isHandlerTimeoutError(e.err));
    assert.ok(timeouts.length > 0 && timeouts.length === harness.errors.length, `every error is a HandlerTimeoutError: ${harness.errors.map((e) => String(e.err)).join('; ')}`);
    assert.equal(aborted.watcher + aborted.reconciler, calls, 'every hanging call had its signal aborted');
    assert.deepEqual(healthy.violations, []);
    console.log(`hanging handlers: ${calls} calls given up on after ${timeoutMs} ms each, ${timeouts.length} HandlerTimeoutErrors, the healthy mirror converged in ${convergedAfterMs} ms`);
  });
});
