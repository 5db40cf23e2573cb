import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startTestServer, type TestServer } from './helpers/server.js';

// Several instances of one database need PostgreSQL; the embedded database has a single owner.
const onPostgres = process.env.TEST_EMBEDDED_DATABASE ? describe.skip : describe;
if (process.env.TEST_EMBEDDED_DATABASE) console.warn('skipping "migrations": several instances of one database need PostgreSQL');

onPostgres('migrations', () => {
  const url = new URL(process.env.TEST_WORKER_DATABASE_URL!);
  const name = `${url.pathname.slice(1)}_fresh`;
  const freshUrl = Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const admin = new pg.Client({ connectionString: url.toString() });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  });
  afterAll(async () => {
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  });

  it('lets three instances start together on a fresh database, migrating it once', async () => {
    const servers: TestServer[] = await Promise.all([1, 2, 3].map(() => startTestServer({ DATABASE_URL: freshUrl })));
    try {
      const ready = await Promise.all(servers.map((s) => s.http.get('/readyz')));
      expect(ready.map((r) => r.status)).toEqual([200, 200, 200]);
      const applied = await servers[0]!.sql<{ name: string }>('select name from mikro_orm_migrations order by id');
      expect(new Set(applied.map((m) => m.name)).size).toBe(applied.length);
      expect(applied.length).toBeGreaterThan(0);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});
