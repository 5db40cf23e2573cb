// Behind a transaction-mode pooler (API.md 9.4): PgBouncer as its documentation recommends
// (test/pgbouncer.mjs: pool_mode = transaction, ignore_startup_parameters = extra_float_digits, the
// rest its defaults, default_pool_size 20 among them) in front of the machine's PostgreSQL.
// - REST GET /users/me and a password sign-in, the service through the pooler
//   (DATABASE_POOL_MODE=transaction) against the same build connected directly (session mode), in
//   alternating slices as the other comparisons;
// - four instances with pools of 8 (32 client connections for pgbouncer's 20 server connections)
//   under /users/me load together, against one of them alone: how the throughput scales here, and
//   not one failed request.
import pg from 'pg';
import { findPgBouncer, startPgBouncer } from '../test/pgbouncer.mjs';
import { pinned } from './http.bench.js';
import { compare, comparisonRow, load, log, medianOf, ROUNDS, roundRatios, sideBySide, type Comparison, type LoadResult } from './load.js';
import { cpuTicksOf, freshDatabase, median, register, signIn, startService, type Row, type ServiceProcess } from './support.js';

const POOL_SIZE = 8;
const INSTANCES = 4;
/** Connections of /users/me load per instance in the scaling case. */
const CONNECTIONS_PER_INSTANCE = 50;
/** The sign-in's bcrypt cost: low, so that the sign-in's database work (a transaction of several writes) weighs, not the hash. */
const SIGN_IN_BCRYPT_COST = 4;
const PASSWORD = 'Bench-password-2026!';
/** BENCH_SIDE_BY_SIDE=1: both at once on one CPU instead of in turn (see sideBySide), as for the other comparisons. */
const measure = process.env.BENCH_SIDE_BY_SIDE === '1' ? sideBySide : compare;

export async function poolerBench(adminUrl: string, port: number): Promise<Row[]> {
  if (!findPgBouncer()) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer)');
  const databaseUrl = await freshDatabase(adminUrl, 'meeting_accounts_bench_pooler');
  const pgbouncer = await startPgBouncer({ target: databaseUrl });
  const database = new URL(databaseUrl).pathname.slice(1);
  const common = {
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    BCRYPT_COST: String(SIGN_IN_BCRYPT_COST),
    LOGIN_FAILURES_PER_PHONE_IP: '1000000',
    LOGIN_FAILURES_PER_IP_DAILY: '1000000',
  };
  const pooledEnv = { ...common, DATABASE_URL: pgbouncer.url(database), DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: databaseUrl };
  const services: ServiceProcess[] = [];
  try {
    const direct = await startService({ ...common, DATABASE_URL: databaseUrl }, port);
    services.push(direct);
    // Started together on the database the direct one migrated: they find nothing to apply.
    const pooled = await Promise.all(Array.from({ length: INSTANCES }, (_, i) => startService(pooledEnv, port + 1 + i)));
    services.push(...pooled);
    log(`pooler: pgbouncer on 127.0.0.1:${pgbouncer.port} (transaction mode), ${INSTANCES} instances behind it and one direct, pools of ${POOL_SIZE}`);

    const token = await signIn(pooled[0]!, '+8613300133000');
    const phone = '+8613300133001';
    await register(pooled[0]!, phone, PASSWORD);
    const me = [{ method: 'GET' as const, path: '/api/v1/users/me', headers: { authorization: `Bearer ${token}` } }];
    const signInRequest = [
      { method: 'POST' as const, path: '/api/v1/auth/login-password', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ phone, password: PASSWORD }) },
    ];
    const rows: Row[] = [];
    const [through] = pooled as [ServiceProcess];
    const restMe = await pinned(through, direct, () =>
      measure({ url: direct.url, pid: direct.pid, requests: me }, { url: through.url, pid: through.pid, requests: me }, 'pooler REST /users/me'),
    );
    rows.push(row(`REST GET /api/v1/users/me through pgbouncer (transaction mode) vs direct (session mode), pools of ${POOL_SIZE}`, restMe));
    const signIns = await pinned(through, direct, () =>
      measure({ url: direct.url, pid: direct.pid, requests: signInRequest }, { url: through.url, pid: through.pid, requests: signInRequest }, 'pooler password sign-in'),
    );
    rows.push(row(`POST /api/v1/auth/login-password (bcrypt cost ${SIGN_IN_BCRYPT_COST}) through pgbouncer vs direct`, signIns));
    await direct.stop();
    services.splice(services.indexOf(direct), 1);

    rows.push(await scaling(pooled, me, databaseUrl, pgbouncer.pid!));
    return rows;
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await pgbouncer.stop();
  }
}

/**
 * /users/me on one instance, then on all of them at once (CONNECTIONS_PER_INSTANCE each), ROUNDS
 * rounds of each; fails on any failed request (load() throws). Reports the CPU time per request of
 * the instances and of pgbouncer (from /proc), and the PostgreSQL connections of the database at the
 * peak of the four.
 */
async function scaling(instances: ServiceProcess[], me: { method: 'GET'; path: string; headers: Record<string, string> }[], databaseUrl: string, pgbouncerPid: number): Promise<Row> {
  const one: LoadResult[] = [];
  const all: LoadResult[] = [];
  const cost = { one: [] as number[], all: [] as number[], pooler: [] as number[] };
  let serverConnections = 0;
  /** Microseconds of CPU per response that `pids` spent while `work` ran (clock ticks of 10 ms). */
  const measured = async <T extends LoadResult>(pids: number[], work: () => Promise<T>) => {
    const ticks = () => pids.map(cpuTicksOf);
    const before = ticks();
    const result = await work();
    const spent = ticks().map((t, i) => (t - before[i]!) * 10_000);
    return { result, perResponse: spent.map((us) => us / result.responses) };
  };
  for (const target of instances) await load({ url: target.url, requests: me, connections: CONNECTIONS_PER_INSTANCE, seconds: 3 }); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    const single = await measured([instances[0]!.pid, pgbouncerPid], () => load({ url: instances[0]!.url, requests: me, connections: CONNECTIONS_PER_INSTANCE }));
    one.push(single.result);
    cost.one.push(single.perResponse[0]!);
    const counting = countConnections(databaseUrl, 5_000).then((n) => (serverConnections = Math.max(serverConnections, n)));
    const together = await measured([...instances.map((s) => s.pid), pgbouncerPid], async () => {
      const results = await Promise.all(instances.map((s) => load({ url: s.url, requests: me, connections: CONNECTIONS_PER_INSTANCE })));
      const responses = results.reduce((sum, r) => sum + r.responses, 0);
      const seconds = Math.max(...results.map((r) => r.seconds));
      log(`pooler scaling round ${i + 1}: ${instances.length} instances ${results.map((r) => r.rps.toFixed(0)).join(' + ')} req/s`);
      return { ...medianOf(results), rps: responses / seconds, responses, seconds };
    });
    await counting;
    all.push(together.result);
    cost.all.push(together.perResponse.slice(0, -1).reduce((sum, us) => sum + us, 0));
    cost.pooler.push(together.perResponse.at(-1)!, single.perResponse[1]!);
    log(`pooler scaling round ${i + 1}: 1 instance ${one[i]!.rps.toFixed(0)} req/s, ${instances.length} instances ${all[i]!.rps.toFixed(0)} req/s`);
  }
  const single = medianOf(one);
  const four = medianOf(all);
  const us = (values: number[]) => `${median(values).toFixed(0)} us`;
  return {
    case: `REST GET /api/v1/users/me, ${instances.length} instances with pools of ${POOL_SIZE} behind one pgbouncer (default_pool_size 20), ${CONNECTIONS_PER_INSTANCE} connections each`,
    rps: four.rps,
    p50: four.p50,
    p99: four.p99,
    baselineRps: single.rps,
    ratio: four.rps / single.rps,
    value:
      `baseline: 1 instance; rounds ${all.map((r) => r.rps.toFixed(0)).join(', ')} vs ${one.map((r) => r.rps.toFixed(0)).join(', ')} req/s; ` +
      `CPU a request: instances ${us(cost.all)} (1 instance: ${us(cost.one)}), pgbouncer ${us(cost.pooler)}; ` +
      `${instances.length * POOL_SIZE} client connections, at most ${serverConnections} PostgreSQL connections seen`,
    target: 'no failed request',
    pass: true,
  };
}

/** The most client connections the database had, sampled every 100 ms for `ms`. */
async function countConnections(databaseUrl: string, ms: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let most = 0;
  try {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const { rows } = await client.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()",
      );
      most = Math.max(most, rows[0]!.n);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
  return most;
}


function row(name: string, c: Comparison): Row {
  const value = `${process.env.BENCH_SIDE_BY_SIDE === '1' ? 'side by side; ' : ''}baseline: direct; its p50/p99 ${c.baseline.p50.toFixed(1)}/${c.baseline.p99.toFixed(1)} ms; rounds ${roundRatios(c)}`;
  return comparisonRow(name, c, { value, target: 'no failed request', pass: true });
}
