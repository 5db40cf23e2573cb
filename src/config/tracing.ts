import { z } from 'zod';
import { configDocs } from './describe.js';

/**
 * The standard OpenTelemetry variables this service checks at start-up. The SDK reads them itself
 * (and the others of the specification: OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*, OTEL_PROPAGATORS, …);
 * they are parsed here as well so that a bad value is reported with the rest of the configuration
 * instead of being ignored by the SDK with a diagnostic nobody reads.
 */
export const TRACING_ENV = {
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional()
    .register(configDocs, { feature: 'traces', type: 'URL', values: '`http://` or `https://`', description: 'An OTLP/HTTP collector (`http://jaeger:4318`), which gets `/v1/traces` appended: traces are exported when this or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (see [Traces](production.md#traces)); unset, neither the SDK nor an instrumentation is loaded.' }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional()
    .register(configDocs, { feature: 'traces', type: 'URL', values: '`http://` or `https://`', description: 'The collector\'s traces endpoint, used as given; traces are exported when this or `OTEL_EXPORTER_OTLP_ENDPOINT` is set.' }),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.string().optional()
    .register(configDocs, { feature: 'traces', type: 'enum', default: '`http/protobuf`', values: '`http/protobuf`, `http/json`', description: '`http/protobuf` or `http/json`; `grpc` is refused at start (its exporter is not part of the service: use port 4318).' }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.string().optional()
    .register(configDocs, { feature: 'traces', type: 'enum', default: '`OTEL_EXPORTER_OTLP_PROTOCOL`', values: '`http/protobuf`, `http/json`', description: 'The same for traces alone; it wins over `OTEL_EXPORTER_OTLP_PROTOCOL`.' }),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none'], { message: 'must be otlp or none' }).optional()
    .register(configDocs, { feature: 'traces', default: '`otlp`', description: '`none` turns tracing off with an endpoint set.' }),
  OTEL_SDK_DISABLED: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['true', 'false'], { message: 'must be true or false' }))
    .transform((v) => v === 'true')
    .optional()
    .register(configDocs, { feature: 'traces', type: 'boolean', default: '`false`', values: '`true` or `false` (any case)', description: '`true` turns tracing off with an endpoint set. The SDK\'s other standard variables apply too (`OTEL_BSP_*` batching, `OTEL_PROPAGATORS`, `OTEL_EXPORTER_OTLP_HEADERS`, …).' }),
  OTEL_SERVICE_NAME: z.string().optional()
    .register(configDocs, { feature: 'traces', default: '`meeting-accounts`', description: 'The traces\' `service.name`.' }),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional()
    .register(configDocs, { feature: 'traces', description: 'Other resource attributes of the traces (`deployment.environment=prod,…`); a `service.name` here counts as `OTEL_SERVICE_NAME`.' }),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'], {
      message: 'must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio',
    })
    .optional()
    .register(configDocs, { feature: 'traces', default: '`parentbased_always_on`', description: 'The sampler; the ratio ones take `OTEL_TRACES_SAMPLER_ARG`.' }),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number({ message: 'must be a number' }).min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional()
    .register(configDocs, { feature: 'traces', description: 'The sampling ratio (0-1) of `traceidratio` and `parentbased_traceidratio`.' }),
};

type TracingEnvironment = z.infer<z.ZodObject<typeof TRACING_ENV>>;

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

export interface TracingConfig {
  /** OTLP over HTTP, as protobuf (the specification's default) or JSON; the endpoint is the SDK's to read. */
  protocol: (typeof PROTOCOLS)[number];
  /** `service.name` to set, when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
  defaultServiceName?: string;
}

/**
 * Tracing is on when an OTLP endpoint is set, unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 * Bad values are added to `problems`.
 */
export function parseTracing(e: TracingEnvironment, problems: string[]): TracingConfig | undefined {
  const protocolKey = e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (e[protocolKey] ?? 'http/protobuf').trim();
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    problems.push(
      protocol === 'grpc'
        ? `${protocolKey}: grpc is not supported (its exporter is not part of this service): use http/protobuf (the collector's port 4318) or http/json`
        : `${protocolKey}: must be http/protobuf or http/json`,
    );
    return undefined;
  }
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const named = e.OTEL_SERVICE_NAME !== undefined || /(^|,)\s*service\.name\s*=/.test(e.OTEL_RESOURCE_ATTRIBUTES ?? '');
  return { protocol: protocol as TracingConfig['protocol'], defaultServiceName: named ? undefined : 'meeting-accounts' };
}
