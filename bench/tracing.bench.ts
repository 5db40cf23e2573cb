// Tracing's cost on the per-request path: REST GET /api/v1/users/me on the service with tracing on
// (every request sampled, its spans exported over OTLP http/protobuf to a receiver started here)
// against the same build with tracing off, both serving the same database, pinned to one CPU.
// What tracing off costs against the build before it is bench/builds.ts's question.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpBenchOptions } from './http.bench.js';
import { pinned } from './http.bench.js';
import { compare, log, roundRatios, sideBySide } from './load.js';
import { signIn, startService, type Row } from './support.js';

/**
 * Reported, with no target: every request is traced (HTTP, Express, the PostgreSQL query) and
 * exported, the worst case. A deployment tracing a share of requests
 * (OTEL_TRACES_SAMPLER=parentbased_traceidratio) pays less.
 */

export async function tracingBench(options: HttpBenchOptions, port: number): Promise<Row[]> {
  let exports = 0;
  let bytes = 0;
  // An OTLP/HTTP receiver that accepts everything: what the service pays is encoding and sending.
  const receiver = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await new Promise((resolve) => receiver.once('listening', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const traced = await startService(
    { DATABASE_URL: options.databaseUrl, DATABASE_POOL_SIZE: String(options.poolSize), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'always_on' },
    port,
  );
  try {
    const token = await signIn(options.service, '+8613600136005');
    const me = [{ method: 'GET' as const, path: '/api/v1/users/me', headers: { authorization: `Bearer ${token}` } }];
    const expectBody = await (await fetch(`${options.service.url}/api/v1/users/me`, { headers: me[0]!.headers })).text();
    const measure = process.env.BENCH_SIDE_BY_SIDE === '1' ? sideBySide : compare;
    const c = await pinned(options.service, traced, () =>
      measure(
        { url: options.service.url, pid: options.service.pid, requests: me, expectBody },
        { url: traced.url, pid: traced.pid, requests: me, expectBody },
        'REST /users/me, tracing on vs off',
      ),
    );
    if (exports === 0) throw new Error('the traced service exported no spans');
    log(`tracing on/off: ratios per round ${roundRatios(c)}; ${exports} OTLP exports, ${(bytes / 1e6).toFixed(1)} MB`);
    return [
      {
        case: 'REST GET /api/v1/users/me, tracing on (always_on, OTLP http/protobuf) vs off',
        rps: c.service.rps,
        p50: c.service.p50,
        p99: c.service.p99,
        baselineRps: c.baseline.rps,
        ratio: c.ratio,
        value: `off p50/p99 ${c.baseline.p50.toFixed(1)}/${c.baseline.p99.toFixed(1)} ms; ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`,
        target: 'reported',
        pass: true,
      },
    ];
  } finally {
    await traced.stop();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}
