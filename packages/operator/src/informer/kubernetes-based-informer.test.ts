import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, CodecError, NetworkError, isSelectorError } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';
import { JitteredExponentialBackoff } from './backoff.js';
import type { Backoff } from './backoff.js';
import { VirtualClock } from '../clock.js';
import { FakeListWatchClient, RecordingHandler, gone, page, widget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import type { InformerState } from './informer-state.js';
import { noopLogger } from '../observability/logger.js';
import { InformerMetrics } from '../observability/metrics.js';
import { Registry } from 'prom-client';
import { HANDLED, KubernetesBasedInformer, WatchInactivityError, stripManagedFields } from './kubernetes-based-informer.js';
import type { InformerErrorContext, KubernetesBasedInformerOptions } from './kubernetes-based-informer.js';
import type { HandlerContext } from '../handlers/resource-watcher.js';
import { TRACER_NAME, setTracer } from '../observability/tracing.js';
import { trace } from '@opentelemetry/api';
import type { Span, Tracer } from '@opentelemetry/api';

/** A backoff that always answers `ms` and counts its calls. */
function fixedBackoff(ms: number): Backoff & { calls: number } {
  const b = {
    calls: 0,
    next: (): number => {
      b.calls++;
      return ms;
    },
    reset: (): void => undefined,
  };
  return b;
}

interface Harness {
  clock: VirtualClock;
  client: FakeListWatchClient;
  informer: KubernetesBasedInformer;
  handler: RecordingHandler;
  errors: { error: unknown; context: InformerErrorContext }[];
  states: InformerState[];
  backoff: Backoff & { calls: number };
  abort: AbortController;
  running: Promise<void> | undefined;
  start(): Promise<void>;
  settle(): Promise<void>;
  stop(): Promise<void>;
}

function harness(options: KubernetesBasedInformerOptions = {}): Harness {
  const clock = new VirtualClock(1_000_000);
  const client = new FakeListWatchClient();
  const errors: Harness['errors'] = [];
  const backoff = fixedBackoff(1000);
  const informer = new KubernetesBasedInformer(widgetKind, client, 'default', {
    clock,
    backoff,
    random: () => 0,
    logger: noopLogger,
    errorHandler: (context, error) => errors.push({ error, context }),
    ...options,
  });
  const handler = new RecordingHandler();
  informer.addEventHandler(handler);
  const states: InformerState[] = [];
  informer.on('stateChange', (s) => states.push(s));
  const h: Harness = {
    clock,
    client,
    informer,
    handler,
    errors,
    states,
    backoff,
    abort: new AbortController(),
    running: undefined,
    async start() {
      h.running = informer.run(h.abort.signal);
      await h.settle();
    },
    settle: () => clock.advance(0),
    async stop() {
      h.abort.abort();
      await h.running;
    },
  };
  return h;
}

/**
 * A harness on a real exponential backoff (800 ms, doubling, no jitter) and its own virtual clock,
 * with the delays of the BackingOff states it went through.
 */
function backoffHarness(): { h: Harness; clock: VirtualClock; delays: number[] } {
  const clock = new VirtualClock(1_000_000);
  const backoff = new JitteredExponentialBackoff({ clock, jitter: 'none', initialMs: 800, maxMs: 30_000 });
  const h = harness({ clock, backoff });
  const delays: number[] = [];
  h.informer.on('stateChange', (s) => {
    if (s.phase === 'BackingOff') delays.push(s.delayMs);
  });
  return { h, clock, delays };
}

describe('KubernetesBasedInformer', () => {
  test('lists page by page, delivers adds, then watches from the list resourceVersion with bookmarks', async () => {
    const h = harness({ pageSize: 2 });
    let synced = 0;
    h.informer.on('synced', () => synced++);
    h.client.replyList(page([widget('a', '3'), widget('b', '4')], '9', 'next')).replyList(page([widget('c', '5')], '10')).replyWatch();
    await h.start();
    assert.deepEqual(
      h.client.listCalls.map((c) => [c.limit, c.continue]),
      [
        [2, undefined],
        [2, 'next'],
      ],
    );
    assert.deepEqual(h.handler.log(), ['add:a@3', 'add:b@4', 'add:c@5']);
    assert.equal(h.informer.hasSynced(), true);
    assert.equal(synced, 1);
    assert.equal(h.informer.lastSyncResourceVersion(), '10');
    assert.equal(h.informer.store.size, 3);
    const watch = h.client.watchCalls[0]!;
    assert.equal(watch.resourceVersion, '10');
    assert.equal(watch.allowWatchBookmarks, true);
    assert.equal(watch.timeoutSeconds, 300);
    await h.stop();
  });

  test('the watch timeout is spread between the configured value and twice that', async () => {
    const h = harness({ random: () => 0.5, watchTimeoutSeconds: 100 });
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    assert.equal(h.client.watchCalls[0]!.timeoutSeconds, 150);
    await h.stop();
  });

  test('selectors reach both the list and the watch', async () => {
    const h = harness({ labelSelector: 'app=web', fieldSelector: 'metadata.name=a' });
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    assert.equal(h.client.listCalls[0]!.labelSelector, 'app=web');
    assert.equal(h.client.listCalls[0]!.fieldSelector, 'metadata.name=a');
    assert.equal(h.client.watchCalls[0]!.labelSelector, 'app=web');
    assert.equal(h.client.watchCalls[0]!.fieldSelector, 'metadata.name=a');
    await h.stop();
  });

  test('listed objects without apiVersion and kind get those of the informer kind', async () => {
    const h = harness();
    const bare = widget('a', '1') as Partial<KubeObject>;
    delete bare.apiVersion;
    delete bare.kind;
    h.client.replyList(page([bare as KubeObject], '1')).replyWatch();
    await h.start();
    const added = h.handler.calls[0]!.object;
    assert.equal(added.apiVersion, 'example.com/v1');
    assert.equal(added.kind, 'Widget');
    await h.stop();
  });

  test('watch events update the cache and reach the handler as add, update (old and new) and delete', async () => {
    const h = harness();
    h.client.replyList(page([widget('a', '1')], '1')).replyWatch();
    await h.start();
    h.client.watch_.push('ADDED', widget('b', '2')).push('MODIFIED', widget('a', '3')).push('DELETED', widget('b', '4'));
    await h.settle();
    assert.deepEqual(h.handler.log(), ['add:a@1', 'add:b@2', 'update:a@1->3', 'delete:b@4']);
    assert.equal(h.informer.lastSyncResourceVersion(), '4');
    assert.deepEqual([...h.informer.store.keys()], ['default/a']);
    assert.equal(h.informer.store.get('default/a')!.metadata.resourceVersion, '3');
    await h.stop();
  });

  test('a watch event for a known name with a new uid is delete(old) + add(new); an unchanged synthetic ADDED is skipped', async () => {
    const h = harness();
    const second = new RecordingHandler();
    h.informer.addEventHandler(second);
    h.client.replyList(page([widget('a', '1', { uid: 'one' }), widget('b', '2')], '2')).replyWatch();
    await h.start();
    h.client.watch_.push('ADDED', widget('b', '2')).push('ADDED', widget('a', '5', { uid: 'two' }));
    await h.settle();
    for (const handler of [h.handler, second]) assert.deepEqual(handler.log(), ['add:a@1', 'add:b@2', 'delete:a@1', 'add:a@5']);
    assert.equal(h.handler.calls[2]!.object.metadata.uid, 'one');
    assert.equal(h.informer.store.get('default/a')!.metadata.uid, 'two');
    await h.stop();
  });

  test('with a recording tracer, lists, watches and each event get spans with the object attributes', async () => {
    const spans: { name: string; attributes: Record<string, unknown>; ended: boolean }[] = [];
    const fakeSpan = (name: string, attributes: Record<string, unknown> = {}): Span => {
      const record = { name, attributes: { ...attributes }, ended: false };
      spans.push(record);
      const span = {
        isRecording: () => true,
        setAttributes: (a: Record<string, unknown>) => (Object.assign(record.attributes, a), span),
        setAttribute: () => span,
        setStatus: () => span,
        recordException: () => undefined,
        end: () => void (record.ended = true),
      };
      return span as unknown as Span;
    };
    setTracer({ startSpan: (name: string, options?: { attributes?: Record<string, unknown> }) => fakeSpan(name, options?.attributes) } as unknown as Tracer);
    try {
      const h = harness();
      h.client.replyList(page([], '1')).replyWatch();
      await h.start();
      h.client.watch_.push('ADDED', widget('a', '2')).push('MODIFIED', widget('a', '3')).push('DELETED', widget('a', '4'));
      await h.settle();
      await h.stop();
      assert.deepEqual(
        spans.map((s) => s.name),
        ['informer-list', 'informer-watch', 'informer-event-add', 'informer-event-update', 'informer-event-delete'],
      );
      assert.ok(spans.every((s) => s.ended));
      assert.equal(spans[2]!.attributes['name'], 'a');
      assert.equal(spans[2]!.attributes['kind.name'], 'Widget');
      assert.deepEqual(h.handler.log(), ['add:a@2', 'update:a@2->3', 'delete:a@4']);
    } finally {
      setTracer(trace.getTracer(TRACER_NAME));
    }
  });

  test('a bookmark advances the resourceVersion and calls no handler', async () => {
    const h = harness();
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    h.client.watch_.push('BOOKMARK', widget('', '77'));
    await h.settle();
    assert.equal(h.informer.lastSyncResourceVersion(), '77');
    assert.deepEqual(h.handler.log(), []);
    await h.stop();
  });

  test('a cleanly closed watch resumes from the last resourceVersion without relisting', async () => {
    const h = harness();
    const starts: string[] = [];
    h.informer.on('watchStart', (rv) => starts.push(rv));
    h.client.replyList(page([], '1')).replyWatch().replyWatch();
    await h.start();
    await h.clock.advance(5000);
    h.client.watch_.push('ADDED', widget('a', '5')).push('BOOKMARK', widget('', '8')).close();
    await h.settle();
    assert.deepEqual(starts, ['1', '8']);
    assert.equal(h.client.listCalls.length, 1);
    assert.equal(h.backoff.calls, 0);
    await h.stop();
  });

  test('a watch the server ends cleanly right after it opened is re-watched at once from the last resourceVersion: no error, no backoff', async () => {
    const h = harness();
    h.client.replyList(page([], '1')).replyWatch().replyWatch();
    await h.start();
    // A graceful drop right after a (re)connect: no event, well under a second.
    h.client.watch_.close();
    await h.settle();
    assert.equal(h.client.watchCalls.length, 2, 're-watched without waiting');
    assert.equal(h.client.watchCalls[1]!.resourceVersion, '1');
    assert.deepEqual(h.errors, []);
    assert.equal(h.backoff.calls, 0);
    assert.ok(!h.states.some((s) => s.phase === 'BackingOff'));
    await h.stop();
  });

  test('a server that ends every watch at once gets one watch per second, not a tight loop, and no error', async () => {
    const h = harness();
    h.client.replyList(page([], '1'));
    for (let i = 0; i < 6; i++) h.client.replyWatch();
    await h.start();
    h.client.watch_.close();
    await h.settle();
    h.client.watch_.close();
    await h.settle();
    assert.equal(h.client.watchCalls.length, 2, 'the second instant end waits');
    await h.clock.advance(999);
    assert.equal(h.client.watchCalls.length, 2);
    await h.clock.advance(1);
    assert.equal(h.client.watchCalls.length, 3);
    h.client.watch_.close();
    await h.clock.advance(1000);
    assert.equal(h.client.watchCalls.length, 4);
    assert.deepEqual(h.errors, []);
    assert.equal(h.backoff.calls, 0);
    await h.stop();
  });

  test('the error backoff starts over after a watch that delivered an event (virtual clock)', async () => {
    const { h, clock, delays } = backoffHarness();
    h.client.replyList(page([], '1'));
    for (let i = 0; i < 8; i++) h.client.replyWatch();
    const reset = (): NetworkError => new NetworkError('connection reset', { errno: 'ECONNRESET' });
    await h.start();
    // Two watches that fail at once: the backoff grows.
    h.client.watch_.fail(reset());
    await clock.advance(800);
    h.client.watch_.fail(reset());
    await clock.advance(1600);
    // A watch that works (one event), then fails: the next delay is the first one again.
    h.client.watch_.push('ADDED', widget('a', '2')).fail(reset());
    await clock.advance(800);
    h.client.watch_.fail(reset());
    await clock.advance(1600);
    assert.deepEqual(delays, [800, 1600, 800, 1600]);
    assert.equal(h.client.watchCalls.length, 5);
    assert.equal(h.client.watchCalls[3]!.resourceVersion, '2');
    await h.stop();
  });

  test('an outage is logged as it goes: one WARN once it outlasts the backoff cap, with the last error; one INFO when the watch is back (virtual clock)', async () => {
    const clock = new VirtualClock(1_000_000);
    const lines: string[] = [];
    const logger = { ...noopLogger, info: (m: string) => void lines.push(`INFO ${m}`), warn: (m: string, a?: Record<string, unknown>) => void lines.push(`WARN ${m} lastError=${String(a?.['lastError'])}`) };
    const backoff = new JitteredExponentialBackoff({ clock, jitter: 'none', initialMs: 800, maxMs: 2000 });
    const h = harness({ clock, backoff, logger });
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    const refused = (): NetworkError => new NetworkError('connect ECONNREFUSED 127.0.0.1:6443', { errno: 'ECONNREFUSED' });
    // Down: the open watch breaks, then four reconnects are refused (800, 1600, 2000, 2000 ms apart).
    h.client.watch_.fail(refused());
    await h.settle();
    for (const delay of [800, 1600, 2000, 2000]) {
      h.client.replyWatch(refused());
      await clock.advance(delay);
    }
    // Back: the next reconnect opens.
    h.client.replyWatch();
    await clock.advance(2000);
    const outage = lines.filter((l) => !l.startsWith('INFO waiting before'));
    assert.deepEqual(outage, [
      'WARN cannot reach the API server for 2.4 s (3 attempts); still retrying lastError=connect ECONNREFUSED 127.0.0.1:6443',
      'INFO watch resumed after 8.4 s, 5 attempts',
    ]);
    // A second outage, no longer than the cap: no WARN, one INFO again.
    h.client.watch_.fail(refused());
    h.client.replyWatch();
    await clock.advance(2000);
    assert.deepEqual(lines.filter((l) => !l.startsWith('INFO waiting before')).slice(2), ['INFO watch resumed after 2.0 s, 1 attempt']);
    await h.stop();
  });

  test('a malformed label or field selector throws a SelectorError from the constructor, naming the kind, the option and the token; no request is made', () => {
    const client = new FakeListWatchClient();
    const make = (options: KubernetesBasedInformerOptions): KubernetesBasedInformer => new KubernetesBasedInformer(widgetKind, client, 'default', { logger: noopLogger, ...options });
    assert.throws(
      () => make({ labelSelector: 'app in (web' }),
      (error: unknown) => isSelectorError(error) && /^labelSelector of the Widget informer: /.test(error.message) && error.selector === 'app in (web',
    );
    assert.throws(
      () => make({ fieldSelector: 'metadata.name' }),
      (error: unknown) => isSelectorError(error) && /^fieldSelector of the Widget informer: /.test(error.message) && error.token === 'metadata.name',
    );
    // Well-formed selectors, a field only the server can judge included, are accepted.
    make({ labelSelector: 'app=web,tier notin (db)', fieldSelector: 'spec.nodeName=n1' });
    assert.equal(client.listCalls.length, 0);
  });

  test('a watch request that takes long to fail never connected: it does not reset the backoff', async () => {
    const { h, clock, delays } = backoffHarness();
    h.client.replyList(page([], '1'));
    await h.start();
    for (let attempt = 0; attempt < 3; attempt++) {
      // The request hangs for 20 s (longer than the healthy threshold), then fails.
      await clock.advance(20_000);
      h.client.replyWatch(new NetworkError('timed out', { errno: 'ETIMEDOUT' }));
      await h.settle();
      await clock.advance(delays.at(-1) ?? 0);
    }
    assert.deepEqual(delays, [800, 1600, 3200]);
    await h.stop();
  });

  test('an ERROR event alone is not a working watch: the backoff keeps growing', async () => {
    const { h, clock, delays } = backoffHarness();
    h.client.replyList(page([], '1')).replyWatch().replyWatch().replyWatch();
    await h.start();
    h.client.watch_.error({ type: 'ERROR', error: new ApiError({ status: 500 }) });
    await clock.advance(800);
    h.client.watch_.error({ type: 'ERROR', error: new ApiError({ status: 500 }) });
    await clock.advance(1600);
    assert.deepEqual(delays, [800, 1600]);
    await h.stop();
  });

  test('metrics count restarts by reason, show the current backoff and the time of the last event', async () => {
    const metrics = new InformerMetrics();
    const registry = new Registry();
    for (const c of metrics.collectors()) registry.registerMetric(c);
    const h = harness({ metrics });
    const value = async (name: string, labels: Record<string, string> = {}): Promise<number | undefined> => {
      const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
      const found = (metric?.values as { labels: Record<string, string | number>; value: number }[] | undefined)?.find((v) =>
        Object.entries({ kind: 'Widget', ...labels }).every(([k, want]) => v.labels[k] === want),
      );
      return found?.value;
    };
    h.client.replyList(page([], '1')).replyWatch().replyWatch().replyWatch().replyList(page([], '9')).replyWatch();
    await h.start();
    assert.equal(await value('informer_last_event_timestamp_seconds'), undefined, 'no event yet');
    await h.clock.advance(5000);
    h.client.watch_.push('ADDED', widget('a', '5'));
    await h.settle();
    assert.equal(await value('informer_last_event_timestamp_seconds'), 1005);
    h.client.watch_.close();
    await h.settle();
    h.client.watch_.fail(new NetworkError('reset', { errno: 'ECONNRESET' }));
    await h.settle();
    assert.equal(await value('informer_backoff_seconds'), 1, 'waiting 1 s');
    await h.clock.advance(1000);
    assert.equal(await value('informer_backoff_seconds'), 0, 'no longer waiting');
    h.client.watch_.error({ type: 'ERROR', error: gone() });
    await h.settle();
    assert.equal(await value('informer_restarts_total', { reason: 'clean_end' }), 1);
    assert.equal(await value('informer_restarts_total', { reason: 'error' }), 1);
    assert.equal(await value('informer_restarts_total', { reason: 'expired' }), 1);
    assert.equal(await value('informer_relists_total'), 2);
    await h.stop();
  });

  test('410 on the watch relists and delivers the difference: adds, updates, deletes with the last state, and a recreated object as delete + add', async () => {
    const h = harness();
    const relists: string[] = [];
    h.informer.on('relist', (reason) => relists.push(reason));
    h.client.replyList(page([widget('same', '1'), widget('changed', '2'), widget('vanished', '3'), widget('recreated', '4', { uid: 'old' })], '4')).replyWatch();
    await h.start();
    const storeView = h.informer.store;
    h.client
      .replyList(page([widget('same', '1'), widget('changed', '6'), widget('recreated', '7', { uid: 'new' }), widget('fresh', '8')], '9'))
      .replyWatch();
    h.client.watch_.push('MODIFIED', widget('vanished', '5')).error({ type: 'ERROR', error: gone() });
    await h.settle();
    assert.deepEqual(relists, ['initial', 'expired']);
    assert.deepEqual(h.handler.log().slice(4), [
      'update:vanished@3->5',
      'update:changed@2->6',
      'delete:recreated@4',
      'add:recreated@7',
      'add:fresh@8',
      'delete:vanished@5',
    ]);
    const deleted = h.handler.calls.at(-1)!;
    assert.equal(deleted.object.metadata.resourceVersion, '5', 'the delete carries the last known object');
    assert.equal(h.handler.calls[6]!.object.metadata.uid, 'old');
    assert.deepEqual([...storeView.keys()].sort(), ['default/changed', 'default/fresh', 'default/recreated', 'default/same']);
    assert.equal(h.client.watchCalls[1]!.resourceVersion, '9');
    assert.equal(h.informer.lastSyncResourceVersion(), '9');
    await h.stop();
  });

  test('410 when opening the watch relists', async () => {
    const h = harness();
    h.client.replyList(page([widget('a', '1')], '1')).replyWatch();
    await h.start();
    h.client.replyWatch(gone()).replyList(page([widget('a', '1')], '20')).replyWatch();
    h.client.watch_.push('MODIFIED', widget('a', '2')).close();
    await h.settle();
    assert.equal(h.client.listCalls.length, 2);
    assert.equal(h.client.watchCalls.at(-1)!.resourceVersion, '20');
    assert.deepEqual(h.handler.log(), ['add:a@1', 'update:a@1->2', 'update:a@2->1']);
    await h.stop();
  });

  test('a broken connection backs off, then resumes from the last resourceVersion', async () => {
    const h = harness();
    const watchErrors: unknown[] = [];
    h.informer.on('watchError', (e) => watchErrors.push(e));
    h.client.replyList(page([], '1')).replyWatch().replyWatch();
    await h.start();
    h.client.watch_.push('ADDED', widget('a', '5')).fail(new NetworkError('socket hang up', { errno: 'ECONNRESET' }));
    await h.settle();
    assert.equal(h.client.watchCalls.length, 1, 'waits for the backoff');
    assert.equal(h.states.at(-1)!.phase, 'BackingOff');
    await h.clock.advance(999);
    assert.equal(h.client.watchCalls.length, 1);
    await h.clock.advance(1);
    assert.equal(h.client.watchCalls.length, 2);
    assert.equal(h.client.watchCalls[1]!.resourceVersion, '5');
    assert.equal(h.client.listCalls.length, 1);
    assert.equal(watchErrors.length, 1);
    assert.equal(h.errors[0]!.context.phase, 'watch');
    await h.stop();
  });

  test('429 waits at least Retry-After, even when the backoff is shorter', async () => {
    const h = harness();
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    h.client.replyWatch(new ApiError({ status: 429, retryAfterSeconds: 7 })).replyWatch();
    h.client.watch_.push('ADDED', widget('a', '5')).close();
    await h.settle();
    assert.equal(h.client.watchCalls.length, 2, 'the resumed watch was refused with 429');
    await h.clock.advance(6999);
    assert.equal(h.client.watchCalls.length, 2);
    await h.clock.advance(1);
    assert.equal(h.client.watchCalls.length, 3);
    await h.stop();
  });

  for (const [name, error] of [
    ['401', new ApiError({ status: 401 })],
    ['403', new ApiError({ status: 403 })],
    ['503', new ApiError({ status: 503 })],
  ] as const) {
    test(`a ${name} when opening the watch backs off and keeps trying`, async () => {
      const h = harness();
      h.client.replyList(page([], '1')).replyWatch(error).replyWatch(error).replyWatch();
      await h.start();
      await h.clock.advance(1000);
      await h.clock.advance(1000);
      assert.equal(h.client.watchCalls.length, 3);
      assert.equal(h.errors.length, 2);
      assert.ok(h.errors.every((e) => e.context.phase === 'watch'));
      await h.stop();
    });
  }

  test('a failed list backs off and retries the same page', async () => {
    const h = harness({ pageSize: 1 });
    h.client
      .replyList(page([widget('a', '1')], '2', 'tok'))
      .replyList(new ApiError({ status: 500 }))
      .replyList(page([widget('b', '2')], '2'))
      .replyWatch();
    await h.start();
    assert.equal(h.informer.hasSynced(), false);
    await h.clock.advance(1000);
    assert.deepEqual(
      h.client.listCalls.map((c) => c.continue),
      [undefined, 'tok', 'tok'],
    );
    assert.deepEqual(h.handler.log(), ['add:a@1', 'add:b@2']);
    assert.equal(h.errors[0]!.context.phase, 'list');
    await h.stop();
  });

  test('an expired continue token restarts the list from the first page', async () => {
    const h = harness({ pageSize: 1 });
    h.client
      .replyList(page([widget('a', '1')], '2', 'tok'))
      .replyList(gone())
      .replyList(page([widget('b', '3')], '3'))
      .replyWatch();
    await h.start();
    await h.clock.advance(1000);
    assert.deepEqual(
      h.client.listCalls.map((c) => c.continue),
      [undefined, 'tok', undefined],
    );
    assert.deepEqual(h.handler.log(), ['add:b@3'], 'the half-read first list is discarded');
    await h.stop();
  });

  test('a malformed watch line is reported, then the watch resumes from the last good resourceVersion', async () => {
    const h = harness();
    h.client.replyList(page([], '1')).replyWatch().replyWatch();
    await h.start();
    h.client.watch_.push('ADDED', widget('a', '5')).error({ type: 'ERROR', error: new CodecError('bad line') });
    await h.clock.advance(1000);
    assert.equal(h.client.watchCalls[1]!.resourceVersion, '5');
    assert.ok(h.errors[0]!.error instanceof CodecError);
    await h.stop();
  });

  test('a silent watch is restarted after the inactivity timeout; events keep it alive', async () => {
    const h = harness({ inactivityTimeoutMs: 10_000 });
    h.client.replyList(page([], '1')).replyWatch().replyWatch();
    await h.start();
    await h.clock.advance(9000);
    h.client.watch_.push('BOOKMARK', widget('', '3'));
    await h.clock.advance(9000);
    assert.equal(h.client.watchCalls.length, 1, 'a bookmark within the period keeps the watch');
    await h.clock.advance(11_000);
    assert.equal(h.client.watchCalls.length, 2);
    assert.equal(h.client.watchCalls[1]!.resourceVersion, '3');
    assert.equal(h.client.watches[0]!.stopped, true);
    assert.ok(h.errors[0]!.error instanceof WatchInactivityError);
    assert.equal(h.backoff.calls, 0, 'resumed at once');
    await h.stop();
  });

  test('resync delivers update(obj, obj) with the same reference for every cached object, periodically', async () => {
    const h = harness({ resyncPeriodMs: 60_000 });
    h.client.replyList(page([widget('a', '1'), widget('b', '2')], '2')).replyWatch();
    await h.start();
    await h.clock.advance(60_000);
    const resyncs = h.handler.calls.slice(2);
    assert.equal(resyncs.length, 2);
    for (const call of resyncs) {
      assert.equal(call.type, 'update');
      if (call.type === 'update') assert.equal(call.oldObject, call.object);
    }
    await h.clock.advance(60_000);
    assert.equal(h.handler.calls.length, 6);
    await h.stop();
  });

  test('resync is off by default', async () => {
    const h = harness();
    h.client.replyList(page([widget('a', '1')], '1')).replyWatch();
    await h.start();
    await h.clock.advance(3_600_000);
    assert.deepEqual(h.handler.log(), ['add:a@1']);
    await h.stop();
  });

  test('a resync never runs while an event is being delivered', async () => {
    const h = harness({ resyncPeriodMs: 1000, inactivityTimeoutMs: 0 });
    const log: string[] = [];
    let release: (() => void) | undefined;
    h.informer.addEventHandler({
      add: async (_ctx, o) => {
        log.push(`add ${o.metadata.name} start`);
        if (o.metadata.name === 'slow') await new Promise<void>((r) => (release = r));
        log.push(`add ${o.metadata.name} end`);
      },
      update: async (_ctx, _old, o) => {
        log.push(`resync ${o.metadata.name}`);
      },
      delete: async () => undefined,
    });
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    h.client.watch_.push('ADDED', widget('slow', '2'));
    await h.clock.advance(1000);
    assert.deepEqual(log, ['add slow start']);
    release!();
    await h.settle();
    assert.deepEqual(log, ['add slow start', 'add slow end', 'resync slow']);
    await h.stop();
  });

  test('a transform is applied before caching and delivery', async () => {
    const h = harness({ transform: stripManagedFields });
    const withFields = (name: string, rv: string): KubeObject => {
      const o = widget(name, rv);
      o.metadata.managedFields = [{ manager: 'kubectl', operation: 'Update' }];
      return o;
    };
    h.client.replyList(page([withFields('a', '1')], '1')).replyWatch();
    await h.start();
    h.client.watch_.push('MODIFIED', withFields('a', '2'));
    await h.settle();
    assert.equal(h.informer.store.get('default/a')!.metadata.managedFields, undefined);
    assert.ok(h.handler.calls.every((c) => c.object.metadata.managedFields === undefined));
    await h.stop();
  });

  test('a throwing handler goes to the error handler; other handlers and later events still run', async () => {
    const h = harness();
    const second = new RecordingHandler();
    h.informer.addEventHandler({
      add: () => Promise.reject(new Error('boom')),
      update: () => {
        throw new Error('sync boom');
      },
      delete: async () => undefined,
    });
    h.informer.addEventHandler(second);
    h.client.replyList(page([widget('a', '1')], '1')).replyWatch();
    await h.start();
    h.client.watch_.push('MODIFIED', widget('a', '2'));
    await h.settle();
    assert.deepEqual(second.log(), ['add:a@1', 'update:a@1->2']);
    assert.deepEqual(
      h.errors.map((e) => [e.context.phase, (e.error as Error).message, e.context.object?.metadata.name]),
      [
        ['handler', 'boom', 'a'],
        ['handler', 'sync boom', 'a'],
      ],
    );
    assert.equal(h.states.at(-1)!.phase, 'Watching');
    await h.stop();
  });

  test('a throwing lifecycle listener is reported and does not stop the informer', async () => {
    const h = harness();
    h.informer.on('watchStart', () => {
      throw new Error('listener bug');
    });
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    h.client.watch_.push('ADDED', widget('a', '2'));
    await h.settle();
    assert.deepEqual(h.handler.log(), ['add:a@2']);
    assert.equal((h.errors[0]!.error as Error).message, 'listener bug');
    await h.stop();
  });

  test('each handler call is awaited before the next event is delivered', async () => {
    const h = harness({ inactivityTimeoutMs: 0 });
    const log: string[] = [];
    const gates: (() => void)[] = [];
    h.informer.addEventHandler({
      add: async (_ctx: HandlerContext, o) => {
        log.push(`start ${o.metadata.name}`);
        await new Promise<void>((r) => gates.push(r));
        log.push(`end ${o.metadata.name}`);
      },
      update: async () => undefined,
      delete: async () => undefined,
    });
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    h.client.watch_.push('ADDED', widget('a', '2')).push('ADDED', widget('b', '3'));
    await h.settle();
    assert.deepEqual(log, ['start a']);
    gates.shift()!();
    await h.settle();
    assert.deepEqual(log, ['start a', 'end a', 'start b']);
    gates.shift()!();
    await h.stop();
  });

  test('a list reaches a handler that is done at once (HANDLED) in one go, without a microtask turn per object', async () => {
    const clock = new VirtualClock(1_000_000);
    const client = new FakeListWatchClient();
    const informer = new KubernetesBasedInformer(widgetKind, client, 'default', { clock, logger: noopLogger, inactivityTimeoutMs: 0 });
    const log: string[] = [];
    informer.addEventHandler({
      add: (_ctx: HandlerContext, o) => {
        if (log.length === 0) queueMicrotask(() => log.push('microtask'));
        log.push(`add ${o.metadata.name}`);
        return HANDLED;
      },
      update: () => HANDLED,
      delete: () => HANDLED,
    });
    client.replyList(page([widget('a', '1'), widget('b', '2'), widget('c', '3')], '3')).replyWatch();
    const abort = new AbortController();
    const running = informer.run(abort.signal);
    await clock.advance(0);
    assert.deepEqual(log, ['add a', 'add b', 'add c', 'microtask']);
    abort.abort();
    await running;
  });

  test('a single handler that throws or rejects is reported with the object, and still gets the events that follow', async () => {
    const clock = new VirtualClock(1_000_000);
    const client = new FakeListWatchClient();
    const errors: [string, string | undefined][] = [];
    const informer = new KubernetesBasedInformer(widgetKind, client, 'default', {
      clock,
      logger: noopLogger,
      inactivityTimeoutMs: 0,
      errorHandler: (context, error) => errors.push([(error as Error).message, context.object?.metadata.name]),
    });
    const seen: string[] = [];
    informer.addEventHandler({
      add: (_ctx: HandlerContext, o) => {
        seen.push(`add ${o.metadata.name}`);
        if (o.metadata.name === 'a') throw new Error('sync add');
        return Promise.reject(new Error('async add'));
      },
      update: (_ctx: HandlerContext, _old, o) => {
        seen.push(`update ${o.metadata.name}`);
        throw new Error('sync update');
      },
      delete: (_ctx: HandlerContext, o) => {
        seen.push(`delete ${o.metadata.name}`);
        return HANDLED;
      },
    });
    client.replyList(page([widget('a', '1'), widget('b', '2')], '2')).replyWatch();
    const abort = new AbortController();
    const running = informer.run(abort.signal);
    await clock.advance(0);
    client.watch_.push('MODIFIED', widget('a', '3')).push('ADDED', widget('c', '4')).push('DELETED', widget('b', '5'));
    await clock.advance(0);
    assert.deepEqual(seen, ['add a', 'add b', 'update a', 'add c', 'delete b']);
    assert.deepEqual(errors, [
      ['sync add', 'a'],
      ['async add', 'b'],
      ['sync update', 'a'],
      ['async add', 'c'],
    ]);
    assert.equal(informer.store.size, 2);
    abort.abort();
    await running;
  });

  test('a handler added while running receives the events that follow', async () => {
    const h = harness();
    h.client.replyList(page([widget('a', '1')], '1')).replyWatch();
    await h.start();
    const late = new RecordingHandler();
    h.informer.addEventHandler(late);
    h.client.watch_.push('ADDED', widget('b', '2'));
    await h.settle();
    assert.deepEqual(late.log(), ['add:b@2']);
    await h.stop();
  });

  test('waitForSync resolves after the initial list, and rejects when aborted first', async () => {
    const h = harness();
    const aborted = new AbortController();
    const early = h.informer.waitForSync(aborted.signal);
    aborted.abort(new Error('gave up'));
    await assert.rejects(early, /gave up/);
    const waiting = h.informer.waitForSync();
    h.client.replyList(page([], '1')).replyWatch();
    await h.start();
    await waiting;
    await h.informer.waitForSync();
    await h.stop();
  });

  test('run resolves when the signal aborts, in every phase, and cannot run twice at once', async () => {
    const h = harness();
    await h.start();
    await assert.rejects(h.informer.run(new AbortController().signal), /already running/);
    await h.stop();
    assert.equal(h.states.at(-1)!.phase, 'Stopped');

    const b = harness();
    b.client.replyList(page([], '1')).replyWatch(new NetworkError('down'));
    await b.start();
    assert.equal(b.states.at(-1)!.phase, 'BackingOff');
    await b.stop();
  });

  test('constructor arguments are validated', () => {
    const client = new FakeListWatchClient();
    assert.throws(() => new KubernetesBasedInformer(widgetKind, undefined as never, ''), /client cannot be nil/);
    assert.throws(() => new KubernetesBasedInformer(widgetKind, client, '', { pageSize: 0 }), /pageSize/);
    assert.throws(() => new KubernetesBasedInformer({ ...widgetKind, scope: 'Cluster' }, client, 'ns'), /cluster-scoped/);
    assert.equal(new KubernetesBasedInformer(widgetKind, client, '').schema(), widgetKind);
  });
});
