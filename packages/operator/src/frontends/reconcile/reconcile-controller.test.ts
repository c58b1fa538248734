import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Duration } from 'luxon';
import { Registry } from 'prom-client';
import { ApiError } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { VirtualClock } from '../../clock.js';
import { TerminalError, isInvalidArgumentError } from '../../errors.js';
import type { ErrorHandlerContext } from '../../controller/informer-controller.js';
import { noopLogger } from '../../observability/logger.js';
import { Operator } from '../../controller/operator.js';
import { FakeListWatchClient } from '../../testing/informer-fakes.test-helper.js';
import { FakeInformer, deferred, waitFor, widget, widgetSchema } from '../../testing/fake-informer.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiter.js';
import { newController } from './reconcile-controller.js';
import type { ReconcileControllerOptions } from './reconcile-controller.js';
import { reconcileFunc } from './reconciler.js';
import type { ReconcileFunc } from './reconciler.js';
import type { Request } from './request.js';
import { enqueueRequestForOwner } from './watch-source.js';
import { runUntilStopped } from '../../testing/run-until-stopped.js';

interface Call {
  at: number;
  request: Request;
}

function setup(fn: ReconcileFunc, options: Partial<ReconcileControllerOptions> = {}) {
  const clock = new VirtualClock();
  const informer = new FakeInformer();
  const calls: Call[] = [];
  const errors: { ctx: ErrorHandlerContext; err: unknown }[] = [];
  const controller = newController({
    kind: widgetSchema,
    informer,
    clock,
    logger: noopLogger,
    errorHandler: (ctx, err) => errors.push({ ctx, err }),
    reconciler: reconcileFunc(async (ctx, request) => {
      calls.push({ at: clock.now(), request });
      return fn(ctx, request);
    }),
    ...options,
  });
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  return {
    clock,
    informer,
    calls,
    errors,
    controller,
    start: async () => {
      running = controller.run(abort.signal);
      await clock.advance(0);
    },
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

describe('ReconcileController', () => {
  test('a reconcile receives only the key, whatever the event', async () => {
    const t = setup(async () => ({}));
    await t.start();
    const obj = widget('a', { namespace: 'ns1' });
    t.informer.add(obj);
    await t.clock.advance(0);
    t.informer.update(obj, widget('a', { namespace: 'ns1', rv: '2' }));
    await t.clock.advance(0);
    t.informer.delete(obj);
    await t.clock.advance(0);
    await t.stop();
    assert.deepEqual(
      t.calls.map((c) => c.request),
      [
        { namespace: 'ns1', name: 'a' },
        { namespace: 'ns1', name: 'a' },
        { namespace: 'ns1', name: 'a' },
      ],
    );
  });

  test('a failing reconcile is requeued after 5, 10, 20, 40 ms and a success resets the backoff', async () => {
    let failuresLeft = 4;
    const t = setup(async () => {
      if (failuresLeft-- > 0) throw new Error('boom');
      return {};
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(1000);
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 5, 15, 35, 75],
    );
    assert.deepEqual(
      t.errors.map((e) => [e.ctx.source, e.ctx.objectKey, e.ctx.attempt, e.ctx.retryAfterMs]),
      [
        ['reconciler', 'default/a', 0, 5],
        ['reconciler', 'default/a', 1, 10],
        ['reconciler', 'default/a', 2, 20],
        ['reconciler', 'default/a', 3, 40],
      ],
    );
    // Forgotten on success: the next failure starts again at 5 ms.
    failuresLeft = 1;
    t.informer.update(widget('a'), widget('a', { rv: '2' }));
    await t.clock.advance(1000);
    assert.deepEqual(
      t.calls.slice(5).map((c) => c.at - 1000),
      [0, 5],
    );
    await t.stop();
  });

  test('requeue: true is rate-limited like an error but reports nothing', async () => {
    let requeues = 3;
    const t = setup(async () => ({ requeue: requeues-- > 0 }));
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(1000);
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 5, 15, 35],
    );
    assert.equal(t.errors.length, 0);
    await t.stop();
  });

  test('requeueAfter requeues after exactly that delay and resets the backoff', async () => {
    let n = 0;
    const t = setup(async () => {
      n++;
      if (n <= 2) throw new Error('transient');
      if (n === 3) return { requeueAfter: Duration.fromObject({ minutes: 1 }) };
      if (n === 4) throw new Error('again');
      return {};
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(120_000);
    // 0 fails (5 ms), 5 fails (10 ms), 15 asks 60 s, 60015 fails: backoff restarted at 5 ms.
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 5, 15, 60_015, 60_020],
    );
    assert.equal(t.errors.at(-1)?.ctx.retryAfterMs, 5);
    await t.stop();
  });

  test('requeueAfter wins over requeue: true', async () => {
    let n = 0;
    const t = setup(async () => (n++ === 0 ? { requeue: true, requeueAfter: 500 } : {}));
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(1000);
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 500],
    );
    await t.stop();
  });

  test('a TerminalError is reported once and not requeued', async () => {
    const t = setup(async () => {
      throw new TerminalError(new Error('spec is invalid'));
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(10_000_000);
    assert.equal(t.calls.length, 1);
    assert.equal(t.errors.length, 1);
    assert.equal(t.errors[0]!.ctx.retryAfterMs, undefined);
    assert.equal(t.controller.pendingRequeues, 0);
    await t.stop();
  });

  test('a TerminalError wrapped as the cause of another error is terminal too', async () => {
    const t = setup(async () => {
      throw new Error('reconcile widget a', { cause: new TerminalError(new Error('spec is invalid')) });
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(10_000_000);
    assert.equal(t.calls.length, 1);
    assert.equal(t.errors.length, 1);
    assert.equal(t.controller.pendingRequeues, 0);
    await t.stop();
  });

  test('a TerminalError does not forget the backoff: the next failure of the key backs off further', async () => {
    let n = 0;
    const t = setup(async () => {
      n++;
      if (n <= 2) throw new Error('transient');
      if (n === 3) throw new TerminalError(new Error('spec is invalid'));
      if (n === 4) throw new Error('transient again');
      return {};
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(1000);
    // 0 fails (5 ms), 5 fails (10 ms), 15 is terminal: no requeue, backoff kept.
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 5, 15],
    );
    t.informer.update(widget('a'), widget('a', { rv: '2' }));
    await t.clock.advance(1000);
    // The event at 1000 fails: its requeue waits 20 ms (the third step), not 5 ms (a forgotten key).
    assert.deepEqual(
      t.calls.slice(3).map((c) => c.at),
      [1000, 1020],
    );
    assert.equal(t.errors.at(-1)?.ctx.retryAfterMs, 20);
    await t.stop();
  });

  test('N events for one key during a reconcile lead to exactly one follow-up reconcile', async () => {
    const gate = deferred();
    let first = true;
    const t = setup(async () => {
      if (first) {
        first = false;
        await gate.promise;
      }
      return {};
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(0);
    assert.equal(t.calls.length, 1);
    // A mix of actions: the level-based controller does not care which.
    for (let i = 2; i < 50; i++) t.informer.update(widget('a', { rv: String(i - 1) }), widget('a', { rv: String(i) }));
    t.informer.delete(widget('a', { rv: '50' }));
    t.informer.add(widget('a', { rv: '51' }));
    await t.clock.advance(0);
    assert.equal(t.calls.length, 1, 'no second reconcile of a key while one runs');
    gate.resolve();
    await t.clock.advance(0);
    await t.controller.whenIdle();
    assert.equal(t.calls.length, 2);
    await t.stop();
  });

  test('events queued before the workers start merge into one reconcile per key', async () => {
    const t = setup(async () => ({}));
    for (let i = 0; i < 20; i++) t.informer.update(widget('a'), widget('a', { rv: String(i) }));
    t.informer.add(widget('b'));
    t.informer.delete(widget('b'));
    await t.start();
    await t.controller.whenIdle();
    assert.deepEqual(t.calls.map((c) => c.request.name).sort(), ['a', 'b']);
    await t.stop();
  });

  test('a key keeps one delayed requeue: the earliest wins', async () => {
    let n = 0;
    const t = setup(async () => {
      n++;
      return n === 1 ? { requeueAfter: 10_000 } : n === 2 ? { requeueAfter: 3_000 } : n === 3 ? { requeueAfter: 60_000 } : {};
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(0);
    t.controller.enqueue({ namespace: 'default', name: 'a' });
    await t.clock.advance(0);
    // Two requests asked for 10 s and 3 s: only the 3 s one is waiting.
    assert.equal(t.controller.pendingRequeues, 1);
    await t.clock.advance(100_000);
    // The third reconcile (at 3 s) asked for 60 s: due at 63 s; the cancelled 10 s entry never fires.
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 0, 3_000, 63_000],
    );
    await t.stop();
  });

  test('an event during a pending requeue reconciles at once and the requeue still fires', async () => {
    const t = setup(async () => ({ requeueAfter: 1_000 }));
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(400);
    t.informer.update(widget('a'), widget('a', { rv: '2' }));
    await t.clock.advance(700);
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 400, 1_000],
    );
    await t.stop();
  });

  test('different keys reconcile concurrently up to maxConcurrentReconciles and one key never twice at once', async () => {
    const gates = new Map<number, { resolve: () => void }>();
    let gateId = 0;
    let running = 0;
    let maxRunning = 0;
    const perKey = new Map<string, number>();
    let overlapped = false;
    const t = setup(
      async (_ctx, request) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        const k = request.name;
        perKey.set(k, (perKey.get(k) ?? 0) + 1);
        if (perKey.get(k)! > 1) overlapped = true;
        const gate = deferred();
        gates.set(gateId++, gate);
        await gate.promise;
        perKey.set(k, perKey.get(k)! - 1);
        running--;
        return {};
      },
      { maxConcurrentReconciles: 3 },
    );
    await t.start();
    for (const name of ['a', 'b', 'c', 'd', 'e']) t.informer.add(widget(name));
    await t.clock.advance(0);
    assert.equal(running, 3);
    // 'a' is running: this update waits for it, then runs once more.
    t.informer.update(widget('a'), widget('a', { rv: '2' }));
    await t.clock.advance(0);
    for (let round = 0; round < 10 && gates.size > 0; round++) {
      for (const [k, g] of [...gates]) {
        gates.delete(k);
        g.resolve();
      }
      await t.clock.advance(0);
    }
    await t.controller.whenIdle();
    assert.equal(maxRunning, 3);
    assert.equal(overlapped, false);
    assert.equal(t.calls.length, 6);
    await t.stop();
  });

  test('watches map events of other objects to requests of their owners', async () => {
    const children = new FakeInformer();
    const t = setup(async () => ({}), {
      watches: [{ informer: children, map: enqueueRequestForOwner(widgetSchema, { onlyController: true }) }],
    });
    await t.start();
    const child: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'child',
        namespace: 'ns1',
        ownerReferences: [
          { apiVersion: 'test.kubeloop.dev/v1', kind: 'Widget', name: 'parent', uid: 'u1', controller: true },
          { apiVersion: 'test.kubeloop.dev/v1', kind: 'Widget', name: 'not-controller', uid: 'u2' },
          { apiVersion: 'other.dev/v1', kind: 'Widget', name: 'other-group', uid: 'u3', controller: true },
        ],
      },
    };
    children.add(child);
    await t.controller.whenIdle();
    assert.deepEqual(
      t.calls.map((c) => c.request),
      [{ namespace: 'ns1', name: 'parent' }],
    );
    assert.equal(t.controller.hasSynced(), true);
    await t.stop();
  });

  test('a custom rate limiter decides the delays', async () => {
    const t = setup(
      async () => {
        throw new Error('x');
      },
      { rateLimiter: new ItemExponentialFailureRateLimiter(1_000, 4_000) },
    );
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(12_000);
    assert.deepEqual(
      t.calls.map((c) => c.at),
      [0, 1_000, 3_000, 7_000, 11_000],
    );
    await t.stop();
  });

  test('shutdown aborts the reconcile signal, drops pending requeues and is not reported as an error', async () => {
    const t = setup(async (ctx) => {
      await new Promise<void>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }));
      return {};
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(0);
    await t.stop();
    assert.equal(t.errors.length, 0);
    assert.equal(t.controller.pendingRequeues, 0);
  });

  test('a reconcile error caused by the shutdown abort, however wrapped, is not reported', async () => {
    const t = setup(async (ctx) => {
      await new Promise<void>((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('status update failed', { cause: new Error('request failed', { cause: ctx.signal.reason }) })), {
          once: true,
        }),
      );
      return {};
    });
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(0);
    await t.stop();
    assert.deepEqual(
      t.errors.map((e) => String(e.err)),
      [],
    );
    assert.equal(t.controller.pendingRequeues, 0);
  });

  test('list and watch errors of the informer it creates reach errorHandler with the phase', async () => {
    const clock = new VirtualClock();
    const client = new FakeListWatchClient();
    const errors: { ctx: ErrorHandlerContext; err: unknown }[] = [];
    const controller = newController({
      kind: widgetSchema,
      client,
      clock,
      logger: noopLogger,
      errorHandler: (ctx, err) => errors.push({ ctx, err }),
      reconciler: reconcileFunc(async () => ({})),
    });
    const stop = runUntilStopped(controller);
    const failure = new ApiError({ status: 500, reason: 'InternalError' });
    client.replyList(failure);
    await waitFor(() => errors.length === 1);
    assert.equal(errors[0]!.err, failure);
    assert.equal(errors[0]!.ctx.source, 'informer');
    assert.equal(errors[0]!.ctx.phase, 'list');
    await stop();
  });

  test('runs inside an Operator and its informer failure stops the operator with that error', async () => {
    const informer = new FakeInformer();
    informer.failWith = new Error('bad selector');
    const controller = newController({ kind: widgetSchema, informer, reconciler: reconcileFunc(async () => ({})), logger: noopLogger, errorHandler: () => {} });
    const operator = new Operator();
    operator.addController(controller);
    await assert.rejects(operator.run(new AbortController().signal), /bad selector/);
  });

  test('metrics count reconciles by result under controller-runtime names', async () => {
    let n = 0;
    const t = setup(async () => {
      n++;
      if (n === 1) throw new Error('x');
      if (n === 2) throw new TerminalError(new Error('y'));
      return n === 3 ? { requeueAfter: 1 } : {};
    });
    const registry = new Registry();
    for (const c of t.controller.prometheusCollectors()) registry.registerMetric(c);
    await t.start();
    t.informer.add(widget('a'));
    await t.clock.advance(5);
    t.informer.update(widget('a'), widget('a', { rv: '2' }));
    await t.clock.advance(10);
    await t.stop();
    const text = await registry.metrics();
    for (const line of [
      'controller_runtime_reconcile_total{controller="widget",result="error"} 2',
      'controller_runtime_reconcile_total{controller="widget",result="requeue_after"} 1',
      'controller_runtime_reconcile_total{controller="widget",result="success"} 1',
      'controller_runtime_reconcile_errors_total{controller="widget"} 2',
      'controller_runtime_terminal_reconcile_errors_total{controller="widget"} 1',
      'controller_runtime_max_concurrent_reconciles{controller="widget"} 10',
      'workqueue_retries_total{name="widget"} 1',
    ]) {
      assert.ok(text.includes(line), `metrics contain ${line}`);
    }
  });

  test('a controller without a reconciler, or without a client or informer, is refused', () => {
    assert.throws(() => newController({ kind: widgetSchema, informer: new FakeInformer(), reconciler: undefined as never }), isInvalidArgumentError);
    assert.throws(() => newController({ kind: widgetSchema, reconciler: reconcileFunc(async () => ({})) }), isInvalidArgumentError);
  });
});
