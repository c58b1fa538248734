import { AsyncLocalStorage } from 'node:async_hooks';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT_CONTEXT, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes, Context, ContextManager, Span, SpanContext, SpanOptions, SpanStatus } from '@opentelemetry/api';
import { VirtualClock } from '../clock.js';
import { InformerController } from '../controller/informer-controller.js';
import { FakeListWatchClient, FakePatchClient, page, widget as kubeWidget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import { KubernetesBasedInformer } from '../informer/kubernetes-based-informer.js';
import { noopLogger } from './logger.js';
import { newOpinionatedWatcher } from '../handlers/opinionated-watcher.js';
import { ReconcileAction } from '../handlers/actions.js';
import { FakeInformer, waitFor, widget } from '../testing/fake-informer.js';
import { TRACER_NAME, endSpan, getTracer, objectSpanAttributes, setTracer, startObjectSpan } from './tracing.js';

/** The context propagation an OpenTelemetry SDK installs (AsyncLocalStorage), as a test double. */
class TestContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

/** A span that records what is done to it (unit-test double of one class). */
class RecordedSpan implements Span {
  attributes: Attributes = {};
  /** The span this one was started under (from the given or the active context). */
  parent: RecordedSpan | undefined;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  exceptions: unknown[] = [];
  ended = false;
  constructor(readonly name: string) {}
  spanContext(): SpanContext {
    return { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 1 };
  }
  setAttribute(key: string, value: string): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {
    this.ended = true;
  }
  isRecording(): boolean {
    return true;
  }
  recordException(exception: unknown): void {
    this.exceptions.push(exception);
  }
}

class RecordingTracer {
  spans: RecordedSpan[] = [];
  startSpan(name: string, options?: SpanOptions, ctx?: Context): Span {
    const s = new RecordedSpan(name);
    s.parent = trace.getSpan(ctx ?? context.active()) as RecordedSpan | undefined;
    if (options?.attributes !== undefined) s.setAttributes(options.attributes);
    this.spans.push(s);
    return s;
  }
  /** `[name, parent name]` of every span, in start order. */
  tree(): [string, string | undefined][] {
    return this.spans.map((s) => [s.name, s.parent?.name]);
  }
  startActiveSpan(): never {
    throw new Error('not used');
  }
}

const original = getTracer();
before(() => context.setGlobalContextManager(new TestContextManager()));
after(() => {
  setTracer(original);
  context.disable();
});

/** A span of user code, started where the handler runs (its parent tells which context that was). */
function userSpan(name: string): void {
  getTracer().startSpan(name).end();
}

describe('tracing', () => {
  test('without a tracer provider spans do not record, so attributes are never computed', () => {
    const span = startObjectSpan('x', widget('a'));
    assert.equal(span.isRecording(), false);
    endSpan(span, new Error('ignored'));
  });

  test('objectSpanAttributes names kind, group, version, namespace and name', () => {
    assert.deepEqual(objectSpanAttributes(widget('a', { namespace: 'ns' })), {
      'kind.name': 'Widget',
      'kind.group': 'test.kubeloop.dev',
      'kind.version': 'v1',
      namespace: 'ns',
      name: 'a',
    });
  });

  test('one controller-event span per event: watchers run in it, reconcile spans are its children', async () => {
    const tracer = new RecordingTracer();
    setTracer(tracer);
    try {
      const clock = new VirtualClock();
      const c = new InformerController({ clock, logger: noopLogger, errorHandler: () => {}, retryPolicy: () => [true, 100] });
      const inf = new FakeInformer();
      c.addInformer(inf, 'Widget');
      let fail = true;
      const watch = async (): Promise<void> => {
        userSpan('watcher');
        if (fail) {
          fail = false;
          throw new Error('watcher failed');
        }
      };
      c.addWatcher({ add: watch, update: watch, delete: watch }, 'Widget');
      c.addWatcher({ add: async () => userSpan('second-watcher'), update: async () => {}, delete: async () => {} }, 'Widget');
      c.addReconciler(
        {
          reconcile: async () => {
            userSpan('reconciler');
            return {};
          },
        },
        'Widget',
      );
      const abort = new AbortController();
      const running = c.run(abort.signal);
      inf.add(widget('a', { namespace: 'ns' }));
      await c.whenIdle();
      inf.update(widget('a', { namespace: 'ns' }), widget('a', { namespace: 'ns', rv: '2' }));
      await c.whenIdle();
      await clock.runNext();
      await c.whenIdle();
      inf.delete(widget('a', { namespace: 'ns', rv: '2' }));
      await c.whenIdle();
      abort.abort();
      await running;
      assert.deepEqual(tracer.tree(), [
        ['controller-event-add', undefined],
        ['watcher', 'controller-event-add'],
        ['second-watcher', 'controller-event-add'],
        ['controller-event-reconcile', 'controller-event-add'],
        ['reconciler', 'controller-event-reconcile'],
        ['controller-event-update', undefined],
        ['watcher', 'controller-event-update'],
        ['controller-event-reconcile', 'controller-event-update'],
        ['reconciler', 'controller-event-reconcile'],
        ['controller-retry', undefined],
        ['watcher', 'controller-retry'],
        ['controller-event-delete', undefined],
        ['watcher', 'controller-event-delete'],
        ['controller-event-reconcile', 'controller-event-delete'],
        ['reconciler', 'controller-event-reconcile'],
      ]);
      const [add] = tracer.spans;
      assert.equal(add!.status.code, SpanStatusCode.ERROR, 'a failing watcher sets the error status of its event span');
      assert.equal(add!.exceptions.length, 1);
      assert.equal(add!.attributes.name, 'a');
      assert.equal(add!.attributes.namespace, 'ns');
      assert.equal(add!.attributes['kind.group'], 'test.kubeloop.dev');
      assert.ok(tracer.spans.every((s) => s.ended));
      assert.equal(tracer.spans.find((s) => s.name === 'controller-retry')!.status.code, SpanStatusCode.UNSET);
      assert.equal(tracer.spans.find((s) => s.name === 'controller-event-update')!.status.code, SpanStatusCode.UNSET);
    } finally {
      setTracer(original);
    }
  });

  test('the informer traces its list and watch with the kind and namespace, and every object of a list or watch', async () => {
    const tracer = new RecordingTracer();
    setTracer(tracer);
    const abort = new AbortController();
    try {
      const client = new FakeListWatchClient();
      client.replyList(page([kubeWidget('listed', '5')], '5')).replyWatch();
      const informer = new KubernetesBasedInformer(widgetKind, client, 'default', { clock: new VirtualClock(), errorHandler: () => {} });
      const controller = new InformerController({ clock: new VirtualClock(), logger: noopLogger, errorHandler: () => {} });
      controller.addInformer(informer, 'widgets');
      controller.addReconciler({ reconcile: async () => ({}) }, 'widgets');
      const running = controller.run(abort.signal);
      await informer.waitForSync(AbortSignal.timeout(5000));
      await waitFor(() => client.watches.length === 1);
      client.watch_.push('ADDED', kubeWidget('watched', '6'));
      await waitFor(() => tracer.spans.filter((s) => s.name === 'controller-event-reconcile').length === 2);
      abort.abort();
      await running;
      const kindAttributes = { 'kind.name': 'Widget', 'kind.group': 'example.com', 'kind.version': 'v1', namespace: 'default' };
      assert.deepEqual(tracer.spans.find((s) => s.name === 'informer-list')!.attributes, kindAttributes);
      assert.deepEqual(tracer.spans.find((s) => s.name === 'informer-watch')!.attributes, kindAttributes);
      const adds = tracer.spans.filter((s) => s.name === 'informer-event-add');
      assert.deepEqual(
        adds.map((s) => s.attributes.name),
        ['listed', 'watched'],
        'the object of the initial list is traced too',
      );
      assert.deepEqual(adds[0]!.attributes, { ...kindAttributes, name: 'listed' });
      // The controller's event span continues the informer's trace, although it runs after the informer span ended.
      assert.deepEqual(
        tracer.tree().filter(([name]) => name.startsWith('controller-event-add')),
        [
          ['controller-event-add', 'informer-event-add'],
          ['controller-event-add', 'informer-event-add'],
        ],
      );
    } finally {
      abort.abort();
      setTracer(original);
    }
  });

  test('a resync gets an informer-event-update span, parent of the controller span of the Resynced reconcile', async () => {
    const tracer = new RecordingTracer();
    setTracer(tracer);
    const abort = new AbortController();
    try {
      const clock = new VirtualClock();
      const client = new FakeListWatchClient();
      client.replyList(page([kubeWidget('cached', '5')], '5')).replyWatch();
      const informer = new KubernetesBasedInformer(widgetKind, client, 'default', { clock, resyncPeriodMs: 1000, errorHandler: () => {} });
      const controller = new InformerController({ clock, logger: noopLogger, errorHandler: () => {} });
      controller.addInformer(informer, 'widgets');
      const actions: ReconcileAction[] = [];
      controller.addReconciler({ reconcile: async (_ctx, request) => (actions.push(request.action), {}) }, 'widgets');
      const running = controller.run(abort.signal);
      await informer.waitForSync(AbortSignal.timeout(5000));
      await controller.whenIdle();
      await clock.advance(1000);
      await waitFor(() => actions.length === 2);
      await controller.whenIdle();
      abort.abort();
      await running;
      assert.deepEqual(actions, [ReconcileAction.Created, ReconcileAction.Resynced]);
      const updates = tracer.spans.filter((s) => s.name === 'informer-event-update');
      assert.equal(updates.length, 1, 'the resync of the one cached object');
      assert.deepEqual(updates[0]!.attributes, { 'kind.name': 'Widget', 'kind.group': 'example.com', 'kind.version': 'v1', namespace: 'default', name: 'cached' });
      assert.ok(updates[0]!.ended);
      assert.deepEqual(
        tracer.tree().filter(([name]) => name === 'controller-event-update'),
        [['controller-event-update', 'informer-event-update']],
      );
    } finally {
      abort.abort();
      setTracer(original);
    }
  });

  test('OpinionatedWatcher traces add and update in its own spans, children of the caller, failures included', async () => {
    const tracer = new RecordingTracer();
    setTracer(tracer);
    try {
      const client = new FakePatchClient();
      const object = client.put(kubeWidget('a', '1', { generation: 1, namespace: 'ns' }));
      const watcher = newOpinionatedWatcher(widgetKind, client);
      watcher.updateFunc = async () => {
        throw new Error('update failed');
      };
      const ctx = { signal: new AbortController().signal, logger: noopLogger };
      const caller = tracer.startSpan('caller');
      await context.with(trace.setSpan(context.active(), caller), async () => {
        await watcher.add(ctx, object);
        const withFinalizer = client.objects.get('ns/a')!;
        const changed = { ...withFinalizer, metadata: { ...withFinalizer.metadata, generation: 2 } };
        await assert.rejects(watcher.update(ctx, withFinalizer, changed), /update failed/);
      });
      assert.deepEqual(tracer.tree(), [
        ['caller', undefined],
        ['OpinionatedWatcher-add', 'caller'],
        ['OpinionatedWatcher-update', 'caller'],
      ]);
      const [, add, update] = tracer.spans;
      assert.deepEqual(add!.attributes, { 'kind.name': 'Widget', 'kind.group': 'example.com', 'kind.version': 'v1', namespace: 'ns', name: 'a' });
      assert.equal(add!.status.code, SpanStatusCode.UNSET);
      assert.equal(update!.status.code, SpanStatusCode.ERROR);
      assert.equal(update!.status.message, 'update failed');
      assert.ok(add!.ended && update!.ended);
    } finally {
      setTracer(original);
    }
  });
  // Last: once a provider was registered, the default ProxyTracer keeps its delegate for the rest of the process.
  test('the default tracer is the global provider\'s tracer named sdk-operator', () => {
    assert.equal(TRACER_NAME, 'sdk-operator');
    const requested: string[] = [];
    trace.setGlobalTracerProvider({
      getTracer: (name: string) => {
        requested.push(name);
        return new RecordingTracer();
      },
    });
    try {
      setTracer(original);
      getTracer().startSpan('probe').end();
      assert.deepEqual(requested, ['sdk-operator']);
    } finally {
      trace.disable();
    }
  });
});
