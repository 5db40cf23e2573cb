// API.md 9.4, against a real PgBouncer (Debian's pgbouncer, which npm test starts in front of
// PostgreSQL) configured as its documentation recommends for transaction mode: `pool_mode =
// transaction`, `ignore_startup_parameters = extra_float_digits`, nothing else changed. The flows
// themselves (sign-in, MFA, passkeys, refresh, limits, webhooks, operators, two instances) run through
// it in npm test's pooler pass (test/run.mjs); these are the tests of what the pooler changes.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/db/database.js';
import { openOrm } from '../../src/db/orm.js';
import { signInWithCode } from '../helpers/factories.js';
import { startTestServer, throughPooler, useTestServer } from '../helpers/server.js';
import { runService, serviceProcessEnv } from '../operability/support.js';
import { startPgBouncer } from '../pgbouncer.mjs';
import { behindPoolerEnv, describeBehindPooler, freshDatabase, poolerPort, runTool } from './support.js';

const worker = () => process.env.TEST_WORKER_DATABASE_URL!;
const TIMEOUT = "select current_setting('statement_timeout') as v";

describeBehindPooler('DATABASE_POOL_MODE=transaction behind pgbouncer in transaction mode', () => {
  const t = useTestServer(() => behindPoolerEnv());

  it('connects through the pooler and says so, with where it migrates', () => {
    expect(t.server.databaseMode).toContain(`through a transaction-mode pooler, ${throughPooler(worker(), poolerPort())}`);
    expect(t.server.databaseMode).toContain(`(migrations: ${worker()})`);
  });

  it('sets statement_timeout inside every transaction, for explicit SQL and MikroORM, in a transaction and outside one', async () => {
    const db = t.server.db;
    expect(await db.rows(TIMEOUT)).toEqual([{ v: '10s' }]);
    expect(await db.transaction(() => db.rows(TIMEOUT))).toEqual([{ v: '10s' }]);
    expect(await db.em().execute(TIMEOUT)).toEqual([{ v: '10s' }]);
    expect(await db.transaction(async () => [...(await db.em().execute(TIMEOUT)), ...(await db.rows(TIMEOUT))])).toEqual([{ v: '10s' }, { v: '10s' }]);
  });

  it('leaves nothing on the server connections: no statement names, settings, channels or advisory locks', async () => {
    const s = await signInWithCode(t);
    expect((await t.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken })).status).toBe(200);
    expect((await t.http.get('/api/v1/users/me', { token: s.accessToken })).status).toBe(200);
    const direct = new pg.Client({ connectionString: worker() });
    await direct.connect();
    // Every server connection pgbouncer has for this database (default_pool_size 20), each held in a
    // transaction by a client of this test, so that each answers from its own session.
    const clients = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const client = new pg.Client({ connectionString: throughPooler(worker(), poolerPort()) });
        await client.connect();
        await client.query('begin');
        return client;
      }),
    );
    try {
      const sessions = await Promise.all(
        clients.map(async (c) => (await c.query(`select pg_backend_pid() as pid, current_setting('statement_timeout') as v,
          (select count(*)::int from pg_prepared_statements) as prepared, (select count(*)::int from pg_listening_channels()) as channels`)).rows[0]),
      );
      expect(new Set(sessions.map((s) => s.pid)).size).toBe(20);
      const { v } = (await direct.query(TIMEOUT)).rows[0];
      for (const session of sessions) expect(session).toMatchObject({ v, prepared: 0, channels: 0 });
      const locks = await direct.query(`select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`);
      expect(locks.rows).toEqual([{ n: 0 }]);
    } finally {
      await Promise.all(clients.map((c) => c.query('commit').finally(() => c.end())));
      await direct.end();
    }
  });
});

describeBehindPooler('DATABASE_POOL_MODE=session behind pgbouncer in transaction mode', () => {
  const session = () => ({ DATABASE_URL: throughPooler(worker(), poolerPort()), DATABASE_POOL_MODE: 'session' });

  it('refuses to start, naming the startup parameter the pooler refused and what to set', async () => {
    await expect(startTestServer(session())).rejects.toThrow(
      /^DATABASE_URL refused the startup parameter statement_timeout \("unsupported startup parameter: statement_timeout"\): it leads to a connection pooler, not to PostgreSQL\. .*set DATABASE_POOL_MODE=transaction, with DATABASE_DIRECT_URL/,
    );
  });

  it('refuses without named statements and startup parameters too: one connection is seen on another session, or two on one', async () => {
    await expect(startTestServer({ ...session(), DATABASE_PREPARED_STATEMENTS: 'false' })).rejects.toThrow(
      /^DATABASE_URL (ran two client connections on one PostgreSQL session|moved one client connection between PostgreSQL sessions) .*: a transaction-mode pooler\. .*set DATABASE_POOL_MODE=transaction/,
    );
  });

  it('refuses behind a pgbouncer that drops statement_timeout (listed in ignore_startup_parameters), saying the limit did not arrive', async () => {
    const dropping = await startPgBouncer({ target: worker(), settings: { pool_mode: 'transaction', ignore_startup_parameters: 'extra_float_digits,statement_timeout' } });
    try {
      await expect(startTestServer({ DATABASE_URL: dropping.url(), DATABASE_POOL_MODE: 'session' })).rejects.toThrow(
        /^DATABASE_URL dropped the startup parameter statement_timeout=10000: PostgreSQL runs with statement_timeout = 0ms\. .*set DATABASE_POOL_MODE=transaction/,
      );
    } finally {
      await dropping.stop();
    }
  });

  it('as a process, exits 1 before listening, with the reason and what to set on standard error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-pooler-'));
    try {
      const service = runService(serviceProcessEnv(dataDir, { DATABASE_URL: throughPooler(worker(), poolerPort()) }));
      expect(await service.exited).toEqual({ code: 1, signal: null });
      expect(service.stderr()).toMatch(/^meeting-accounts failed to start: DATABASE_URL refused the startup parameter statement_timeout .*DATABASE_POOL_MODE=transaction/);
      expect(service.stdout()).not.toContain('listening');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('would fail requests here, each saying why: named statements prepared through the pooler collide on its sessions', async () => {
    // What the start-up check keeps from happening: two instances with named statements, through the
    // pooler, in a database of their own (its server connections are dropped with it).
    const fresh = await freshDatabase('pooler_named');
    const orms = await Promise.all([1, 2].map(() => openOrm({ url: throughPooler(fresh.url, poolerPort()), poolSize: 3, limits: 'none' })));
    try {
      const dbs = await Promise.all(orms.map((orm) => Database.open(orm, { prepare: true })));
      const failures: (Error & { code?: string })[] = [];
      // Each client connection prepares the statement once, on whichever server connection it is lent.
      for (let i = 0; i < 20 && failures.length === 0; i++) {
        const round = dbs.flatMap((db) => [0, 1, 2].map((j) => db.rows('select $1::int as n', [i * 3 + j], 'pooler_test_probe')));
        for (const outcome of await Promise.allSettled(round)) if (outcome.status === 'rejected') failures.push(outcome.reason as Error);
      }
      expect(failures[0]?.code).toMatch(/^(42P05|26000)$/);
      expect(failures[0]?.message).toMatch(/prepared statement "pooler_test_probe" (already exists|does not exist): a named prepared statement did not stay on its PostgreSQL session, .*set DATABASE_POOL_MODE=transaction$/);
    } finally {
      await Promise.all(orms.map((orm) => orm.close(true)));
      await fresh.drop();
    }
  });
});

describeBehindPooler('migrations behind pgbouncer in transaction mode', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    fresh = await freshDatabase('pooler_migrate');
  });
  afterAll(() => fresh?.drop());
  const pooled = (url: string) => ({ DATABASE_URL: throughPooler(url, poolerPort()), DATABASE_POOL_MODE: 'transaction' });
  const refusal = /^Migrations cannot run through a transaction-mode pooler \(DATABASE_POOL_MODE=transaction\).* Set DATABASE_DIRECT_URL to PostgreSQL itself/;

  it('are refused at start without DATABASE_DIRECT_URL, saying what to set; with MIGRATE_ON_START=false the service starts without it', async () => {
    await expect(startTestServer(pooled(fresh.url))).rejects.toThrow(refusal);
    const server = await startTestServer({ ...pooled(worker()), MIGRATE_ON_START: 'false' });
    try {
      expect((await server.http.get('/readyz')).status).toBe(200);
      expect((await server.http.get('/api/v1/auth/config')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('npm run migrate: refused without DATABASE_DIRECT_URL, applied through it, and refused when it leads to the pooler', async () => {
    const refused = await runTool('src/db/migrate.js', [], pooled(fresh.url));
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(refusal);
    const applied = await runTool('src/db/migrate.js', [], { ...pooled(fresh.url), DATABASE_DIRECT_URL: fresh.url });
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toMatch(/^Applied: Migration\d+/);
    const again = await runTool('src/db/migrate.js', [], { ...pooled(fresh.url), DATABASE_DIRECT_URL: fresh.url });
    expect(again).toMatchObject({ code: 0, stdout: 'The database is up to date.\n' });
    const wrong = await runTool('src/db/migrate.js', [], { ...pooled(fresh.url), DATABASE_DIRECT_URL: throughPooler(fresh.url, poolerPort()) });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^DATABASE_DIRECT_URL refused the startup parameter statement_timeout .*DATABASE_DIRECT_URL must reach PostgreSQL itself/);
  });

  it('let three instances starting together on a fresh database through the pooler migrate it exactly once', async () => {
    const other = await freshDatabase('pooler_migrate3');
    try {
      const servers = await Promise.all([1, 2, 3].map(() => startTestServer(behindPoolerEnv(other.url))));
      try {
        expect((await Promise.all(servers.map((s) => s.http.get('/readyz')))).map((r) => r.status)).toEqual([200, 200, 200]);
        const applied = await servers[0]!.sql<{ name: string }>('select name from mikro_orm_migrations order by id');
        expect(applied.length).toBeGreaterThan(0);
        expect(new Set(applied.map((m) => m.name)).size).toBe(applied.length);
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
    } finally {
      await other.drop();
    }
  });

  it("the operators' tool runs through the pooler, migrating directly", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-pooler-'));
    try {
      const env = { ...behindPoolerEnv(worker()), DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(32) };
      const list = await runTool('src/admin.js', ['list'], env);
      expect(list).toMatchObject({ code: 0, stderr: '' });
      expect(list.stdout).toMatch(/^No operators/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
