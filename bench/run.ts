// `npm run bench`: benchmarks against a fresh database on the machine's PostgreSQL; prints a
// table and exits non-zero when a target is missed. Not part of `npm test`.
// BENCH_ONLY=startup,avatar,stats,rest,rest-es256,rest-eddsa,graphql,latency,metrics,tracing,send-code,sms-pumping,admin-search,password,webhooks,mfa,mfa-latency,pooler,live runs a subset (for working on one case);
// BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service (see profile-top.ts).
// BENCH_SIDE_BY_SIDE=1 BENCH_ONLY=rest,graphql loads each server and its baseline at the same time
// (steadier ratios on a drifting VM, and CPU time per request): for telling whether a change helps.
// BENCH_CONNECTIONS=1 BENCH_ONLY=rest,graphql loads through that many connections instead of 50 (the
// per-request path with few requests in flight to share a session check).
import { cpus } from 'node:os';
import { adminSearchBench } from './admin-search.bench.js';
import { avatarBench } from './avatar.bench.js';
import { graphqlBench, restAlgorithmBench, restBench } from './http.bench.js';
import { latencyBench } from './latency.bench.js';
import { liveBench } from './live.bench.js';
import { log } from './load.js';
import { metricsBench } from './metrics.bench.js';
import { mfaLatencyBench, mfaThroughputBench } from './mfa.bench.js';
import { BCRYPT_COST, passwordBench } from './password.bench.js';
import { poolerBench } from './pooler.bench.js';
import { sendCodeBench } from './send-code.bench.js';
import { smsPumpingBench } from './sms-pumping.bench.js';
import { startupBench } from './startup.bench.js';
import { statsBench } from './stats.bench.js';
import { tracingBench } from './tracing.bench.js';
import { webhooksBench } from './webhooks.bench.js';
import { CPUS, freshDatabase, printTable, SERVICE_ENV, startService, type Row } from './support.js';

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const runs = (name: string) => !only || only.includes(name);
/** The service and the baselines get pools of this size. */
const POOL_SIZE = 10;
const started = performance.now();
const rows: Row[] = [];

/** Runs one case; a case that breaks is a FAIL row with its error, and the others still run. */
async function section(name: string, work: () => Promise<Row[]>): Promise<void> {
  if (!runs(name)) return;
  try {
    rows.push(...(await work()));
  } catch (error) {
    log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    rows.push({ case: `${name}: the case could not run`, value: String(error instanceof Error ? error.message : error).slice(0, 200), target: '-', pass: false });
  }
}

await section('startup', () => startupBench(adminUrl));

// BENCH_DATABASE_NAME: another name, for two checkouts benchmarking against one PostgreSQL.
const databaseName = process.env.BENCH_DATABASE_NAME ?? 'meeting_accounts_bench';
const databaseUrl = await freshDatabase(adminUrl, databaseName);
const serviceEnv = {
  DATABASE_URL: databaseUrl,
  DATABASE_POOL_SIZE: String(POOL_SIZE),
  BCRYPT_COST: String(BCRYPT_COST),
  // Concurrent correct logins reserve failure slots for a moment; keep them far from any limit.
  LOGIN_FAILURES_PER_PHONE_IP: '1000000',
  LOGIN_FAILURES_PER_IP_DAILY: '1000000',
  // The send-code case sends thousands of codes nobody uses: the conversion breaker would (rightly)
  // pause them after 100. bench/sms-pumping.ts measures the breaker itself.
  SMS_MIN_CONVERSION: '0',
};
const service = await startService(serviceEnv, 4710);
try {
  const http = { service, databaseUrl, poolSize: POOL_SIZE, jwtSecret: SERVICE_ENV.JWT_SECRET };
  await section('avatar', () => avatarBench(service));
  await section('stats', () => statsBench(service, databaseUrl));
  await section('rest', () => restBench(http));
  await section('rest-es256', () => restAlgorithmBench(http, 'ES256', 4712));
  await section('rest-eddsa', () => restAlgorithmBench(http, 'EdDSA', 4713));
  await section('graphql', () => graphqlBench(http));
  await section('latency', () =>
    latencyBench({ service, databaseUrl, serviceEnv, counterPort: 4722, baselineEnv: { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: String(POOL_SIZE), JWT_SECRET: SERVICE_ENV.JWT_SECRET } }),
  );
  await section('metrics', () => metricsBench(service, serviceEnv, 4716));
  await section('tracing', () => tracingBench(http, 4719));
  await section('send-code', () => sendCodeBench(service));
  await section('sms-pumping', () => smsPumpingBench(adminUrl, 4714));
  await section('admin-search', () => adminSearchBench(adminUrl, 4715));
  await section('password', () => passwordBench(service));
  await section('mfa', () => mfaThroughputBench(service, databaseUrl));
  await section('mfa-latency', () => mfaLatencyBench(databaseUrl, 4721));
  await section('webhooks', () => webhooksBench(adminUrl, 4716));
  await section('pooler', () => poolerBench(adminUrl, 4740));
  await section('live', () => liveBench(adminUrl, `${databaseName}_live`, 4750));
} finally {
  await service.stop();
}

log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.stdout.write(`Machine: ${CPUS} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}\n`);
printTable(rows);
const failed = rows.filter((r) => !r.pass).length;
process.stdout.write(failed ? `${failed} target(s) missed\n` : 'all targets met\n');
process.exit(failed ? 1 : 0);
