import { z } from 'zod';

/**
 * The standard OpenTelemetry variables this service checks at start-up. The SDK reads them itself
 * (and the others of the specification: OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*, OTEL_PROPAGATORS, …);
 * they are parsed here as well so that a bad value is reported with the rest of the configuration
 * instead of being ignored by the SDK with a diagnostic nobody reads.
 */
export const TRACING_ENV = {
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none'], { message: 'must be otlp or none' }).optional(),
  OTEL_SDK_DISABLED: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['true', 'false'], { message: 'must be true or false' }))
    .transform((v) => v === 'true')
    .optional(),
  OTEL_SERVICE_NAME: z.string().optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'], {
      message: 'must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio',
    })
    .optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number({ message: 'must be a number' }).min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
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
