// `npm run bench:builds -- <other checkout>`: this build against another build of the service (a
// checkout of an earlier commit with its node_modules and `npm run build` done), both serving the
// same database under the same load at the same time on one CPU. Answers "did this change make the
// per-request path slower?" far more exactly than two runs of `npm run bench` an hour apart.
//
// Side by side, the server loaded second wins a little less CPU (identical builds measured 0.94-1.01
// here), so the builds swap places after each half of the rounds and the ratio is the median of all.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { log, ROUNDS, sideBySide } from './load.js';
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
// The other build first: it migrates the database to its own schema, this build then adds its migrations.
const theirs = await startService(env, 4741, other);
const ours = await startService(env, 4740);
try {
  const token = await signIn(ours, '+8613600136002');
  const auth = { authorization: `Bearer ${token}` };
  let next = 0;
  const cases = [
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
  const chosen = cases.filter((c) => !only || only.some((name) => c.key === name));
  if (!(pin([ours.pid, theirs.pid], SERVER_CPU) && pin([process.pid], LOAD_CPUS))) log('CPU pinning not available: the servers and the load generator float');
  const rows: Row[] = [];
  for (const { name, request } of chosen) {
    const target = (s: ServiceProcess) => ({ url: s.url, pid: s.pid, requests: [request] });
    const first = await sideBySide(target(theirs), target(ours), `${name}, this build second`);
    const second = await sideBySide(target(ours), target(theirs), `${name}, this build first`);
    const ratios = [...first.rounds.map((r) => r.service.rps / r.baseline.rps), ...second.rounds.map((r) => r.baseline.rps / r.service.rps)];
    const ratio = median(ratios);
    rows.push({
      case: `${name}: this build vs ${other}`,
      ratio,
      value: `${ROUNDS * 2} rounds side by side, this/other ${ratios.map((r) => r.toFixed(3)).join(', ')}`,
      target: `ratio >= ${NOISE}`,
      pass: ratio >= NOISE,
    });
  }
  pin([ours.pid, theirs.pid, process.pid], ALL_CPUS);
  printTable(rows);
  process.exitCode = rows.every((r) => r.pass) ? 0 : 1;
} finally {
  await Promise.all([ours.stop(), theirs.stop()]);
}
