import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { KubeObject } from '@kubeloop/resource';
import { VirtualClock, flushMicrotasks } from '../clock.js';
import { noopLogger } from '../observability/logger.js';
import type { HandlerContext, ResourceWatcher } from '../handlers/resource-watcher.js';
import { FakeInformer, deferred, waitFor, widget } from '../testing/fake-informer.js';
import { InformerController } from './informer-controller.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;

/** `controller_pending_retries`: the retries waiting for their time. */
async function pendingRetries(controller: InformerController): Promise<number> {
  const registry = new Registry();
  for (const collector of controller.prometheusCollectors()) registry.registerMetric(collector);
  const metric = await registry.getSingleMetric('controller_pending_retries')?.get();
  assert.ok(metric, 'no controller_pending_retries metric');
  return metric.values.reduce((total, sample) => total + sample.value, 0);
}

/**
 * A running controller with two workers: `x`'s add fails once and waits for its retry (due in 1 s),
 * `a`'s add is in flight until the test releases it, and an update of `a` is queued behind it.
 */
async function controllerWithPendingWork() {
  const clock = new VirtualClock();
  const informer = new FakeInformer();
  const controller = new InformerController({
    clock,
    logger: noopLogger,
    errorHandler: () => undefined,
    maxConcurrentWorkers: 2,
    shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS,
    retryPolicy: () => [true, 1_000],
  });
  const calls: string[] = [];
  const release = deferred();
  let inFlightSignal: AbortSignal | undefined;
  const name = (o: KubeObject): string => `${o.metadata.name}@${o.metadata.resourceVersion ?? ''}`;
  const watcher: ResourceWatcher = {
    add: async (ctx: HandlerContext, o: KubeObject) => {
      calls.push(`add ${name(o)}`);
      if (o.metadata.name === 'x' && calls.filter((c) => c === 'add x@1').length === 1) throw new Error('x fails once');
      if (o.metadata.name === 'a') {
        inFlightSignal = ctx.signal;
        await release.promise; // ignores its signal: a slow handler
      }
    },
    update: async (_ctx: HandlerContext, _old: KubeObject, o: KubeObject) => void calls.push(`update ${name(o)}`),
    delete: async (_ctx: HandlerContext, o: KubeObject) => void calls.push(`delete ${name(o)}`),
  };
  controller.addInformer(informer, 'Widget');
  controller.addWatcher(watcher, 'Widget');
  const stop = new AbortController();
  let resolved = false;
  const running = controller.run(stop.signal).then(() => (resolved = true));
  await waitFor(() => controller.hasSynced());

  informer.add(widget('x'));
  await controller.whenIdle(); // x failed: its retry waits for its time
  informer.add(widget('a'));
  await waitFor(() => inFlightSignal !== undefined);
  informer.update(widget('a'), widget('a', { rv: '2' })); // queued behind the running add
  await flushMicrotasks();
  assert.deepEqual(calls, ['add x@1', 'add a@1']);
  assert.equal(await pendingRetries(controller), 1, "x's retry waits");
  return { controller, clock, calls, release, stop, running, isResolved: () => resolved, inFlightSignal: () => inFlightSignal! };
}

// operator README, "Defaults": "When `signal` aborts, handlers' `ctx.signal` aborts, queued work is
// dropped, and `run()` resolves once running handlers and informers have finished or
// `shutdownTimeoutMs` passed"; "Guarantees": "At shutdown, queued work and pending retries are dropped".
test('at stop, queued events and waiting retries are dropped and run() waits for the in-flight handler', async () => {
  const h = await controllerWithPendingWork();
  h.stop.abort();
  await flushMicrotasks();
  assert.equal(h.inFlightSignal().aborted, true, 'the in-flight handler is told to stop');
  assert.equal(await pendingRetries(h.controller), 0, 'the waiting retry is dropped at once, before its time');

  await h.clock.advance(SHUTDOWN_TIMEOUT_MS - 1); // x's retry was due after 1 s; a worker is free
  assert.equal(h.isResolved(), false, 'run() waits for the in-flight handler');
  assert.deepEqual(h.calls, ['add x@1', 'add a@1'], 'no retry runs once stopping');

  h.release.resolve();
  await h.running;
  await h.clock.advance(60_000);
  assert.deepEqual(h.calls, ['add x@1', 'add a@1'], 'the queued update and the retry were dropped, not delivered after stop');
  assert.equal(h.clock.pendingTimers(), 0, 'no timer is left armed');
});

test('at stop, a handler still running at shutdownTimeoutMs is given up on, and its late end starts no queued work', async () => {
  const h = await controllerWithPendingWork();
  h.stop.abort();
  await h.clock.advance(SHUTDOWN_TIMEOUT_MS - 1);
  assert.equal(h.isResolved(), false);
  await h.clock.advance(1);
  await h.running;

  h.release.resolve(); // the stuck handler ends after run() gave up on it
  await flushMicrotasks();
  await h.clock.advance(60_000);
  assert.deepEqual(h.calls, ['add x@1', 'add a@1'], 'neither the queued update nor the retry ran after stop');
});
