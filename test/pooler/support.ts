// What the tests through a transaction-mode pooler share: the PgBouncer npm test starts in front of
// PostgreSQL (test/run.mjs, test/pgbouncer.mjs), the environment of a service behind it, fresh
// databases, and the tools run as processes of their own.
import { describe, it } from '@jest/globals';
import pg from 'pg';
import { throughPooler } from '../helpers/server.js';
import { serviceOutputLog } from '../helpers/suite-log.js';
import { runScript, type ScriptRun } from '../operability/support.js';

/**
 * Why these tests cannot run, if they cannot: they run in npm test's PostgreSQL pass, where it starts a
 * pgbouncer (TEST_PGBOUNCER_PORT), and skip with a printed reason elsewhere; in CI a missing pgbouncer fails them.
 */
const SKIP = process.env.TEST_EMBEDDED_DATABASE
  ? 'they run in the PostgreSQL pass of npm test (the embedded database has no pooler in front of it)'
  : process.env.TEST_PGBOUNCER_PORT
    ? undefined
    : (process.env.TEST_PGBOUNCER_SKIP ?? 'TEST_PGBOUNCER_PORT is not set (npm test starts a pgbouncer when one is installed)');

/** A describe block that needs the run's pgbouncer: skipped, saying why, without it (failed instead in CI on PostgreSQL). */
export function describeBehindPooler(name: string, body: () => void): void {
  if (!SKIP) return describe(name, body);
  if (process.env.CI && !process.env.TEST_EMBEDDED_DATABASE) {
    return describe(name, () => it('needs pgbouncer', () => {
      throw new Error(`${SKIP}: CI must test the service behind a transaction-mode pooler (apt-get install -y pgbouncer)`);
    }));
  }
  console.warn(`skipping "${name}": ${SKIP}`);
  describe.skip(name, body);
}

/** The port of the run's pgbouncer (pool_mode = transaction, ignore_startup_parameters = extra_float_digits). */
export const poolerPort = (): number => Number(process.env.TEST_PGBOUNCER_PORT);

/** The service's database settings behind the run's pgbouncer: DATABASE_URL through it, migrations direct. */
export function behindPoolerEnv(directUrl = process.env.TEST_WORKER_DATABASE_URL!): Record<string, string> {
  return { DATABASE_URL: throughPooler(directUrl, poolerPort()), DATABASE_DIRECT_URL: directUrl, DATABASE_POOL_MODE: 'transaction' };
}

/** A database of this worker's own, emptied: its URL and a function that drops it. */
export async function freshDatabase(suffix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const worker = new URL(process.env.TEST_WORKER_DATABASE_URL!);
  const name = `${worker.pathname.slice(1)}_${suffix}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: worker.toString() });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`drop database if exists "${name}" with (force)`);
  await admin(`create database "${name}"`);
  return { url: Object.assign(new URL(worker), { pathname: `/${name}` }).toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

/** Runs `node dist/<script>` with exactly `env` (plus PATH and NODE_ENV=test). */
export function runTool(script: string, args: string[], env: Record<string, string>): Promise<ScriptRun> {
  return runScript(script, args, { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'test', ...env });
}
