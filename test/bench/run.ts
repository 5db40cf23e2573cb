// `npm run bench`: benchmarks against a fresh database on the machine's PostgreSQL; prints a
// table and exits non-zero when a target is missed. Not part of `npm test`.
import { avatarBench } from './avatar.bench.js';
import { statsBench } from './stats.bench.js';
import { freshDatabase, printTable, startService, type Row } from './support.js';

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseUrl = await freshDatabase(adminUrl, 'meeting_accounts_bench');
const rows: Row[] = [];

const service = await startService({ DATABASE_URL: databaseUrl }, 4710);
try {
  rows.push(...(await avatarBench(service)));
  rows.push(...(await statsBench(service, databaseUrl)));
} finally {
  await service.stop();
}

printTable(rows);
const failed = rows.filter((r) => !r.pass).length;
process.stdout.write(failed ? `${failed} target(s) missed\n` : 'all targets met\n');
process.exit(failed ? 1 : 0);
