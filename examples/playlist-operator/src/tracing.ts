/**
 * Trace export for the demo with the OpenTelemetry SDK. @kubeloop/operator only uses
 * @opentelemetry/api; whoever runs the process decides where spans go. Here: to an OTLP/HTTP
 * endpoint when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set,
 * and nowhere otherwise (the API's no-op tracer then costs next to nothing).
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** What {@link setupTracing} did. */
export interface Tracing {
  /** Where spans are sent, or undefined when tracing is off. */
  endpoint: string | undefined;
  /** Flushes pending spans and stops the exporter; call before exiting. */
  shutdown(): Promise<void>;
}

/**
 * Installs a global tracer provider with an OTLP/HTTP exporter if the standard environment
 * variables ask for one. `OTEL_SERVICE_NAME` overrides `serviceName`; every other `OTEL_*`
 * variable (headers, timeouts) is read by the exporter itself.
 */
export function setupTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_TRACES_EXPORTER === 'none' || env.OTEL_SDK_DISABLED === 'true') {
    return { endpoint: undefined, shutdown: async () => undefined };
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // Global registration: the operator's lazy tracer ("sdk-operator") picks it up.
  provider.register();
  return {
    endpoint,
    shutdown: async () => {
      try {
        await provider.shutdown();
      } catch {
        // An unreachable collector must not turn a clean shutdown into a failure.
      }
    },
  };
}
