import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter } from 'prom-client';
import { isInvalidArgumentError } from '../errors.js';
import { Operator } from './operator.js';
import type { Controller } from './operator.js';
import { deferred, waitFor } from '../testing/fake-informer.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

/** A controller that runs until aborted, then takes `stopTurns` macrotask turns to stop; it can be told to fail. */
class TestController implements Controller {
  started = 0;
  stopped = false;
  signal: AbortSignal | undefined;
  private readonly failure = deferred<Error>();

  constructor(private readonly stopTurns = 0) {}

  fail(err: Error): void {
    this.failure.resolve(err);
  }

  async run(signal: AbortSignal): Promise<void> {
    this.started++;
    this.signal = signal;
    const aborted = new Promise<undefined>((resolve) => {
      if (signal.aborted) resolve(undefined);
      else signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    const err = await Promise.race([aborted, this.failure.promise]);
    for (let i = 0; i < this.stopTurns; i++) await new Promise((r) => setImmediate(r));
    this.stopped = true;
    if (err !== undefined) throw err;
  }
}

describe('Operator', () => {
  test('runs every controller and resolves once all have stopped after the signal aborts', async () => {
    const op = new Operator();
    const a = new TestController();
    const b = new TestController(5);
    op.addController(a);
    op.addController(b);
    const stop = runUntilStopped(op);
    await waitFor(() => a.started === 1 && b.started === 1);
    await stop();
    assert.equal(a.stopped && b.stopped, true);
  });

  test('the first error stops every controller and is returned once all have stopped', async () => {
    const op = new Operator();
    const failing = new TestController();
    const slow = new TestController(10);
    const second = new TestController();
    op.addController(failing);
    op.addController(slow);
    op.addController(second);
    const running = op.run(new AbortController().signal);
    await waitFor(() => slow.started === 1);
    failing.fail(new Error('first'));
    await waitFor(() => second.signal?.aborted === true);
    second.fail(new Error('second'));
    await assert.rejects(running, /first/);
    assert.equal(slow.stopped, true, 'run() returned before every controller stopped');
    assert.equal(slow.signal?.aborted, true);
  });

  test('a controller that returns early without error does not stop the others', async () => {
    const op = new Operator();
    const early: Controller = { run: async () => {} };
    const other = new TestController();
    op.addController(early);
    op.addController(other);
    const abort = new AbortController();
    let settled = false;
    const running = op.run(abort.signal).then(() => (settled = true));
    await waitFor(() => other.started === 1);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    assert.equal(other.signal?.aborted, false);
    abort.abort();
    await running;
  });

  test('a controller that throws synchronously is treated as a failure', async () => {
    const op = new Operator();
    const other = new TestController();
    op.addController({
      run: () => {
        throw new Error('sync');
      },
    });
    op.addController(other);
    await assert.rejects(op.run(new AbortController().signal), /sync/);
    assert.equal(other.stopped, true);
  });

  test('a controller that fails after the signal aborted does not make run() reject (upstream returns nil once stopped)', async () => {
    const op = new Operator();
    const failsWhileStopping: Controller = {
      run: async (signal) => {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        throw new Error('flush failed while stopping');
      },
    };
    const other = new TestController(3);
    op.addController(failsWhileStopping);
    op.addController(other);
    const stop = runUntilStopped(op);
    await waitFor(() => other.started === 1);
    await stop();
    assert.equal(other.stopped, true, 'run() still waits for every controller');
  });

  // Deliberate difference (README): upstream's AddController after Run is not added to the running controllers.
  test('a controller added while running is started, and stopped with the others', async () => {
    const op = new Operator();
    const stop = runUntilStopped(op);
    const late = new TestController();
    op.addController(late);
    assert.equal(late.started, 1);
    await stop();
    assert.equal(late.stopped, true);
  });

  test('with no controllers, run resolves when the signal aborts', async () => {
    const op = new Operator();
    const abort = new AbortController();
    let settled = false;
    const running = op.run(abort.signal).then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    abort.abort();
    await running;
  });

  test('addController rejects nil', () => {
    assert.throws(() => new Operator().addController(undefined as unknown as Controller), isInvalidArgumentError);
  });

  test('prometheusCollectors has one collector per name of the controllers that have some, labelled by controller', async () => {
    const op = new Operator();
    const c1 = new Counter({ name: 'a_total', help: 'a', registers: [] });
    const c2 = new Counter({ name: 'b_total', help: 'b', registers: [] });
    c1.inc();
    c2.inc(2);
    op.addController({ run: async () => {}, prometheusCollectors: () => [c1] });
    op.addController({ run: async () => {} });
    op.addController({ run: async () => {}, prometheusCollectors: () => [c2], name: 'named' });
    const collectors = op.prometheusCollectors();
    assert.deepEqual(
      await Promise.all(collectors.map(async (c) => (await c.get()).values.map((v) => [(c as unknown as { name: string }).name, v.labels['controller'], v.value]))),
      [[['a_total', 'controller-1', 1]], [['b_total', 'named', 2]]],
    );
    assert.deepEqual(op.prometheusCollectors(), collectors);
  });
});
