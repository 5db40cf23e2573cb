// `npm run bench:builds -- <other checkout>`: this build against another build of the service (a
// checkout of an earlier commit with its node_modules and `npm run build` done), both serving the
// same database under the same load at the same time on one CPU. Answers "did this change make the
// per-request path slower?" far more exactly than two runs of `npm run bench` an hour apart.
//
// Side by side, neither server may keep an advantage of its place. Whichever starts first wins a
// few percent of the shared CPU (~2-4%, a different share at each start), the one loaded second a
// little less, and a PostgreSQL backend the scheduler leaves on the servers' CPU takes its CPU from
// one build only. So the rounds run under both start orders and both load orders, with the backends
// kept off the servers' CPU; the ratio is the median of all. Identical builds: 0.99 and 1.00 (they
// ranged 0.90-1.02 before these corrections).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { load, log, sideBySide } from './load.js';
import { ALL_CPUS, freshDatabase, LOAD_CPUS, median, pin, printTable, SERVER_CPU, signIn, startService, type Row, type ServiceProcess } from './support.js';

/** Identical builds differ by up to this much here; a ratio above it is no measurable slowdown. */
const NOISE = 0.97;

const other = process.argv[2] ? resolve(process.argv[2]) : undefined;
if (!other || !existsSync(join(other, 'dist/src/main.js'))) {
  process.stderr.write('usage: npm run bench:builds -- <checkout of another commit, with node_modules installed and npm run build done>\n');
  process.exit(2);
}
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseUrl = await freshDatabase(adminUrl, 'meeting_accounts_bench_builds');
// The breaker would pause send-code's thousands of unused codes (a build without it ignores the setting).
const env = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '10', SMS_MIN_CONVERSION: '0' };
let next = 0;
const cases = (auth: Record<string, string>) => [
  { key: 'rest', name: 'REST GET /api/v1/users/me', request: { method: 'GET' as const, path: '/api/v1/users/me', headers: auth } },
  {
    key: 'send-code',
    name: 'POST /api/v1/auth/send-code, distinct phones',
    request: {
      method: 'POST' as const,
      path: '/api/v1/auth/send-code',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req: object) => ({ ...req, body: JSON.stringify({ phone: `+86139${String(10_000_000 + next++).slice(-8)}` }) }),
    },
  },
  {
    key: 'graphql',
    name: 'GraphQL { me { id phone nickname } }',
    request: { method: 'POST' as const, path: '/graphql', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ me { id phone nickname } }' }) },
  },
];
// BENCH_ONLY=rest,send-code,graphql runs a subset.
const only = process.env.BENCH_ONLY?.split(',').map((c) => c.trim());
const ratios = new Map<string, number[]>();
for (const [order, oursFirst] of [['the other build started first', false], ['this build started first', true]] as const) {
  // On a fresh database the first to start migrates it; the other then finds its own migrations applied or adds them.
  const startOurs = () => startService(env, 4740);
  const startTheirs = () => startService(env, 4741, other);
  let ours: ServiceProcess;
  let theirs: ServiceProcess;
  if (oursFirst) {
    ours = await startOurs();
    theirs = await startTheirs();
  } else {
    theirs = await startTheirs();
    ours = await startOurs();
  }
  try {
    const token = await signIn(ours, oursFirst ? '+8613600136003' : '+8613600136002');
    if (!(pin([ours.pid, theirs.pid], SERVER_CPU) && pin([process.pid], LOAD_CPUS))) log('CPU pinning not available: the servers and the load generator float');
    for (const { name, request } of cases({ authorization: `Bearer ${token}` }).filter((c) => !only || only.includes(c.key))) {
      const target = (s: ServiceProcess) => ({ url: s.url, pid: s.pid, requests: [request] });
      // Every pool connection open, then their PostgreSQL backends kept off the servers' CPU: a backend
      // the scheduler left there would take its CPU from one build only, for the whole run.
      await Promise.all([load({ ...target(ours), seconds: 2 }), load({ ...target(theirs), seconds: 2 })]);
      pin(await backendPids(), LOAD_CPUS);
      const first = await sideBySide(target(theirs), target(ours), `${name}, ${order}, this build loaded second`);
      const second = await sideBySide(target(ours), target(theirs), `${name}, ${order}, this build loaded first`);
      ratios.set(name, [
        ...(ratios.get(name) ?? []),
        ...first.rounds.map((r) => r.service.rps / r.baseline.rps),
        ...second.rounds.map((r) => r.baseline.rps / r.service.rps),
      ]);
    }
  } finally {
    pin([ours.pid, theirs.pid, process.pid], ALL_CPUS);
    await Promise.all([ours.stop(), theirs.stop()]);
  }
}
/** The PostgreSQL server processes of the benchmark's database: the services' connections. */
async function backendPids(): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

const rows: Row[] = [...ratios].map(([name, all]) => {
  const ratio = median(all);
  return {
    case: `${name}: this build vs ${other}`,
    ratio,
    value: `${all.length} rounds side by side, this/other ${all.map((r) => r.toFixed(3)).join(', ')}`,
    target: `ratio >= ${NOISE}`,
    pass: ratio >= NOISE,
  };
});
printTable(rows);
process.exitCode = rows.every((r) => r.pass) ? 0 : 1;
