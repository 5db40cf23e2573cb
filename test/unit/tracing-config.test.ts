import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/config.js';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('tracing configuration (the standard OTEL_* variables)', () => {
  it('is off unless an OTLP endpoint is set, or when the SDK is disabled or the exporter is none', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'accounts', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toBeUndefined();
    expect(loadConfig(endpoint).tracing).toEqual({ protocol: 'http/protobuf', defaultServiceName: 'meeting-accounts' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' }).tracing?.protocol).toBe('http/protobuf');
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }).tracing).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'false' }).tracing).toBeDefined();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toBeDefined();
  });

  it('exports http/protobuf by default or http/json, the traces protocol before the general one, and refuses grpc saying why', () => {
    expect(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing?.protocol).toBe('http/json');
    expect(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).tracing?.protocol).toBe('http/json');
    expect(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported .*use http\/protobuf .*4318.* or http\/json/,
    );
    expect(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: grpc is not supported/);
    expect(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json/);
    // Refused even while tracing is off, so that setting the endpoint later does not reveal it.
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/grpc is not supported/);
  });

  it('names the service meeting-accounts unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES does', () => {
    expect(loadConfig({ ...endpoint, OTEL_SERVICE_NAME: 'accounts-eu' }).tracing?.defaultServiceName).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=acc' }).tracing?.defaultServiceName).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod' }).tracing?.defaultServiceName).toBe('meeting-accounts');
  });

  it('refuses endpoints that are not http(s) URLs and samplers the SDK does not know, listing them with the rest', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http\(s\) URL/);
    expect(() => loadConfig({ ...endpoint, OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER: must be always_on, always_off, traceidratio/);
    expect(() => loadConfig({ ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG: must be between 0 and 1/);
    expect(() => loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'yes please' })).toThrow(/OTEL_SDK_DISABLED: must be true or false/);
    expect(() => loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER: must be otlp or none/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', PORT: 'eighty' })).toThrow(/PORT[\s\S]*OTEL_EXPORTER_OTLP_PROTOCOL|OTEL_EXPORTER_OTLP_PROTOCOL[\s\S]*PORT/);
    expect(loadConfig({ ...endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing).toBeDefined();
  });
});
