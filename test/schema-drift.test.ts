import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { migrate, openOrm, type MikroORM } from '../src/db/orm.js';

const embedded = !!process.env.TEST_EMBEDDED_DATABASE;

/**
 * The migrations define the schema; the entities must describe exactly that schema, or the ORM
 * reads and writes columns that are not there (as `User` once lacked `login_count`). MikroORM's
 * schema generator, asked what it would change to make the database match the entities, must
 * answer nothing.
 */
describe('entities and migrations', () => {
  const url = new URL(process.env.TEST_WORKER_DATABASE_URL!);
  // The embedded database is one database with a single owner: it is migrated in place (the
  // migrations are idempotent and no test creates tables of its own). PostgreSQL gets a fresh one.
  const name = `${url.pathname.slice(1)}_drift`;
  const targetUrl = embedded ? url.toString() : Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const admin = new pg.Client({ connectionString: url.toString() });
  let orm: MikroORM;

  beforeAll(async () => {
    if (!embedded) {
      await admin.connect();
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.query(`create database "${name}"`);
    }
    orm = await openOrm({ url: targetUrl, poolSize: 1, limits: embedded ? 'none' : 'startup' });
    await migrate(orm);
  });
  afterAll(async () => {
    await orm?.close(true);
    if (!embedded) {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });

  it('describe exactly the schema the migrations create', async () => {
    const sql = (await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim();
    // Printed in full so that the failure says which column, index or constraint differs.
    expect(sql === '' ? 'no difference' : `the entities want this SQL run on the migrated database:\n${sql}`).toBe('no difference');
  });
});
