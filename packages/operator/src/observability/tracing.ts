/**
 * Tracing through @opentelemetry/api. Without an installed tracer provider every span is a
 * non-recording no-op: {@link tracingEnabled} tells the hot paths so, and they create no span at all;
 * otherwise attributes are computed only for recording spans, and handlers run in the span's
 * context only when it records.
 */
import { ProxyTracer, ProxyTracerProvider, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { parseApiVersion } from '@kubeloop/resource';
import type { KubeObject } from '@kubeloop/resource';

/** The instrumentation name of the default tracer (grafana-app-sdk's). */
export const TRACER_NAME = 'sdk-operator';

/** Span names used by this package (grafana-app-sdk's). */
export const SpanNames = {
  controllerEventAdd: 'controller-event-add',
  controllerEventUpdate: 'controller-event-update',
  controllerEventDelete: 'controller-event-delete',
  controllerEventReconcile: 'controller-event-reconcile',
  controllerRetry: 'controller-retry',
  informerList: 'informer-list',
  informerWatch: 'informer-watch',
  informerEventAdd: 'informer-event-add',
  informerEventUpdate: 'informer-event-update',
  informerEventDelete: 'informer-event-delete',
  opinionatedWatcherAdd: 'OpinionatedWatcher-add',
  opinionatedWatcherUpdate: 'OpinionatedWatcher-update',
} as const;

let tracer: Tracer | undefined;

/** Sets the tracer used for the spans of this package (grafana-app-sdk `SetTracer`). */
export function setTracer(t: Tracer): void {
  tracer = t;
}

/**
 * The tracer set by {@link setTracer}, or (created on first use) the global provider's tracer
 * named "sdk-operator". The global one follows a provider registered later.
 */
export function getTracer(): Tracer {
  return (tracer ??= trace.getTracer(TRACER_NAME));
}

/** The provider a ProxyTracerProvider delegates to while none is registered (the API's no-op one). */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * False when spans would certainly be no-ops: the tracer is the global API's (not one given to
 * {@link setTracer}) and no tracer provider is registered. Cheap enough to ask per event, and it
 * follows a provider registered (or `trace.disable()`) later.
 */
export function tracingEnabled(): boolean {
  const t = getTracer();
  if (!(t instanceof ProxyTracer)) return true;
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_PROVIDER);
}

/** The span attributes of an object: `kind.name`, `kind.group`, `kind.version`, `namespace`, `name`. */
export function objectSpanAttributes(object: KubeObject): Attributes {
  const { group, version } = parseApiVersion(object.apiVersion ?? '');
  return {
    'kind.name': object.kind,
    'kind.group': group,
    'kind.version': version,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name,
  };
}

/**
 * Starts a span about `object`, a child of the span of `parent` (default: the active context);
 * attributes are only computed when the span records.
 */
export function startObjectSpan(name: string, object: KubeObject, parent?: Context): Span {
  const span = getTracer().startSpan(name, undefined, parent);
  if (span.isRecording()) span.setAttributes(objectSpanAttributes(object));
  return span;
}

/** Ends `span`, recording `error` (if any) as an exception and an ERROR status. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) recordSpanError(span, error);
  span.end();
}

/** Records `error` on `span` as an exception and an ERROR status, without ending it. */
export function recordSpanError(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const message = errorMessage(error);
  span.recordException(error instanceof Error ? error : message);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? 'unknown error';
  } catch {
    return 'unknown error';
  }
}

/** Runs `fn` with `span` as the active span when it records (so user spans nest under it), else plainly. */
export function runInSpan<R>(span: Span, fn: () => R): R {
  if (!span.isRecording()) return fn();
  return context.with(trace.setSpan(context.active(), span), fn);
}
