// The operators' search (GET /api/v1/admin/users, as an ADMIN) over 1,000,000 accounts: each way of
// matching, the filters and the listing with a deep cursor, one request at a time, p50/p95/p99 per
// kind against p95 < 50 ms. The accounts are written by SQL into a database of this case's own (the
// service migrates it, the search's indexes are dropped for the load and rebuilt as the migration
// made them, then VACUUM ANALYZE); the plan of each kind is the service's own SQL, captured from its
// AccountService, under EXPLAIN; a kind over the target also gets EXPLAIN ANALYZE of its slowest query.
// The database is dropped at the end.
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { SearchPosition } from '../src/modules/account/account.repository.js';
import type { AccountDependencies, AccountService } from '../src/modules/account/account.service.js';
import type { Role } from '../src/modules/account/role.js';
import { encodeSearchCursor } from '../src/modules/admin/admin.inputs.js';
import { log } from './load.js';
import { freshDatabase, signIn, startService, type Row } from './support.js';

const USERS = 1_000_000;
const ROUNDS = 100;
/** Fewer rounds for a kind whose warm-up already shows it far over the target (keeps the run bounded). */
const SLOW_ROUNDS = 30;
const WARMUP = 5;
const TARGET_MS = 50;
const DATABASE = 'meeting_accounts_bench_search';
/** The caller, made ADMIN by SQL; +86 166 is a range the seeded accounts do not use. */
const ADMIN_PHONE = '+8616600166000';

interface Search {
  query?: string;
  status?: 'ACTIVE' | 'BLOCKED';
  role?: Role;
  cursor?: { position: SearchPosition; label: string };
}

interface Kind {
  name: string;
  searches: Search[];
  /** How many accounts each search must find on its page (default: at least one). */
  expect?: (items: unknown[]) => boolean;
}

/**
 * 1,000,000 accounts in creation order over five years: phones of CN (70%), GB (15%) and US (15%),
 * unique by construction; nicknames the service's default `User1234` (30%), Latin names, Chinese
 * names, handles with emoji, and a few rare ones (`Quetzalcoatl`, `Qz`, the surname 欧阳); 0.5% blocked;
 * 10 ADMIN and 100 SUPPORT. Deterministic (hashes of the row number, not random()).
 */
const SEED = `
insert into users (id, phone, nickname, password_hash, created_at, updated_at, last_login_at, login_count, role, blocked_at, blocked_reason)
select gen_random_uuid(), phone,
       case
         when g % 100003 = 0 then 'Quetzalcoatl ' || g
         when g % 200003 = 17 then 'Qz'
         when g % 50021 = 3 then '欧阳' || (array['娜娜','修','晓','明'])[1 + r3 % 4]
         when r2 < 30 then 'User' || right(phone, 4)
         when r2 < 60 then first || ' ' || last
         when r2 < 65 then lower(first) || '_' || lower(last) || (r3 % 1000)
         when r2 < 90 then (array['王','李','张','刘','陈','杨','黄','赵','吴','周','徐','孙','马','朱','胡','郭','何','高','林','罗'])[1 + r3 % 20]
                        || (array['伟','芳','娜','敏','静','丽','强','磊','军','洋','勇','艳','杰','娟','涛','明','超','秀','霞','平'])[1 + (r3 / 20) % 20]
                        || case when r3 % 3 = 0 then '' else (array['英','华','玉','兰','文','建','国','红','志','春'])[1 + (r3 / 400) % 10] end
         else (array['night owl 🦉','coffee lover ☕','gamer 🎮','traveler ✈️','music 🎵','sunshine ☀️','bookworm 📚','runner 🏃'])[1 + r3 % 8] || ' ' || (r3 % 100)
       end,
       case when r1 % 5 < 2 then '$2a$12$' || left(md5(g::text) || md5((-g)::text), 53) end,
       at, at,
       case when r1 % 3 > 0 then at + (r3 % 86400000) * interval '1 second' / 100 end,
       r3 % 200,
       case when g % 100000 = 50 then 'ADMIN' when g % 10000 = 20 then 'SUPPORT' else 'USER' end,
       case when r1 % 200 = 7 then at + interval '1 day' end,
       case when r1 % 200 = 7 then 'spam' end
  from (
    select g, r1, r2, r3,
           now() - interval '5 years' + g * (interval '5 years' / $1) + (r3 % 60000000) * interval '1 microsecond' as at,
           case
             when g % 20 < 14 then '+861' || (array['3','5','8','9','7'])[1 + (g / 20) % 5] || s
             when g % 20 < 17 then '+447' || s
             else '+1' || (201 + (g / 20) % 780) || right(s, 7)
           end as phone,
           (array['James','Mary','John','Linda','David','Sarah','Michael','Emma','Daniel','Olivia','Wei','Ming','Hiroshi','Yuki','Carlos','Sofia','Ahmed','Fatima','Ivan','Anna'])[1 + r3 % 20] as first,
           (array['Smith','Johnson','Brown','Garcia','Miller','Wang','Li','Zhang','Chen','Kim','Tanaka','Silva','Khan','Petrov','Nguyen','Lopez','Wilson','Taylor','Martin','Lee'])[1 + (r3 / 20) % 20] as last
      from (
        select g, hashint4(g) & 2147483647 as r1, (hashint4(-g) & 2147483647) % 100 as r2, hashint8(g::bigint + 4000000000) & 2147483647 as r3,
               lpad(((g::bigint * 7919) % 1000000000)::text, 9, '0') as s
          from generate_series(1, $1::int) g
      ) h
  ) p`;

export async function adminSearchBench(adminUrl: string, port: number): Promise<Row[]> {
  const databaseUrl = await freshDatabase(adminUrl, DATABASE);
  const db = new pg.Client({ connectionString: databaseUrl });
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let planner: Planner | undefined;
  try {
    service = await startService({ DATABASE_URL: databaseUrl }, port); // migrates the new database
    await db.connect();
    const token = await signIn(service, ADMIN_PHONE);
    await db.query(`update users set role = 'ADMIN' where phone = $1`, [ADMIN_PHONE]);
    await seed(db);
    planner = await Planner.open(databaseUrl);
    const kinds = await searchKinds(db);
    const rows: Row[] = [];
    for (const kind of kinds) rows.push(await measure(service.url, token, kind, planner));
    return rows;
  } finally {
    await service?.stop();
    await planner?.close();
    await db.end().catch(() => undefined);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists "${DATABASE}" with (force)`);
    await admin.end();
  }
}

/** Writes the accounts without the search's indexes, then rebuilds them from their own definitions. */
async function seed(db: pg.Client): Promise<void> {
  const started = performance.now();
  const { rows: indexes } = await db.query<{ name: string; definition: string }>(
    `select i.relname as name, pg_get_indexdef(i.oid) as definition
       from pg_index x join pg_class i on i.oid = x.indexrelid
      where x.indrelid = 'users'::regclass and not x.indisunique`,
  );
  for (const { name } of indexes) await db.query(`drop index "${name}"`);
  await db.query(SEED, [USERS]);
  await db.query(`set maintenance_work_mem = '512MB'`);
  for (const { definition } of indexes) await db.query(definition);
  await db.query('vacuum analyze users');
  log(`admin-search: ${USERS.toLocaleString('en')} accounts written, ${indexes.map((i) => i.name).join(', ')} rebuilt, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The kinds measured; phones, ids and deep positions are read from the seeded accounts. */
async function searchKinds(db: pg.Client): Promise<Kind[]> {
  const phones = (await db.query<{ phone: string }>(`select phone from users where phone like '+861%' order by id limit 5`)).rows;
  const ids = (await db.query<{ id: string }>(`select id from users order by id offset 1000 limit 5`)).rows;
  const position = async (offset: number) => {
    const { rows } = await db.query<{ createdAt: string; id: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdAt", id
         from users order by created_at desc, id desc offset $1 limit 1`,
      [offset],
    );
    return { position: rows[0]!, label: `after ${offset.toLocaleString('en')}` };
  };
  const national = (e164: string) => `${e164.slice(3, 6)} ${e164.slice(6, 10)} ${e164.slice(10)}`;
  return [
    { name: 'phone prefix, E.164 leading digits', searches: ['+86139', '+861391', '+8615812', '+86189123', '+447700', '+44791', '+1415', '+12125', '+1201'].map((query) => ({ query })) },
    { name: 'phone leading digits without +', searches: ['86139', '139123', '4477009', '1415'].map((query) => ({ query })) },
    { name: 'phone, national form of a whole number', searches: phones.map(({ phone }) => ({ query: national(phone) })), expect: (items) => items.length === 1 },
    { name: 'nickname substring, 3+ chars, rare', searches: ['quetzal', 'Quetzalcoatl', 'QUETZALC', '王芳英'].map((query) => ({ query })) },
    { name: 'nickname substring, 3+ chars, common', searches: ['user', 'wang', 'smith', 'lover'].map((query) => ({ query })), expect: (items) => items.length === 20 },
    { name: 'nickname substring, 1-2 chars, common', searches: ['a', 'an', '王', 'li', '李娜', '王伟'].map((query) => ({ query })), expect: (items) => items.length === 20 },
    { name: 'nickname substring, 1-2 chars, rare', searches: ['qz', '欧阳'].map((query) => ({ query })) },
    { name: 'id', searches: ids.map(({ id }) => ({ query: id })), expect: (items) => items.length === 1 },
    { name: 'status=BLOCKED', searches: [{ status: 'BLOCKED' }], expect: (items) => items.length === 20 },
    { name: 'role=ADMIN', searches: [{ role: 'ADMIN' as Role }], expect: (items) => items.length === 11 },
    { name: 'no query, first page', searches: [{}], expect: (items) => items.length === 20 },
    { name: 'no query, deep page (cursor)', searches: [await position(500_000), await position(990_000)].map((cursor) => ({ cursor })), expect: (items) => items.length === 20 },
  ];
}

/** One kind: its searches in turn, one request at a time; a row with p50/p95/p99 and the indexes of its plans. */
async function measure(url: string, token: string, kind: Kind, planner: Planner): Promise<Row> {
  const urls = kind.searches.map((s) => {
    const params = new URLSearchParams();
    if (s.query !== undefined) params.set('query', s.query);
    if (s.status) params.set('status', s.status);
    if (s.role) params.set('role', s.role);
    if (s.cursor) params.set('cursor', encodeSearchCursor(s.cursor.position));
    return `${url}/api/v1/admin/users?${params}`;
  });
  const ask = async (i: number) => {
    const started = performance.now();
    const res = await fetch(urls[i]!, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { items?: unknown[] };
    const ms = performance.now() - started;
    const ok = res.status === 200 && Array.isArray(body.items) && (kind.expect ?? ((items) => items.length > 0))(body.items);
    if (!ok) throw new Error(`${kind.name}: ${urls[i]} answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return ms;
  };
  const warm: number[] = [];
  for (let i = 0; i < WARMUP * urls.length; i++) warm.push(await ask(i % urls.length));
  const rounds = percentile(warm, 0.5) > TARGET_MS * 4 ? SLOW_ROUNDS : ROUNDS;
  const times: number[] = [];
  const bySearch = urls.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    const ms = await ask(i % urls.length);
    times.push(ms);
    bySearch[i % urls.length]!.push(ms);
  }
  const [p50, p95, p99] = [0.5, 0.95, 0.99].map((p) => percentile(times, p)) as [number, number, number];
  const pass = p95 < TARGET_MS;

  const indexes = new Set<string>();
  log(`admin-search: ${kind.name}: p50 ${p50.toFixed(1)}, p95 ${p95.toFixed(1)}, p99 ${p99.toFixed(1)} ms (${rounds} requests) ${pass ? 'PASS' : 'FAIL'}`);
  for (const [i, search] of kind.searches.entries()) {
    const lines = await planner.scans(search);
    for (const line of lines) for (const name of indexNames(line)) indexes.add(name);
    log(`  ${describe(search)} (median ${percentile(bySearch[i]!, 0.5).toFixed(1)} ms): ${lines.join(' | ')}`);
  }
  if (!pass) {
    const slowest = kind.searches.reduce((a, b, i) => (percentile(bySearch[i]!, 0.5) > percentile(bySearch[kind.searches.indexOf(a)]!, 0.5) ? b : a));
    log(`  EXPLAIN (ANALYZE, BUFFERS) of ${describe(slowest)}:\n${(await planner.analyze(slowest)).map((l) => `    ${l}`).join('\n')}`);
  }
  return {
    case: `admin search, ${USERS.toLocaleString('en')} accounts: ${kind.name}`,
    p50,
    p99,
    value: `p50 ${p50.toFixed(1)} / p95 ${p95.toFixed(1)} / p99 ${p99.toFixed(1)} ms (${rounds} req.); ${[...indexes].join(', ')}`,
    target: `p95 < ${TARGET_MS} ms`,
    pass,
  };
}

/**
 * The service's own SQL for a search, taken from its AccountService on a Database whose explicit
 * SQL is captured instead of run, then explained on a connection of its own.
 */
class Planner {
  private captured: { text: string; values: unknown[] } | undefined;

  private constructor(
    private readonly accounts: AccountService,
    private readonly client: pg.Client,
    private readonly orm: MikroORM,
  ) {}

  static async open(databaseUrl: string): Promise<Planner> {
    await import('reflect-metadata'); // before the entities' decorators run
    const { openOrm } = await import('../src/db/orm.js');
    const { Database } = await import('../src/db/database.js');
    const { AccountRepository } = await import('../src/modules/account/account.repository.js');
    const { AccountService } = await import('../src/modules/account/account.service.js');
    const orm = await openOrm({ url: databaseUrl, poolSize: 1 });
    const db = await Database.open(orm, { prepare: false });
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    // Only the search is called: it needs the repository and the phone region, nothing else.
    const deps = { accounts: new AccountRepository(db), defaultPhoneRegion: 'CN' } as Partial<AccountDependencies> as AccountDependencies;
    const planner = new Planner(new AccountService(deps), client, orm);
    db.rows = async (text: string, values: unknown[] = []) => {
      planner.captured = { text, values };
      return [];
    };
    return planner;
  }

  /** The plan's scan lines, without costs. */
  async scans(s: Search): Promise<string[]> {
    const { text, values } = await this.sql(s);
    const { rows } = await this.client.query<{ 'QUERY PLAN': string }>(`explain ${text}`, values);
    return rows
      .map((r) => r['QUERY PLAN'].replace(/\s+\(cost=.*\)$/, '').replace(/^[\s\->]+/, ''))
      .filter((line) => /Scan/.test(line) && !/^Subquery Scan/.test(line));
  }

  async analyze(s: Search): Promise<string[]> {
    const { text, values } = await this.sql(s);
    const { rows } = await this.client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, values);
    return rows.map((r) => r['QUERY PLAN']);
  }

  async close(): Promise<void> {
    await this.client.end();
    await this.orm.close(true);
  }

  private async sql(s: Search): Promise<{ text: string; values: unknown[] }> {
    this.captured = undefined;
    const blocked = s.status === undefined ? undefined : s.status === 'BLOCKED';
    await this.accounts.search({ text: s.query, blocked, role: s.role }, s.cursor?.position, 21); // a page of 20 reads 21
    if (!this.captured) throw new Error(`no SQL captured for ${describe(s)}`);
    return this.captured;
  }
}

/** The indexes (or a sequential scan) a plan line names. */
function indexNames(line: string): string[] {
  const index = /(?:using|Index Scan on|Index Only Scan on) (\w+)/.exec(line)?.[1];
  if (index) return [index];
  return /^Seq Scan/.test(line) || /^Parallel Seq Scan/.test(line) ? ['sequential scan'] : [];
}

function describe(s: Search): string {
  const parts = [
    s.query !== undefined ? `query=${JSON.stringify(s.query)}` : '',
    s.status ? `status=${s.status}` : '',
    s.role ? `role=${s.role}` : '',
    s.cursor ? `cursor ${s.cursor.label}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : '(no query)';
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}
