import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanStatusCode } from '@opentelemetry/api';
import type { Attributes, Span, SpanContext, SpanStatus } from '@opentelemetry/api';
import { VirtualClock } from './clock.js';
import { InformerController } from './informer-controller.js';
import { noopLogger } from './logger.js';
import { FakeInformer, widget } from './testing/fake-informer.js';
import { endSpan, getTracer, objectSpanAttributes, setTracer, startObjectSpan } from './tracing.js';

/** A span that records what is done to it (unit-test double of one class). */
class RecordedSpan implements Span {
  attributes: Attributes = {};
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
  startSpan(name: string): Span {
    const s = new RecordedSpan(name);
    this.spans.push(s);
    return s;
  }
  startActiveSpan(): never {
    throw new Error('not used');
  }
}

const original = getTracer();
after(() => setTracer(original));

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

  test('the controller emits its spans with object attributes, and failures set the error status', async () => {
    const tracer = new RecordingTracer();
    setTracer(tracer);
    try {
      const clock = new VirtualClock();
      const c = new InformerController({ clock, logger: noopLogger, errorHandler: () => {}, retryPolicy: () => [true, 100] });
      const inf = new FakeInformer();
      c.addInformer(inf, 'Widget');
      let fail = true;
      c.addWatcher(
        {
          add: async () => {
            if (fail) {
              fail = false;
              throw new Error('watcher failed');
            }
          },
          update: async () => {},
          delete: async () => {},
        },
        'Widget',
      );
      c.addReconciler({ reconcile: async () => ({}) }, 'Widget');
      const abort = new AbortController();
      const running = c.run(abort.signal);
      inf.add(widget('a', { namespace: 'ns' }));
      inf.update(widget('a', { namespace: 'ns' }), widget('a', { namespace: 'ns', rv: '2' }));
      await c.whenIdle();
      await clock.runNext();
      await c.whenIdle();
      inf.delete(widget('a', { namespace: 'ns', rv: '2' }));
      await c.whenIdle();
      abort.abort();
      await running;
      assert.deepEqual(
        tracer.spans.map((s) => s.name),
        [
          'controller-event-add',
          'controller-event-reconcile',
          'controller-event-update',
          'controller-event-reconcile',
          'controller-retry',
          'controller-event-delete',
          'controller-event-reconcile',
        ],
      );
      const [add] = tracer.spans;
      assert.equal(add!.status.code, SpanStatusCode.ERROR);
      assert.equal(add!.exceptions.length, 1);
      assert.equal(add!.attributes.name, 'a');
      assert.equal(add!.attributes.namespace, 'ns');
      assert.equal(add!.attributes['kind.group'], 'test.kubeloop.dev');
      assert.ok(tracer.spans.every((s) => s.ended));
      assert.equal(tracer.spans[4]!.status.code, SpanStatusCode.UNSET);
    } finally {
      setTracer(original);
    }
  });
});
