import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { VirtualClock } from '../clock.js';
import { InformerController } from '../controller/informer-controller.js';
import { FakeListWatchClient, FakePatchClient, page, widget as kubeWidget, widgetKind } from '../testing/informer-fakes.test-helper.js';
import { KubernetesBasedInformer } from '../informer/kubernetes-based-informer.js';
import { noopLogger } from './logger.js';
import { newOpinionatedWatcher } from '../handlers/opinionated-watcher.js';
import { ReconcileAction } from '../handlers/actions.js';
import { FakeInformer, waitFor, widget } from '../testing/fake-informer.js';
import { RecordingTracer, TestContextManager } from '../testing/tracing-fakes.test-helper.js';
import { TRACER_NAME, endSpan, getTracer, objectSpanAttributes, setTracer, startObjectSpan } from './tracing.js';
import { runUntilStopped } from '../testing/run-until-stopped.js';

const original = getTracer();
before(() => context.setGlobalContextManager(new TestContextManager()));
after(() => {
  setTracer(original);
  context.disable();
});

/** Runs `body` with a new RecordingTracer set as the package's tracer, then restores the original. */
async function withRecordingTracer(body: (tracer: RecordingTracer) => Promise<void>): Promise<void> {
  const tracer = new RecordingTracer();
  setTracer(tracer);
  try {
    await body(tracer);
  } finally {
    setTracer(original);
  }
}

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
      const stop = runUntilStopped(c);
      inf.add(widget('a', { namespace: 'ns' }));
      await c.whenIdle();
      inf.update(widget('a', { namespace: 'ns' }), widget('a', { namespace: 'ns', rv: '2' }));
      await c.whenIdle();
      await clock.runNext();
      await c.whenIdle();
      inf.delete(widget('a', { namespace: 'ns', rv: '2' }));
      await c.whenIdle();
      await stop();
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

  test('OpinionatedWatcher traces add and update in its own spans, children of the caller, failures included', () =>
    withRecordingTracer(async (tracer) => {
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
    }),
  );

  test('OpinionatedWatcher runs addFunc, syncFunc, updateFunc and deleteFunc inside its span, so user spans are its children', () =>
    withRecordingTracer(async (tracer) => {
      const client = new FakePatchClient();
      const watcher = newOpinionatedWatcher(widgetKind, client);
      watcher.addFunc = async (_ctx, o) => userSpan(`user-add-${o.metadata.name}`);
      watcher.syncFunc = async (_ctx, o) => userSpan(`user-sync-${o.metadata.name}`);
      watcher.updateFunc = async (_ctx, _old, o) => userSpan(`user-update-${o.metadata.name}`);
      watcher.deleteFunc = async (_ctx, o) => userSpan(`user-delete-${o.metadata.name}`);
      const ctx = { signal: new AbortController().signal, logger: noopLogger };
      const finalizer = watcher.finalizer;
      const fresh = client.put(kubeWidget('a', '1', { generation: 1 }));
      const known = client.put(kubeWidget('b', '1', { generation: 1, finalizers: [finalizer] }));
      const caller = tracer.startSpan('caller');
      await context.with(trace.setSpan(context.active(), caller), async () => {
        await watcher.add(ctx, fresh);
        await watcher.add(ctx, known);
        await watcher.update(ctx, known, { ...known, metadata: { ...known.metadata, generation: 2 } });
        await watcher.update(ctx, known, { ...known, metadata: { ...known.metadata, generation: 3, deletionTimestamp: '2024-01-01T00:00:00Z' } });
        // An object gone without our finalizer: upstream has no span for deletes, so the caller's span is the parent.
        await watcher.delete(ctx, kubeWidget('c', '1'));
      });
      caller.end();
      assert.deepEqual(tracer.tree(), [
        ['caller', undefined],
        ['OpinionatedWatcher-add', 'caller'],
        ['user-add-a', 'OpinionatedWatcher-add'],
        ['OpinionatedWatcher-add', 'caller'],
        ['user-sync-b', 'OpinionatedWatcher-add'],
        ['OpinionatedWatcher-update', 'caller'],
        ['user-update-b', 'OpinionatedWatcher-update'],
        ['OpinionatedWatcher-update', 'caller'],
        ['user-delete-b', 'OpinionatedWatcher-update'],
        ['user-delete-c', 'caller'],
      ]);
      assert.ok(tracer.spans.every((s) => s.ended));
    }),
  );

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
