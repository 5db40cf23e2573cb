import { register } from 'node:module';
import type { TracingConfig } from './config/tracing.js';
import { logTraceFields } from './shared/logger.js';

/** The packages whose spans the service exports: Node's HTTP server (and client), Express, GraphQL, pg. */
const INSTRUMENTED = ['express', 'graphql', 'pg', 'pg-pool'];

/** Probes of the orchestrator: a trace per probe would bury the requests. */
const UNTRACED = new Set(['/healthz', '/readyz']);

export interface Tracing {
  /** Exports the spans still buffered, then stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK. Must run before the server's modules are imported: an instrumentation
 * patches a package as it loads. The require hooks reach node:http, pg and graphql, but Express,
 * imported by this ESM app, is only reached through an ESM loader hook (without it: no route in the
 * HTTP span's name): import-in-the-middle's, which @opentelemetry/instrumentation hooks into, limited
 * to the instrumented packages so that the other modules load untouched. Main imports this module
 * only when tracing is on: otherwise no OpenTelemetry module is loaded at all.
 *
 * The exporter, the sampler, the resource and the propagator (W3C trace context: an incoming
 * `traceparent` continues its trace) come from the standard OTEL_* variables, read by the SDK.
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  // In-thread (module.registerHooks) where Node supports it: the off-thread loader of module.register
  // sends every module the service loads through a message round trip, which made start-up ~1 s slower.
  const hooks = await import('import-in-the-middle/register-hooks.mjs');
  if (hooks.supportsSyncHooks()) hooks.register({ include: INSTRUMENTED });
  else register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: INSTRUMENTED } });
  const [{ NodeSDK }, { trace }, { HttpInstrumentation }, express, { GraphQLInstrumentation }, { PgInstrumentation }, exporter] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/api'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-graphql'),
    import('@opentelemetry/instrumentation-pg'),
    config.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const sdk = new NodeSDK({
    serviceName: config.defaultServiceName,
    traceExporter: new exporter.OTLPTraceExporter(),
    // Traces only: metrics have their own Prometheus endpoint, logs go to standard output.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED.has(request.url?.split('?')[0] ?? '') }),
      // Only for the route's template in the HTTP span's name: a span per router, middleware and handler
      // layer would double the spans of a REST request (and its cost) and tell little more.
      new express.ExpressInstrumentation({ ignoreLayersType: Object.values(express.ExpressLayerType) }),
      // parse, validate and execute of each operation; a span per resolved field would cost more than the field.
      new GraphQLInstrumentation({ ignoreResolveSpans: true }),
      // Queries inside a traced request (the janitor's background sweeps start no traces of their own),
      // without a span for each borrowing of a pooled connection.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    ],
  });
  sdk.start();
  logTraceFields(() => {
    const context = trace.getActiveSpan()?.spanContext();
    return context ? { traceId: context.traceId, spanId: context.spanId } : undefined;
  });
  return { shutdown: () => sdk.shutdown() };
}
