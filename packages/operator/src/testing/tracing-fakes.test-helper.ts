/**
 * Test doubles for tracing tests: the AsyncLocalStorage context propagation an OpenTelemetry SDK
 * installs, and a tracer that records every span with the span it was started under.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes, Context, ContextManager, Span, SpanContext, SpanOptions, SpanStatus } from '@opentelemetry/api';

/** The context propagation an OpenTelemetry SDK installs (AsyncLocalStorage), as a test double. */
export class TestContextManager implements ContextManager {
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
export class RecordedSpan implements Span {
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

export class RecordingTracer {
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
