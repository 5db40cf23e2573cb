// Traces (contract 8.3), on the real service process: spans of the HTTP request, the GraphQL
// operation and its PostgreSQL queries reach an OTLP receiver in one trace that continues the
// caller's traceparent; log lines carry the trace's ids; unset, no OpenTelemetry module is loaded.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newPhone } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { freshRateLimits, runService, serviceProcessEnv, signInByOutbox, startService, within, type ServiceProcess } from '../operability/support.js';
import { OtlpReceiver, type ReceivedSpan } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-traces-'));
const outbox = join(dir, 'outbox.jsonl');
const receiver = new OtlpReceiver();
let collector = '';

// Loaded with --import into the service: records the URL of every module it resolves (import and require).
const recorder = join(dir, 'record-modules.mjs');
writeFileSync(
  recorder,
  `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    appendFileSync(process.env.TEST_MODULES_FILE, result.url + '\\n');
    return result;
  },
});
`,
);

beforeAll(async () => {
  collector = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
  await rm(dir, { recursive: true, force: true });
});

const serviceEnv = (sub: string, env: Record<string, string> = {}): Record<string, string> =>
  serviceProcessEnv(join(dir, sub), { SMS_PROVIDER: 'file', SMS_OUTBOX_FILE: outbox, LOG_FORMAT: 'json', ...env });

const withModuleRecorder = (file: string) => ({ NODE_OPTIONS: `--import=${pathToFileURL(recorder).href}`, TEST_MODULES_FILE: file });
const loadedModules = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
};

const HTTP = '@opentelemetry/instrumentation-http';
const GRAPHQL = '@opentelemetry/instrumentation-graphql';
const PG = '@opentelemetry/instrumentation-pg';
const isComplete = (spans: ReceivedSpan[]) =>
  spans.some((s) => s.scope === HTTP && s.kind === 2) && spans.some((s) => s.scope === GRAPHQL) && spans.some((s) => s.scope === PG);

/** `query Me { me { id } }` with a fresh traceparent; the trace's ids. */
async function queryMe(service: ServiceProcess): Promise<{ traceId: string; parentId: string; userId: string }> {
  await freshRateLimits();
  const { accessToken, userId } = await signInByOutbox(service.url, outbox, newPhone());
  const parent = newTraceparent();
  const res = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}`, traceparent: parent.header },
    body: JSON.stringify({ query: 'query Me { me { id } }', operationName: 'Me' }),
  });
  expect(await res.json()).toEqual({ data: { me: { id: userId } } });
  return { traceId: parent.traceId, parentId: parent.parentId, userId };
}

/** The request's spans form one tree under the HTTP server span (named by Express's route), itself a child of the caller's span. */
function expectOneTrace(spans: ReceivedSpan[], parentId: string, service = 'meeting-accounts'): void {
  const servers = spans.filter((s) => s.scope === HTTP && s.kind === 2);
  expect(servers.map((s) => [s.name, s.parentSpanId])).toEqual([['POST /graphql', parentId]]);
  const [server] = servers;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (const span of spans) {
    let at: ReceivedSpan | undefined = span;
    for (let hops = 0; at && at !== server && hops < 50; hops += 1) at = byId.get(at.parentSpanId);
    expect({ span: span.name, under: at?.name }).toEqual({ span: span.name, under: server!.name });
  }
  const graphql = spans.filter((s) => s.scope === GRAPHQL).map((s) => s.name);
  expect(graphql).toEqual(expect.arrayContaining(['graphql.parse', 'graphql.validate', 'query Me']));
  const queries = spans.filter((s) => s.scope === PG);
  expect(queries.length).toBeGreaterThan(0);
  for (const query of queries) expect(query).toMatchObject({ kind: 3, name: expect.stringMatching(/^pg\.query:/) });
  for (const span of spans) expect(span.service).toBe(service);
}

const jsonLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('traces', () => {
  it('http/json: an HTTP, GraphQL and PostgreSQL span per request in the caller\'s trace, its ids on the log lines; probes untraced', async () => {
    const modules = join(dir, 'modules-on.txt');
    const service = await startService(
      serviceEnv('json', { OTEL_EXPORTER_OTLP_ENDPOINT: collector, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50', ...withModuleRecorder(modules) }),
      30_000,
    );
    try {
      const probe = newTraceparent();
      expect((await fetch(`${service.url}/healthz`, { headers: { traceparent: probe.header } })).status).toBe(200);
      // A malformed traceparent is ignored (the request starts a trace of its own), never an error.
      for (const bad of ['garbage', `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01`, `ff-${probe.traceId}-${probe.parentId}-01-extra`]) {
        expect((await fetch(`${service.url}/api/v1/auth/config`, { headers: { traceparent: bad } })).status).toBe(200);
      }
      const { traceId, parentId } = await queryMe(service);
      expect(await waitFor(() => isComplete(receiver.trace(traceId)), 10_000)).toBe(true);
      const spans = receiver.trace(traceId);
      expectOneTrace(spans, parentId);
      expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));
      // The probe came before the query, so its spans, had there been any, would have been exported by now.
      expect(receiver.trace(probe.traceId)).toEqual([]);

      expect(await waitFor(() => jsonLines(service.stdout()).some((l) => l.traceId === traceId), 5_000)).toBe(true);
      const lines = jsonLines(service.stdout()).filter((l) => l.traceId === traceId);
      expect(lines.filter((l) => l.req?.path === '/graphql').map((l) => l.res?.status)).toEqual([200]);
      const spanIds = new Set(spans.map((s) => s.spanId));
      for (const line of lines) expect(spanIds.has(line.spanId)).toBe(true);
      // Lines outside a traced request (start-up) carry none.
      expect(jsonLines(service.stdout()).filter((l) => !l.req && !l.requestId).every((l) => l.traceId === undefined)).toBe(true);

      expect(loadedModules(modules).some((url) => url.includes('/@opentelemetry/sdk-node/'))).toBe(true);
    } finally {
      await service.kill();
    }
  }, 60_000);

  it('http/protobuf (the default): the same trace, named by OTEL_SERVICE_NAME, and the spans still buffered are exported on SIGTERM before the process exits', async () => {
    const service = await startService(
      // Spans wait a minute for their batch: only the shutdown can send them within the test.
      serviceEnv('protobuf', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_SERVICE_NAME: 'accounts-eu' }),
      30_000,
    );
    try {
      const { traceId, parentId } = await queryMe(service);
      expect(receiver.trace(traceId)).toEqual([]);
      service.child.kill('SIGTERM');
      expect(await within(service.exited, 15_000)).toEqual({ code: 0, signal: null });
      expect(isComplete(receiver.trace(traceId))).toBe(true);
      expectOneTrace(receiver.trace(traceId), parentId, 'accounts-eu');
      expect(receiver.contentTypes).toContain('application/x-protobuf');
    } finally {
      await service.kill();
    }
  }, 60_000);

  it('without an OTLP endpoint and with metrics off no @opentelemetry module is loaded, and requests log no trace ids', async () => {
    const modules = join(dir, 'modules-off.txt');
    const service = await startService(serviceEnv('off', withModuleRecorder(modules)), 30_000);
    try {
      const parent = newTraceparent();
      const res = await fetch(`${service.url}/api/v1/auth/config`, { headers: { traceparent: parent.header } });
      expect(res.status).toBe(200);
      expect(await waitFor(() => service.stdout().includes('"/api/v1/auth/config"'), 5_000)).toBe(true);
      const loaded = loadedModules(modules);
      // The recorder saw the service's own modules and its packages...
      expect(loaded.some((url) => url.endsWith('/dist/src/server.js'))).toBe(true);
      expect(loaded.some((url) => url.includes('/node_modules/express/'))).toBe(true);
      // ...and nothing of OpenTelemetry.
      expect(loaded.filter((url) => url.includes('@opentelemetry') || url.includes('-in-the-middle'))).toEqual([]);
      expect(service.stdout()).not.toContain('traceId');
    } finally {
      await service.kill();
    }
  }, 60_000);

  it('without an OTLP endpoint but with metrics on, only the no-op OpenTelemetry API is loaded (prom-client needs it), never the SDK, an instrumentation, an exporter or a loader hook', async () => {
    const modules = join(dir, 'modules-metrics.txt');
    const service = await startService(serviceEnv('metrics', { METRICS_PORT: '0', ...withModuleRecorder(modules) }), 30_000);
    try {
      const res = await fetch(`${service.url}/api/v1/auth/config`, { headers: { traceparent: newTraceparent().header } });
      expect(res.status).toBe(200);
      expect(await waitFor(() => service.stdout().includes('"/api/v1/auth/config"'), 5_000)).toBe(true);
      const loaded = loadedModules(modules);
      expect(loaded.some((url) => url.includes('/node_modules/prom-client/'))).toBe(true);
      const otel = loaded.filter((url) => url.includes('@opentelemetry') || url.includes('-in-the-middle'));
      expect(otel.filter((url) => !url.includes('/node_modules/@opentelemetry/api/'))).toEqual([]);
      expect(service.stdout()).not.toContain('traceId');
    } finally {
      await service.kill();
    }
  }, 60_000);

  it('refuses to start with OTEL_EXPORTER_OTLP_PROTOCOL=grpc, saying why and what to use', async () => {
    const service = runService(serviceEnv('grpc', { OTEL_EXPORTER_OTLP_ENDPOINT: collector, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }));
    try {
      expect(await within(service.exited, 15_000)).toEqual({ code: 1, signal: null });
      expect(service.stderr()).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported .* use http\/protobuf/);
    } finally {
      await service.kill();
    }
  }, 30_000);
});
