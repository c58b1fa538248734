import { afterEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { Duration } from 'luxon';
import { Registry } from 'prom-client';
import { ApiError, NetworkError } from '@kubeloop/resource';
import type { KubeObject, PatchRequest, WriteOptions } from '@kubeloop/resource';
import { ReconcileAction } from '../handlers/actions.js';
import { VirtualClock } from '../clock.js';
import { ErrInformerAlreadyAdded, ReconcileError, TerminalError, isHandlerTimeoutError, isInvalidArgumentError, isNilObjectError } from '../errors.js';
import { InformerController } from './informer-controller.js';
import type { ErrorHandlerContext, InformerControllerConfig } from './informer-controller.js';
import { FakeListWatchClient, FakePatchClient, page, widget as kubeWidget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import { KubernetesBasedInformer } from '../informer/kubernetes-based-informer.js';
import type { InformerErrorContext } from '../informer/kubernetes-based-informer.js';
import { noopLogger } from '../observability/logger.js';
import { newOpinionatedReconciler } from '../handlers/opinionated-reconciler.js';
import type { Reconciler, ReconcileRequest, ReconcileResult } from '../handlers/reconciler.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';
import { exponentialBackoffRetryPolicy } from '../queue/retry-policy.js';
import { FakeInformer, deferred, seededRandom, waitFor, widget } from '../testing/fake-informer.js';

const KIND = 'Widget';

interface Reported {
  ctx: ErrorHandlerContext;
  err: unknown;
}

interface Harness {
  clock: VirtualClock;
  controller: InformerController;
  informer: FakeInformer;
  errors: Reported[];
  running: Promise<void>;
  stop: () => Promise<void>;
  /** Waits until every queued event and due retry has been processed. */
  settle: () => Promise<void>;
  /** Jumps to the next pending timer, fires it and waits for the work it released; false when none. */
  runNext: () => Promise<boolean>;
}

const harnesses: Harness[] = [];

function setup(config: InformerControllerConfig = {}, options: { start?: boolean } = {}): Harness {
  const clock = new VirtualClock();
  const errors: Reported[] = [];
  const controller = new InformerController({ clock, logger: noopLogger, errorHandler: (ctx, err) => errors.push({ ctx, err }), ...config });
  const informer = new FakeInformer();
  controller.addInformer(informer, KIND);
  const abort = new AbortController();
  const running = options.start === false ? Promise.resolve() : controller.run(abort.signal);
  const h: Harness = {
    clock,
    controller,
    informer,
    errors,
    running,
    stop: async () => {
      abort.abort();
      await running;
    },
    settle: () => controller.whenIdle(),
    runNext: async () => {
      const fired = await clock.runNext();
      await controller.whenIdle();
      return fired;
    },
  };
  harnesses.push(h);
  return h;
}

afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.stop().catch(() => {});
});

/** A watcher that logs `name:action:objectName` and can be told to fail. */
function logWatcher(name: string, log: string[], fail: (action: string, object: KubeObject) => Error | undefined = () => undefined): ResourceWatcher {
  const call = async (action: string, object: KubeObject): Promise<void> => {
    log.push(`${name}:${action}:${object.metadata.name}`);
    const err = fail(action, object);
    if (err !== undefined) throw err;
  };
  return {
    add: (_ctx, o) => call('add', o),
    update: (_ctx, _old, o) => call('update', o),
    delete: (_ctx, o) => call('delete', o),
  };
}

function logReconciler(name: string, log: string[], fn: (req: ReconcileRequest) => ReconcileResult | Promise<ReconcileResult> = () => ({})): Reconciler {
  return {
    reconcile: async (_ctx, req) => {
      log.push(`${name}:${ReconcileAction[req.action]}:${req.object.metadata.name}`);
      return fn(req);
    },
  };
}

describe('InformerController configuration', () => {
  test('rejects nil arguments and empty kinds with the upstream messages', () => {
    const c = new InformerController({ logger: noopLogger });
    const cases: [() => void, string][] = [
      [() => c.addInformer(undefined as unknown as FakeInformer, KIND), 'informer cannot be nil'],
      [() => c.addInformer(new FakeInformer(), ''), 'resourceKind cannot be empty'],
      [() => c.addWatcher(null as unknown as ResourceWatcher, KIND), 'watcher cannot be nil'],
      [() => c.addWatcher(logWatcher('w', []), ''), 'resourceKind cannot be empty'],
      [() => c.addReconciler(undefined as unknown as Reconciler, KIND), 'reconciler cannot be nil'],
      [() => c.addReconciler(logReconciler('r', []), ''), 'resourceKind cannot be empty'],
    ];
    for (const [fn, message] of cases) {
      assert.throws(fn, (err: unknown) => isInvalidArgumentError(err) && (err as Error).message === message);
    }
  });

  test('adding the same informer twice for one kind throws ErrInformerAlreadyAdded', () => {
    const c = new InformerController({ logger: noopLogger });
    const inf = new FakeInformer();
    c.addInformer(inf, KIND);
    assert.throws(() => c.addInformer(inf, KIND), (err) => err === ErrInformerAlreadyAdded);
    assert.equal(inf.handlers.length, 1);
  });

  test('registers exactly one handler per informer, and its calls return at once without running user code', async () => {
    const c = new InformerController({ logger: noopLogger });
    const inf = new FakeInformer();
    let called = false;
    c.addWatcher(
      {
        add: async () => {
          called = true;
        },
        update: async () => {},
        delete: async () => {},
      },
      KIND,
    );
    c.addInformer(inf, KIND);
    assert.equal(inf.handlers.length, 1);
    const result = inf.handlers[0]!.add({ signal: new AbortController().signal, logger: noopLogger }, widget('a'));
    assert.equal(called, false);
    await result;
    assert.equal(called, false, 'nothing runs before run()');
  });

  test('run() can be called only once', async () => {
    const h = setup();
    await assert.rejects(h.controller.run(new AbortController().signal), /can be called once/);
  });
});

describe('InformerController event fan-out', () => {
  test('calls every watcher in add order, then every reconciler in add order', async () => {
    const h = setup();
    const log: string[] = [];
    h.controller.addReconciler(logReconciler('r1', log), KIND);
    h.controller.addWatcher(logWatcher('w1', log), KIND);
    h.controller.addWatcher(logWatcher('w2', log), KIND);
    h.controller.addReconciler(logReconciler('r2', log), KIND);
    h.informer.add(widget('a'));
    await h.settle();
    assert.deepEqual(log, ['w1:add:a', 'w2:add:a', 'r1:Created:a', 'r2:Created:a']);
  });

  test('looks handlers up when processing, so ones added later get later events and removed ones stop', async () => {
    const h = setup();
    const log: string[] = [];
    const w1 = logWatcher('w1', log);
    h.controller.addWatcher(w1, KIND);
    h.informer.add(widget('a'));
    await h.settle();
    h.controller.addWatcher(logWatcher('w2', log), KIND);
    h.controller.removeWatcher(w1, KIND);
    h.controller.removeWatcher(w1, KIND);
    h.controller.removeWatcher(w1, 'Other');
    h.informer.delete(widget('a'));
    await h.settle();
    assert.deepEqual(log, ['w1:add:a', 'w2:delete:a']);
  });

  test('removeWatcher removes only the first identical registration and keeps order', async () => {
    const h = setup();
    const log: string[] = [];
    const w = logWatcher('w', log);
    h.controller.addWatcher(w, KIND);
    h.controller.addWatcher(logWatcher('x', log), KIND);
    h.controller.addWatcher(w, KIND);
    h.controller.removeWatcher(w, KIND);
    h.informer.add(widget('a'));
    await h.settle();
    assert.deepEqual(log, ['x:add:a', 'w:add:a']);
  });

  test('removeAll*ForResource removes every watcher or reconciler of the kind', async () => {
    const h = setup();
    const log: string[] = [];
    h.controller.addWatcher(logWatcher('w', log), KIND);
    h.controller.addReconciler(logReconciler('r', log), KIND);
    h.controller.removeAllWatchersForResource(KIND);
    h.informer.add(widget('a'));
    await h.settle();
    h.controller.removeAllReconcilersForResource(KIND);
    h.informer.add(widget('b'));
    await h.settle();
    assert.deepEqual(log, ['r:Created:a']);
  });

  test('maps informer actions to reconcile actions, and a resync (same object or resourceVersion) to Resynced', async () => {
    const h = setup();
    const log: string[] = [];
    const updates: string[] = [];
    h.controller.addWatcher(
      {
        add: async () => {},
        update: async (_c, o, n) => void updates.push(`${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
        delete: async () => {},
      },
      KIND,
    );
    h.controller.addReconciler(logReconciler('r', log), KIND);
    const v1 = widget('a', { rv: '1' });
    h.informer.add(v1);
    h.informer.update(v1, v1);
    await h.settle();
    h.informer.update(v1, widget('a', { rv: '1' }));
    await h.settle();
    h.informer.update(v1, widget('a', { rv: '2' }));
    await h.settle();
    h.informer.delete(widget('a', { rv: '2' }));
    await h.settle();
    assert.deepEqual(log, ['r:Created:a', 'r:Resynced:a', 'r:Resynced:a', 'r:Updated:a', 'r:Deleted:a']);
    assert.deepEqual(updates, ['1->1', '1->1', '1->2'], 'watchers get a resync as a plain update');
  });

  test('fans out events of several informers of one kind to the same handlers', async () => {
    const h = setup();
    const log: string[] = [];
    h.controller.addWatcher(logWatcher('w', log), KIND);
    const second = new FakeInformer();
    h.controller.addInformer(second, KIND);
    h.informer.add(widget('a', { namespace: 'ns1' }));
    second.add(widget('b', { namespace: 'ns2' }));
    await h.settle();
    assert.deepEqual(log.sort(), ['w:add:a', 'w:add:b']);
  });

  test('starts informers added after run(), and their events are processed', async () => {
    const h = setup();
    const log: string[] = [];
    h.controller.addWatcher(logWatcher('w', log), KIND);
    const late = new FakeInformer();
    h.controller.addInformer(late, KIND);
    assert.equal(late.runs, 1);
    late.add(widget('late'));
    await h.settle();
    assert.deepEqual(log, ['w:add:late']);
  });

  test('reports a nil object as ErrNilObject instead of throwing into the informer', async () => {
    const h = setup();
    h.informer.add(null as unknown as KubeObject);
    await h.settle();
    assert.equal(h.errors.length, 1);
    assert.ok(isNilObjectError(h.errors[0]!.err));
  });

  test('events of different kinds with the same name are independent objects', async () => {
    const h = setup();
    const other = new FakeInformer();
    h.controller.addInformer(other, 'Gadget');
    const log: string[] = [];
    h.controller.addWatcher(logWatcher('widget', log), KIND);
    h.controller.addWatcher(logWatcher('gadget', log), 'Gadget');
    h.informer.add(widget('same'));
    other.add(widget('same'));
    await h.settle();
    assert.deepEqual(log.sort(), ['gadget:add:same', 'widget:add:same']);
  });
});

describe('InformerController retries', () => {
  test('a failing watcher does not stop the others, and only it is retried', async () => {
    const h = setup();
    const log: string[] = [];
    let failures = 1;
    h.controller.addWatcher(logWatcher('w1', log), KIND);
    h.controller.addWatcher(logWatcher('w2', log, () => (failures-- > 0 ? new Error('w2 failed') : undefined)), KIND);
    h.controller.addWatcher(logWatcher('w3', log), KIND);
    h.controller.addReconciler(logReconciler('r', log), KIND);
    h.informer.add(widget('a'));
    await h.settle();
    assert.deepEqual(log, ['w1:add:a', 'w2:add:a', 'w3:add:a', 'r:Created:a']);
    assert.equal(h.errors.length, 1);
    assert.equal(h.errors[0]!.ctx.source, 'watcher');
    assert.equal(h.errors[0]!.ctx.retryAfterMs, 5000);
    assert.equal(await h.runNext(), true);
    assert.equal(h.clock.now(), 5000);
    assert.deepEqual(log.slice(4), ['w2:add:a']);
    assert.equal(await h.runNext(), false, 'no more retries after success');
  });

  test('the default policy retries after 5, 10, 20, 40, 80 and 160 seconds, then stops', async () => {
    const h = setup();
    const calls: number[] = [];
    h.controller.addReconciler(
      {
        reconcile: async () => {
          calls.push(h.clock.now());
          throw new Error('always');
        },
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await h.settle();
    while (await h.runNext());
    assert.deepEqual(calls, [0, 5000, 15_000, 35_000, 75_000, 155_000, 315_000]);
    assert.deepEqual(
      h.errors.map((e) => [e.ctx.attempt, e.ctx.retryAfterMs]),
      [
        [0, 5000],
        [1, 10_000],
        [2, 20_000],
        [3, 40_000],
        [4, 80_000],
        [5, 160_000],
        [6, undefined],
      ],
    );
    assert.equal(h.clock.pendingTimers(), 0);
  });

  test('the errorHandler receives reconciler errors and failed retries with their context', async () => {
    const h = setup();
    h.controller.addReconciler(
      {
        reconcile: async () => {
          throw new Error('reconcile failed');
        },
      },
      KIND,
    );
    h.informer.add(widget('a', { namespace: 'ns' }));
    await h.settle();
    await h.runNext();
    assert.equal(h.errors.length, 2);
    const [first, retry] = h.errors;
    assert.equal(first!.ctx.source, 'reconciler');
    assert.equal(first!.ctx.resourceKind, KIND);
    assert.equal(first!.ctx.objectKey, 'ns/a');
    assert.equal(first!.ctx.action, 'CREATE');
    assert.equal(first!.ctx.attempt, 0);
    assert.equal(retry!.ctx.attempt, 1);
    assert.equal((retry!.err as Error).message, 'reconcile failed');
  });

  test('a TerminalError is reported but never retried, from a watcher or a reconciler', async () => {
    const h = setup({ retryPolicy: () => [true, 1] });
    const log: string[] = [];
    h.controller.addWatcher(logWatcher('w', log, () => new TerminalError(new Error('bad spec'))), KIND);
    h.controller.addReconciler(
      logReconciler('r', log, () => {
        throw new TerminalError('nope');
      }),
      KIND,
    );
    h.informer.add(widget('a'));
    await h.settle();
    assert.equal(await h.runNext(), false);
    assert.deepEqual(log, ['w:add:a', 'r:Created:a']);
    assert.deepEqual(
      h.errors.map((e) => e.ctx.retryAfterMs),
      [undefined, undefined],
    );
  });

  test('requeueAfter requeues after its delay without counting as an attempt, and wins over an error', async () => {
    const h = setup();
    const calls: [number, number | undefined][] = [];
    let n = 0;
    h.controller.addReconciler(
      {
        reconcile: async (_ctx, req) => {
          calls.push([h.clock.now(), req.state?.n as number | undefined]);
          n++;
          if (n === 1) return { requeueAfter: 1000, state: { n } };
          if (n === 2) throw new ReconcileError(new Error('not yet'), { requeueAfter: Duration.fromObject({ seconds: 2 }), state: { n } });
          if (n === 3) throw new Error('plain failure');
          return {};
        },
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await h.settle();
    while (await h.runNext());
    // 0: requeue 1 s; 1000: error + requeue 2 s (requeue wins); 3000: error -> policy(attempt 1) = 10 s; 13000: success.
    assert.deepEqual(calls, [
      [0, undefined],
      [1000, 1],
      [3000, 2],
      [13_000, 2],
    ]);
    assert.deepEqual(
      h.errors.map((e) => [e.ctx.attempt, e.ctx.retryAfterMs]),
      [
        [1, 2000],
        [1, 10_000],
      ],
    );
  });

  test('the state of a result is carried into every later retry of the event', async () => {
    const h = setup({ retryPolicy: () => [true, 100] });
    const seen: unknown[] = [];
    h.controller.addReconciler(
      {
        reconcile: async (_ctx, req) => {
          seen.push(req.state);
          if (seen.length === 1) throw new ReconcileError(new Error('first'), { state: { step: 'created' } });
          if (seen.length === 2) throw new Error('second, no new state');
          return {};
        },
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await h.settle();
    while (await h.runNext());
    assert.deepEqual(seen, [undefined, { step: 'created' }, { step: 'created' }]);
  });

  test('a retry never blocks other objects', async () => {
    const h = setup({ retryPolicy: () => [true, 1000] });
    const log: string[] = [];
    let failA = true;
    let slowDone = false;
    const gate = deferred();
    h.controller.addWatcher(
      logWatcher('w', log, (action, o) => {
        if (o.metadata.name === 'a' && action === 'add' && failA) {
          failA = false;
          return new Error('a failed once');
        }
        return undefined;
      }),
      KIND,
    );
    h.controller.addReconciler(
      logReconciler('r', log, async (req) => {
        if (req.object.metadata.name === 'slow') {
          await gate.promise;
          slowDone = true;
        }
        return {};
      }),
      KIND,
    );
    h.informer.add(widget('slow'));
    h.informer.add(widget('a'));
    await waitFor(() => log.includes('r:Created:a'));
    await h.clock.advance(1000);
    await waitFor(() => log.filter((l) => l === 'w:add:a').length === 2);
    assert.equal(slowDone, false);
    gate.resolve();
    await h.settle();
    assert.equal(slowDone, true);
  });

  test('a retry that falls due while its object is busy waits for it and runs after the newer event', async () => {
    const h = setup({ retryPolicy: () => [true, 1000] });
    const log: string[] = [];
    const gate = deferred();
    let failed = false;
    h.controller.addWatcher(
      logWatcher('w', log, (action) => {
        if (action !== 'add' || failed) return undefined;
        failed = true;
        return new Error('add fails once');
      }),
      KIND,
    );
    h.controller.addReconciler(
      logReconciler('r', log, async (req) => {
        if (req.action === ReconcileAction.Updated) await gate.promise;
        return {};
      }),
      KIND,
    );
    h.informer.add(widget('a'));
    await h.settle();
    await h.clock.advance(500);
    h.informer.update(widget('a'), widget('a', { rv: '2' }));
    await waitFor(() => log.includes('r:Updated:a'));
    await h.clock.advance(500); // the retry of add is due now, but the object is busy
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(log, ['w:add:a', 'r:Created:a', 'w:update:a', 'r:Updated:a']);
    gate.resolve();
    await h.settle();
    assert.deepEqual(log.slice(4), ['w:add:a']);
  });

  test('a retry kept behind a newer event of its object carries the newest object: a mirroring watcher and reconciler end at the newest state', async () => {
    const h = setup({ retryPolicy: () => [true, 1000] });
    const mirror = new Map<string, string>();
    const failOnce = new Set(['w:2', 'r:2']);
    const record = (who: string, object: KubeObject): void => {
      const state = object.metadata.resourceVersion ?? '';
      if (failOnce.delete(`${who}:${state}`)) throw new Error(`${who} fails on ${state}`);
      mirror.set(who, state);
    };
    h.controller.addWatcher({ add: async (_c, o) => record('w', o), update: async (_c, _o, n) => record('w', n), delete: async () => {} }, KIND);
    h.controller.addReconciler({ reconcile: async (_c, req) => (record('r', req.object), {}) }, KIND);
    // Objects without a generation (a ConfigMap): the default dequeue policy keeps every pending retry.
    const v = (rv: string): KubeObject => {
      const o = widget('a', { rv });
      delete o.metadata.generation;
      return o;
    };
    h.informer.add(v('1'));
    h.informer.update(v('1'), v('2'));
    await h.settle();
    h.informer.update(v('2'), v('3'));
    await h.settle();
    assert.deepEqual(Object.fromEntries(mirror), { w: '3', r: '3' });
    while (await h.runNext());
    assert.deepEqual(Object.fromEntries(mirror), { w: '3', r: '3' }, 'the retries did not bring back state 2');
    assert.equal(h.errors.length, 2);
  });

  test('a retry of a removed watcher is dropped', async () => {
    const h = setup();
    const log: string[] = [];
    const w = logWatcher('w', log, () => new Error('fails'));
    h.controller.addWatcher(w, KIND);
    h.informer.add(widget('a'));
    await h.settle();
    h.controller.removeWatcher(w, KIND);
    await h.runNext();
    assert.deepEqual(log, ['w:add:a']);
  });

  test('an errorHandler that throws does not stop retries', async () => {
    const h = setup({
      errorHandler: () => {
        throw new Error('handler bug');
      },
      retryPolicy: () => [true, 10],
    });
    const log: string[] = [];
    let fail = true;
    h.controller.addWatcher(
      logWatcher('w', log, () => {
        if (!fail) return undefined;
        fail = false;
        return new Error('x');
      }),
      KIND,
    );
    h.informer.add(widget('a'));
    await h.settle();
    await h.runNext();
    assert.deepEqual(log, ['w:add:a', 'w:add:a']);
  });

  test('handler exceptions, synchronous or rejected, never escape and are counted', async () => {
    let unhandled = 0;
    const onUnhandled = (): void => void unhandled++;
    process.on('unhandledRejection', onUnhandled);
    try {
      const h = setup({ retryPolicy: () => [false, 0] });
      h.controller.addWatcher(
        {
          add: () => {
            throw new Error('sync throw');
          },
          update: () => Promise.reject(new Error('rejected')),
          delete: async () => {},
        },
        KIND,
      );
      h.controller.addReconciler(
        {
          reconcile: () => {
            throw new Error('sync reconcile throw');
          },
        },
        KIND,
      );
      h.informer.add(widget('a'));
      h.informer.update(widget('a'), widget('a', { rv: '2' }));
      await h.settle();
      await new Promise((r) => setImmediate(r));
      assert.equal(unhandled, 0);
      assert.equal(h.errors.length, 4);
      const errorsMetric = await metricValues(h.controller, 'controller_handler_errors_total');
      assert.equal(sum(errorsMetric, { handler: 'watcher' }), 2);
      assert.equal(sum(errorsMetric, { handler: 'reconciler' }), 2);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('InformerController retry dequeue policy', () => {
  /** A reconciler that fails for the `Action:rv` pairs in `failing`; logs `Action:rv`. */
  function failingReconciler(log: string[], failing: Set<string>): Reconciler {
    return {
      reconcile: async (_ctx, req) => {
        const call = `${ReconcileAction[req.action]}:${req.object.metadata.resourceVersion ?? ''}`;
        log.push(call);
        if (failing.has(call)) throw new Error(`${call} fails`);
        return {};
      },
    };
  }

  async function scenario(
    second: (inf: FakeInformer) => void,
    config: InformerControllerConfig = {},
  ): Promise<{ log: string[]; dropped: number }> {
    const h = setup(config);
    const log: string[] = [];
    h.controller.addReconciler(failingReconciler(log, new Set(['Updated:1'])), KIND);
    h.informer.update(widget('a', { rv: '0' }), widget('a', { rv: '1', generation: 1 }));
    await h.settle();
    second(h.informer);
    await h.settle();
    await h.runNext();
    const dropped = sum(await metricValues(h.controller, 'controller_dropped_retries_total'), {});
    return { log, dropped };
  }

  test('a status echo (new resourceVersion, same generation) keeps the pending retry under the default policy, now carrying the newest object', async () => {
    const { log, dropped } = await scenario((inf) => inf.update(widget('a', { rv: '1' }), widget('a', { rv: '2', generation: 1 })));
    assert.deepEqual(log, ['Updated:1', 'Updated:2', 'Updated:2']);
    assert.equal(dropped, 0);
  });

  test('a resync keeps the pending retry under the default policy', async () => {
    const { log } = await scenario((inf) => {
      const same = widget('a', { rv: '1', generation: 1 });
      inf.update(same, same);
    });
    assert.deepEqual(log, ['Updated:1', 'Resynced:1', 'Updated:1']);
  });

  test('a spec change (new generation) drops the pending retry', async () => {
    const { log, dropped } = await scenario((inf) => inf.update(widget('a', { rv: '1' }), widget('a', { rv: '3', generation: 2 })));
    assert.deepEqual(log, ['Updated:1', 'Updated:3']);
    assert.equal(dropped, 1);
  });

  test('a delete drops the pending retry', async () => {
    const { log } = await scenario((inf) => inf.delete(widget('a', { rv: '4', generation: 1 })));
    assert.deepEqual(log, ['Updated:1', 'Deleted:4']);
  });

  test('a different action keeps the pending retry (its own action, the newest object)', async () => {
    const { log } = await scenario((inf) => inf.add(widget('a', { rv: '5', generation: 7 })));
    assert.deepEqual(log, ['Updated:1', 'Created:5', 'Updated:5']);
  });

  test('a configured policy is applied instead (upstream’s old default drops on any event)', async () => {
    const { log } = await scenario(
      (inf) => {
        const same = widget('a', { rv: '1', generation: 1 });
        inf.update(same, same);
      },
      { retryDequeuePolicy: () => true },
    );
    assert.deepEqual(log, ['Updated:1', 'Resynced:1']);
  });

  test('the policy only touches retries of the same handler and object', async () => {
    const h = setup();
    const log: string[] = [];
    h.controller.addWatcher(logWatcher('w', log, (_a, o) => (o.metadata.name === 'b' ? new Error('b fails') : undefined)), KIND);
    h.controller.addReconciler(failingReconciler(log, new Set(['Created:1'])), KIND);
    h.informer.add(widget('a', { rv: '1' }));
    h.informer.add(widget('b', { rv: '9' }));
    await h.settle();
    h.informer.delete(widget('a', { rv: '2' }));
    await h.settle();
    log.length = 0;
    await h.runNext();
    assert.equal(h.clock.now(), 5000);
    assert.deepEqual(log, ['w:add:b']);
  });

  test('a retry that is already queued behind a new event is dropped when that event is processed', async () => {
    const h = setup();
    const log: string[] = [];
    const gate = deferred();
    h.controller.addReconciler(
      {
        reconcile: async (_ctx, req) => {
          log.push(ReconcileAction[req.action]);
          if (req.action === ReconcileAction.Created) throw new Error('create fails');
          if (req.action === ReconcileAction.Updated) await gate.promise;
          return {};
        },
      },
      KIND,
    );
    h.informer.add(widget('a', { rv: '1' }));
    await h.settle();
    await h.clock.advance(4000);
    h.informer.update(widget('a', { rv: '1' }), widget('a', { rv: '2', generation: 2 }));
    await waitFor(() => log.length === 2);
    h.informer.delete(widget('a', { rv: '3', generation: 2 }));
    await h.clock.advance(1000); // the CREATE retry falls due and queues behind the DELETE
    gate.resolve();
    await h.settle();
    assert.deepEqual(log, ['Created', 'Updated', 'Deleted']);
  });
});

describe('InformerController queue', () => {
  test('coalesces queued, not started updates of one object: oldest old, newest new', async () => {
    const h = setup();
    const gate = deferred();
    const seen: string[] = [];
    h.controller.addWatcher(
      {
        add: async () => {},
        update: async (_c, o, n) => {
          seen.push(`${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`);
          if (seen.length === 1) await gate.promise;
        },
        delete: async () => {},
      },
      KIND,
    );
    const v = (rv: number) => widget('a', { rv: String(rv), generation: rv });
    h.informer.update(v(1), v(2));
    await waitFor(() => seen.length === 1);
    for (let rv = 2; rv < 50; rv++) h.informer.update(v(rv), v(rv + 1));
    assert.equal(await gaugeValue(h.controller, 'controller_queue_depth'), 1);
    gate.resolve();
    await h.settle();
    assert.deepEqual(seen, ['1->2', '2->50']);
    assert.equal(sum(await metricValues(h.controller, 'controller_coalesced_events_total'), {}), 47);
    assert.equal(sum(await metricValues(h.controller, 'informer_events_total'), { event_type: 'UPDATE' }), 49);
  });

  test('does not coalesce across a create or delete', async () => {
    const h = setup();
    const gate = deferred();
    const log: string[] = [];
    h.controller.addWatcher(logWatcher('w', log), KIND);
    h.controller.addReconciler(
      logReconciler('r', log, async () => {
        if (log.length === 2) await gate.promise;
        return {};
      }),
      KIND,
    );
    h.informer.add(widget('a'));
    await waitFor(() => log.length === 2);
    h.informer.update(widget('a'), widget('a', { rv: '2' }));
    h.informer.delete(widget('a', { rv: '2' }));
    h.informer.update(widget('a', { rv: '2' }), widget('a', { rv: '3' }));
    gate.resolve();
    await h.settle();
    assert.deepEqual(log, ['w:add:a', 'r:Created:a', 'w:update:a', 'r:Updated:a', 'w:delete:a', 'r:Deleted:a', 'w:update:a', 'r:Updated:a']);
  });

  test('processes at most maxConcurrentWorkers objects at once', async () => {
    const h = setup({ maxConcurrentWorkers: 3 });
    const gate = deferred();
    let running = 0;
    let maxRunning = 0;
    h.controller.addWatcher(
      {
        add: async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          await gate.promise;
          running--;
        },
        update: async () => {},
        delete: async () => {},
      },
      KIND,
    );
    for (let i = 0; i < 12; i++) h.informer.add(widget(`o${i}`));
    await waitFor(() => running === 3);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.equal(running, 3);
    assert.equal(await gaugeValue(h.controller, 'controller_queue_depth'), 9);
    gate.resolve();
    await h.settle();
    assert.equal(maxRunning, 3);
  });

  test('under a seeded storm of events, failures and retries, no object ever has two handler calls at once and the last state of every object is delivered', async () => {
    const random = seededRandom(20240601);
    const h = setup({ maxConcurrentWorkers: 4, retryPolicy: exponentialBackoffRetryPolicy(10, 50) });
    const active = new Map<string, number>();
    let overlaps = 0;
    let calls = 0;
    const delivered = new Map<string, Set<number>>(); // handler:object -> seqs seen
    const wrap = async (handler: string, object: KubeObject): Promise<void> => {
      const name = object.metadata.name;
      calls++;
      active.set(name, (active.get(name) ?? 0) + 1);
      if (active.get(name)! > 1) overlaps++;
      const turns = Math.floor(random() * 3);
      for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
      active.set(name, active.get(name)! - 1);
      if (random() < 0.2) throw new Error('random failure');
      const k = `${handler}:${name}`;
      if (!delivered.has(k)) delivered.set(k, new Set());
      delivered.get(k)!.add((object.spec as { seq: number }).seq);
    };
    const watcher = (id: string): ResourceWatcher => ({
      add: (_c, o) => wrap(id, o),
      update: (_c, _o, n) => wrap(id, n),
      delete: (_c, o) => wrap(id, o),
    });
    h.controller.addWatcher(watcher('w1'), KIND);
    h.controller.addWatcher(watcher('w2'), KIND);
    h.controller.addReconciler({ reconcile: async (_c, req) => (await wrap('r', req.object), {}) }, KIND);

    const objects = 12;
    const current = new Map<string, KubeObject>();
    const lastSeq = new Map<string, number>();
    for (let seq = 1; seq <= 600; seq++) {
      const name = `o${Math.floor(random() * objects)}`;
      const prev = current.get(name);
      const roll = random();
      const gen = (prev?.metadata.generation ?? 0) + 1;
      const next = widget(name, { rv: String(seq), generation: gen, spec: { seq } });
      if (prev === undefined) {
        h.informer.add(next);
        current.set(name, next);
      } else if (roll < 0.1) {
        h.informer.delete(next);
        current.delete(name);
      } else {
        h.informer.update(prev, next);
        current.set(name, next);
      }
      lastSeq.set(name, seq);
      if (random() < 0.2) await h.clock.advance(Math.floor(random() * 50));
    }
    await h.settle();
    while (await h.runNext());
    assert.equal(overlaps, 0, 'two handler calls at once for one object');
    assert.ok(calls > 600);
    for (const [name, seq] of lastSeq) {
      for (const handler of ['w1', 'w2', 'r']) {
        assert.ok(delivered.get(`${handler}:${name}`)?.has(seq), `${handler} never saw the last state of ${name}`);
      }
    }
  });
});

describe('InformerController handler timeout', () => {
  test('is off by default: a slow handler is waited for, with the controller signal, however long it takes', async () => {
    const h = setup();
    const gate = deferred();
    const signals: AbortSignal[] = [];
    const log: string[] = [];
    h.controller.addWatcher(
      {
        add: async (ctx, o) => {
          signals.push(ctx.signal);
          await gate.promise;
          log.push(`add:${o.metadata.name}`);
        },
        update: async () => {},
        delete: async () => {},
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await waitFor(() => signals.length === 1);
    await h.clock.advance(24 * 3600 * 1000);
    assert.equal(signals[0]!.aborted, false);
    gate.resolve();
    await h.settle();
    assert.deepEqual(log, ['add:a']);
    assert.deepEqual(h.errors, []);
  });

  test('a watcher that ignores its signal: aborted and reported at the deadline, retried per policy, and its object goes on', async () => {
    const h = setup({ handlerTimeoutMs: 2000, retryPolicy: (_err, attempt) => [attempt < 1, 500] });
    const signals: AbortSignal[] = [];
    const log: string[] = [];
    let calls = 0;
    h.controller.addWatcher(
      {
        add: async (ctx) => {
          signals.push(ctx.signal);
          if (++calls === 1) await new Promise<void>(() => {}); // hangs forever, deaf to its signal
          log.push('add done');
        },
        update: async (_ctx, _old, o) => void log.push(`update:${o.metadata.resourceVersion}`),
        delete: async () => {},
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await waitFor(() => signals.length === 1);
    h.informer.update(widget('a'), widget('a', { rv: '2' }));
    await h.clock.advance(1999);
    assert.equal(signals[0]!.aborted, false);
    assert.deepEqual(log, [], 'the update waits behind the running add');
    await h.clock.advance(1);
    await h.settle();
    assert.equal(signals[0]!.aborted, true);
    assert.ok(isHandlerTimeoutError(signals[0]!.reason));
    assert.deepEqual(log, ['update:2'], 'the object went on to its next event');
    assert.equal(h.errors.length, 1);
    assert.ok(isHandlerTimeoutError(h.errors[0]!.err));
    assert.equal(h.errors[0]!.ctx.source, 'watcher');
    assert.equal(h.errors[0]!.ctx.retryAfterMs, 500);
    assert.equal(sum(await metricValues(h.controller, 'controller_handler_errors_total'), { handler: 'watcher' }), 1);
    await h.runNext();
    assert.deepEqual(log, ['update:2', 'add done'], 'the retry ran, with a fresh signal');
    assert.equal(signals[1]!.aborted, false);
  });

  test('a reconciler that honours its signal fails with the timeout error, not as a shutdown abort, and the controller signal is untouched', async () => {
    const h = setup({ handlerTimeoutMs: 1000, retryPolicy: () => [false, 0] });
    h.controller.addReconciler(
      {
        reconcile: (ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
          }),
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await h.clock.advance(1000);
    await h.settle();
    assert.equal(h.errors.length, 1);
    assert.ok(isHandlerTimeoutError(h.errors[0]!.err));
    assert.equal(h.errors[0]!.ctx.source, 'reconciler');
    assert.equal(h.errors[0]!.ctx.signal.aborted, false, 'only the call was aborted');
    assert.equal(sum(await metricValues(h.controller, 'controller_handler_errors_total'), { handler: 'reconciler' }), 1);
  });

  test('a call that finishes in time keeps its result; the deadline timer is cancelled', async () => {
    const h = setup({ handlerTimeoutMs: 1000 });
    const log: string[] = [];
    h.controller.addReconciler(logReconciler('r', log, () => ({})), KIND);
    h.informer.add(widget('a'));
    await h.settle();
    assert.deepEqual(log, ['r:Created:a']);
    assert.equal(h.clock.pendingTimers(), 0);
    assert.deepEqual(h.errors, []);
  });

  test('rejects a negative or infinite handlerTimeoutMs', () => {
    for (const bad of [-1, Number.POSITIVE_INFINITY, Number.NaN]) {
      assert.throws(() => new InformerController({ handlerTimeoutMs: bad, logger: noopLogger }), (err) => isInvalidArgumentError(err));
    }
  });
});

describe('InformerController shutdown', () => {
  test('run() resolves after the signal aborts once in-flight handlers have finished', async () => {
    const h = setup();
    const gate = deferred();
    let handlerSignal: AbortSignal | undefined;
    h.controller.addWatcher(
      {
        add: async (ctx: HandlerContext) => {
          handlerSignal = ctx.signal;
          await gate.promise;
        },
        update: async () => {},
        delete: async () => {},
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await waitFor(() => handlerSignal !== undefined);
    let resolved = false;
    const stopping = h.stop().then(() => (resolved = true));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.equal(resolved, false);
    assert.equal(handlerSignal!.aborted, true, 'handlers are told to stop');
    gate.resolve();
    await stopping;
    assert.equal(resolved, true);
  });

  test('run() gives up on stuck handlers after shutdownTimeoutMs', async () => {
    const h = setup({ shutdownTimeoutMs: 1000 });
    let started = false;
    h.controller.addWatcher(
      {
        add: () => {
          started = true;
          return new Promise<void>(() => {});
        },
        update: async () => {},
        delete: async () => {},
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await waitFor(() => started);
    let resolved = false;
    const stopping = h.stop().then(() => (resolved = true));
    await h.clock.advance(999);
    assert.equal(resolved, false);
    await h.clock.advance(1);
    await stopping;
    assert.equal(resolved, true);
  });

  test('a handler that fails because of the shutdown abort is neither reported nor retried', async () => {
    const h = setup();
    let started = false;
    h.controller.addWatcher(
      {
        add: (ctx) =>
          new Promise<void>((_resolve, reject) => {
            started = true;
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error));
          }),
        update: async () => {},
        delete: async () => {},
      },
      KIND,
    );
    h.informer.add(widget('a'));
    await waitFor(() => started);
    await h.stop();
    assert.equal(h.errors.length, 0);
    assert.equal(h.clock.pendingTimers(), 0);
  });

  test('an informer that fails stops the controller and run() rejects with its error', async () => {
    const clock = new VirtualClock();
    const errors: Reported[] = [];
    const c = new InformerController({ clock, logger: noopLogger, errorHandler: (ctx, err) => errors.push({ ctx, err }) });
    const ok = new FakeInformer();
    const bad = new FakeInformer();
    bad.failWith = new Error('bad selector');
    c.addInformer(ok, KIND);
    c.addInformer(bad, KIND);
    await assert.rejects(c.run(new AbortController().signal), /bad selector/);
    assert.equal(errors[0]?.ctx.source, 'informer');
  });

  test('a finalizer patch aborted by the shutdown is neither reported, counted nor retried, though wrapped twice', async () => {
    const h = setup();
    const client = new HangingPatchClient();
    const reconciler = newOpinionatedReconciler(client, 'operator.v1.widget.example.com');
    reconciler.wrap({ reconcile: async () => ({}) });
    h.controller.addReconciler(reconciler, KIND);
    h.informer.add(widget('a'));
    await waitFor(() => client.patching);
    await h.stop();
    assert.equal(client.aborted, true, 'the patch saw the shutdown signal');
    assert.deepEqual(
      h.errors.map((e) => String(e.err)),
      [],
    );
    assert.equal(sum(await metricValues(h.controller, 'controller_handler_errors_total'), {}), 0);
    assert.equal(h.clock.pendingTimers(), 0);
  });

  test('a watcher error caused by the shutdown abort is not reported, and the same error while running is', async () => {
    const h = setup();
    let started = false;
    h.controller.addWatcher(
      {
        add: (ctx, object) =>
          new Promise<void>((_resolve, reject) => {
            if (object.metadata.name === 'early') {
              reject(new Error('sync failed', { cause: Object.assign(new Error('aborted'), { name: 'AbortError' }) }));
              return;
            }
            started = true;
            ctx.signal.addEventListener('abort', () => reject(new Error('sync failed', { cause: ctx.signal.reason })));
          }),
        update: async () => {},
        delete: async () => {},
      },
      KIND,
    );
    h.informer.add(widget('early'));
    await h.settle();
    assert.equal(h.errors.length, 1, 'an abort error while running is an ordinary failure');
    h.informer.add(widget('late'));
    await waitFor(() => started);
    await h.stop();
    assert.equal(h.errors.length, 1);
  });
});

/** A PatchClient whose patch waits until its request is aborted, then fails as the HTTP transport does. */
class HangingPatchClient extends FakePatchClient {
  patching = false;
  aborted = false;

  override async patch(_id: unknown, _patch: PatchRequest, options?: WriteOptions): Promise<KubeObject> {
    this.patching = true;
    const signal = options?.signal;
    assert.ok(signal, 'the reconciler passes its signal to the patch');
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    this.aborted = true;
    throw new NetworkError('PATCH widgets/a: aborted', { errno: 'ABORT_ERR' });
  }
}

describe('InformerController informer errors', () => {
  interface InformerHarness {
    client: FakeListWatchClient;
    informer: KubernetesBasedInformer;
    controller: InformerController;
    errors: Reported[];
    clock: VirtualClock;
    stop: () => Promise<void>;
  }

  function informerSetup(
    options: { informerErrorHandler?: (context: InformerErrorContext, error: unknown) => void; onError?: (ctx: ErrorHandlerContext) => void } = {},
  ): InformerHarness {
    const clock = new VirtualClock();
    const errors: Reported[] = [];
    const errorHandler = (ctx: ErrorHandlerContext, err: unknown): void => {
      options.onError?.(ctx);
      errors.push({ ctx, err });
    };
    const controller = new InformerController({ clock, logger: noopLogger, errorHandler });
    const client = new FakeListWatchClient();
    const informerErrorHandler = options.informerErrorHandler;
    const informer = new KubernetesBasedInformer(widgetKind, client, 'default', informerErrorHandler === undefined ? { clock } : { clock, errorHandler: informerErrorHandler });
    controller.addInformer(informer, KIND);
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    return {
      client,
      informer,
      controller,
      errors,
      clock,
      stop: async () => {
        abort.abort();
        await running;
      },
    };
  }

  test('list and watch failures reach errorHandler with source informer, the kind and the phase, and are counted', async () => {
    const h = informerSetup();
    const listFailure = new ApiError({ status: 500, reason: 'InternalError', message: 'etcd unavailable' });
    h.client.replyList(listFailure).replyList(page([], '1')).replyWatch();
    await waitFor(() => h.errors.length === 1);
    assert.equal(h.errors[0]!.err, listFailure);
    assert.deepEqual(pick(h.errors[0]!.ctx), { source: 'informer', resourceKind: KIND, phase: 'list', objectKey: '', action: '' });
    // The informer backs off by itself, lists again and watches; then the connection breaks.
    await h.clock.advance(60_000);
    await waitFor(() => h.client.watches.length === 1);
    const watchFailure = new NetworkError('socket hang up', { errno: 'ECONNRESET' });
    h.client.watch_.fail(watchFailure);
    await waitFor(() => h.errors.length === 2);
    assert.equal(h.errors[1]!.err, watchFailure);
    assert.equal(h.errors[1]!.ctx.phase, 'watch');
    const counted = await metricValues(h.controller, 'controller_informer_errors_total');
    assert.equal(sum(counted, { kind: KIND, phase: 'list' }), 1);
    assert.equal(sum(counted, { kind: KIND, phase: 'watch' }), 1);
    await h.stop();
  });

  test('an errorHandler set on the informer is kept and called first, even when it throws', async () => {
    const order: string[] = [];
    const h = informerSetup({
      informerErrorHandler: (context) => {
        order.push(`informer:${context.phase}`);
        throw new Error('informer handler bug');
      },
      onError: (ctx) => order.push(`controller:${ctx.phase}`),
    });
    h.client.replyList(new ApiError({ status: 503, reason: 'ServiceUnavailable' }));
    await waitFor(() => h.errors.length === 1);
    assert.deepEqual(order, ['informer:list', 'controller:list']);
    await h.stop();
  });

  test('the informer default handler is replaced, so an error is logged once, by the controller', async () => {
    const consoleError = mock.method(console, 'error', () => {});
    try {
      const h = informerSetup();
      h.client.replyList(new ApiError({ status: 500, reason: 'InternalError' }));
      await waitFor(() => h.errors.length === 1);
      assert.equal(consoleError.mock.callCount(), 0);
      await h.stop();
    } finally {
      consoleError.mock.restore();
    }
  });

  test('a failing handler of the informer is reported with phase handler and the object key', async () => {
    const h = informerSetup();
    h.informer.addEventHandler({
      add: () => Promise.reject(new Error('another handler failed')),
      update: async () => {},
      delete: async () => {},
    });
    h.client.replyList(page([kubeWidget('a', '1')], '1')).replyWatch();
    await waitFor(() => h.errors.length === 1);
    assert.deepEqual(pick(h.errors[0]!.ctx), { source: 'informer', resourceKind: KIND, phase: 'handler', objectKey: 'default/a', action: '' });
    await h.stop();
  });
});

function pick(ctx: ErrorHandlerContext): Pick<ErrorHandlerContext, 'source' | 'resourceKind' | 'phase' | 'objectKey' | 'action'> {
  return { source: ctx.source, resourceKind: ctx.resourceKind, phase: ctx.phase, objectKey: ctx.objectKey, action: ctx.action };
}

describe('InformerController metrics', () => {
  test('exposes the upstream metric names plus ours, unregistered, ready for a registry', async () => {
    const c = new InformerController({ logger: noopLogger, metricsNamespace: 'myop' });
    const names = c.prometheusCollectors().map((m) => (m as unknown as { name: string }).name);
    for (const n of [
      'informer_events_total',
      'informer_reconcile_duration_seconds',
      'reconciler_process_duration_seconds',
      'watcher_process_duration_seconds',
      'ongoing_reconcile_processes',
      'ongoing_reconcile_events',
      'controller_retries_total',
      'controller_handler_errors_total',
      'controller_queue_depth',
      'controller_dropped_retries_total',
      'controller_informer_errors_total',
    ]) {
      assert.ok(names.includes(`myop_${n}`), `missing myop_${n}`);
    }
    const registry = new Registry();
    for (const m of c.prometheusCollectors()) registry.registerMetric(m);
    assert.match(await registry.metrics(), /myop_informer_events_total/);
  });

  test('metric values move with events, handler calls and retries', async () => {
    const h = setup();
    h.controller.addWatcher(logWatcher('w', [], () => new Error('fail')), KIND);
    h.controller.addReconciler(logReconciler('r', []), KIND);
    h.informer.add(widget('a'));
    h.informer.add(widget('b'));
    await h.settle();
    const events = await metricValues(h.controller, 'informer_events_total');
    assert.equal(sum(events, { event_type: 'CREATE', kind: KIND }), 2);
    const watcherDuration = await metricValues(h.controller, 'watcher_process_duration_seconds');
    assert.equal(sum(watcherDuration, { event_type: 'CREATE' }, 'watcher_process_duration_seconds_count'), 2);
    const reconcileDuration = await metricValues(h.controller, 'reconciler_process_duration_seconds');
    assert.equal(sum(reconcileDuration, {}, 'reconciler_process_duration_seconds_count'), 2);
    const eventDuration = await metricValues(h.controller, 'informer_reconcile_duration_seconds');
    assert.equal(sum(eventDuration, {}, 'informer_reconcile_duration_seconds_count'), 2);
    const retries = await metricValues(h.controller, 'controller_retries_total');
    assert.equal(sum(retries, { handler: 'watcher', reason: 'error' }), 2);
    assert.equal(await gaugeValue(h.controller, 'controller_pending_retries'), 2);
    assert.equal(await gaugeValue(h.controller, 'ongoing_reconcile_processes'), 0);
  });
});

// --- metric helpers ---

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

async function metricValues(c: InformerController, name: string): Promise<Sample[]> {
  const metric = c.prometheusCollectors().find((m) => (m as unknown as { name: string }).name === name);
  assert.ok(metric, `no metric ${name}`);
  return (await metric.get()).values as Sample[];
}

async function gaugeValue(c: InformerController, name: string): Promise<number> {
  return sum(await metricValues(c, name), {});
}

function sum(samples: Sample[], labels: Record<string, string>, metricName?: string): number {
  return samples
    .filter((s) => metricName === undefined || s.metricName === metricName)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((acc, s) => acc + s.value, 0);
}


describe('InformerController ctx.stillOwned', () => {
  test('without a shard gate it is undefined; with one it asks the gate about the call’s object at the moment it is called', async () => {
    const h = setup();
    const seen: { name: string; before: boolean | undefined; after: boolean | undefined }[] = [];
    let started = false;
    const release = deferred<void>();
    h.controller.addWatcher(
      {
        add: async (ctx, object) => {
          const before = ctx.stillOwned?.();
          started = true;
          await release.promise;
          seen.push({ name: object.metadata.name, before, after: ctx.stillOwned?.() });
        },
        update: async () => undefined,
        delete: async () => undefined,
      },
      KIND,
    );
    h.informer.add(widget('a'));
    release.resolve();
    await h.settle();
    assert.deepEqual([...seen], [{ name: 'a', before: undefined, after: undefined }]);

    // A ring owns `b` until it is taken away while the call waits (its replica frozen, then fenced).
    let owned = true;
    const asked: string[] = [];
    h.controller.shardWith((object) => (asked.push(object.metadata.name), owned));
    const taken = deferred<void>();
    h.controller.addWatcher(
      {
        add: async (ctx, object) => {
          if (object.metadata.name !== 'b') return;
          const before = ctx.stillOwned?.();
          started = true;
          await taken.promise;
          seen.push({ name: `${object.metadata.name} (gated)`, before, after: ctx.stillOwned?.() });
        },
        update: async () => undefined,
        delete: async () => undefined,
      },
      KIND,
    );
    started = false;
    h.informer.add(widget('b'));
    await waitFor(() => seen.some((s) => s.name === 'b (gated)') || started);
    owned = false;
    taken.resolve();
    await h.settle();
    assert.deepEqual(
      seen.find((s) => s.name === 'b (gated)'),
      { name: 'b (gated)', before: true, after: false },
    );
    assert.ok(asked.length >= 2 && asked.every((name) => name === 'b'), `the gate is asked about the call’s own object: ${asked.join()}`);
  });
});
