import type { Config } from '../config/config.js';
import { redactUrl } from '../shared/url.js';
import { CONNECT_TIMEOUT_MS, migrate, openOrm, STATEMENT_LIMITS, type Limits, type MikroORM } from './orm.js';
import { assertOwnSessions, PoolModeError } from './session-check.js';

/**
 * How the service uses its database, decided once from the configuration (API.md 9.4). Everything
 * that differs between a direct connection, a transaction-mode pooler and the embedded database is
 * read from here by `server.ts`, `admin.ts` and `migrate.ts`; repositories and services never see it.
 */
export interface DatabasePlan {
  /** Where the service's pool connects: DATABASE_URL, or the embedded database's socket. */
  url: string;
  /**
   * `session`: every pooled connection is a PostgreSQL session of its own (PostgreSQL itself, or a
   * session pooler); `transaction`: only for one transaction (DATABASE_POOL_MODE=transaction);
   * `embedded`: PGlite, one session behind a pool of one connection.
   */
  connections: 'session' | 'transaction' | 'embedded';
  poolSize: number;
  /** Named prepared statements on hot paths (Database.rows with a name). */
  namedStatements: boolean;
  limits: Limits;
  migrations: MigrationTarget;
}

/** Where migrations run and hold their session-level lock, or why they cannot run at all. */
type MigrationTarget = { url: string; variable: string; lock: boolean; limits: Limits } | { refused: string };

export function databasePlan(config: Config, embeddedUrl?: string): DatabasePlan {
  const { url, directUrl, poolMode, poolSize, preparedStatements } = config.database;
  if (!url) {
    const embedded = embeddedUrl!;
    return { url: embedded, connections: 'embedded', poolSize: 1, namedStatements: false, limits: 'none', migrations: { url: embedded, variable: 'the embedded database', lock: false, limits: 'none' } };
  }
  // Session mode without named statements keeps no startup parameter either: it is the setting for
  // servers that take neither (PGlite's socket server, where every connection shares one session).
  const limits: Limits = poolMode === 'transaction' ? 'transaction' : preparedStatements ? 'startup' : 'none';
  let migrations: MigrationTarget;
  if (directUrl) migrations = { url: directUrl, variable: 'DATABASE_DIRECT_URL', lock: true, limits: 'startup' };
  else if (poolMode === 'session') migrations = { url, variable: 'DATABASE_URL', lock: true, limits };
  else migrations = { refused: MIGRATIONS_NEED_DIRECT_URL };
  return { url, connections: poolMode, poolSize, namedStatements: poolMode === 'session' && preparedStatements, limits, migrations };
}

const MIGRATIONS_NEED_DIRECT_URL =
  'Migrations cannot run through a transaction-mode pooler (DATABASE_POOL_MODE=transaction): they hold a session-level advisory lock and change the schema. ' +
  'Set DATABASE_DIRECT_URL to PostgreSQL itself (postgres://user:password@postgres-host:5432/database, not the pooler), ' +
  'or set MIGRATE_ON_START=false and run npm run migrate with DATABASE_DIRECT_URL set.';

/** Throws the refusal when the plan has nowhere to migrate, before anything is opened. */
export function assertMigratable(plan: DatabasePlan): void {
  if ('refused' in plan.migrations) throw new PoolModeError(plan.migrations.refused);
}

const SESSION_MODE_REMEDY =
  'Behind a transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy) set DATABASE_POOL_MODE=transaction, with DATABASE_DIRECT_URL set to PostgreSQL itself for the migrations.';
const DIRECT_URL_REMEDY = "DATABASE_DIRECT_URL must reach PostgreSQL itself (its host and port, not the pooler's): migrations hold a session-level lock and change the schema.";

/**
 * Checks, before anything uses them, that the connections the plan treats as sessions of their own
 * are: the service's (`service`) in session mode, and where migrations take their lock
 * (`migrations`). A PoolModeError says what to set otherwise. Transaction mode assumes nothing of
 * its connections, and the embedded database is the service's own.
 */
export async function checkSessions(plan: DatabasePlan, { service, migrations }: { service: boolean; migrations: boolean }): Promise<void> {
  const serviceChecked = service && plan.connections === 'session';
  if (serviceChecked) {
    await assertOwnSessions({ variable: 'DATABASE_URL', url: plan.url, startup: startupOf(plan.limits), namedStatements: plan.namedStatements, remedy: SESSION_MODE_REMEDY, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
  const target = plan.migrations;
  if (!migrations || !('url' in target) || !target.lock || (serviceChecked && target.url === plan.url)) return;
  const remedy = target.variable === 'DATABASE_DIRECT_URL' ? DIRECT_URL_REMEDY : SESSION_MODE_REMEDY;
  await assertOwnSessions({ variable: target.variable, url: target.url, startup: startupOf(target.limits), namedStatements: false, remedy, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
}

const startupOf = (limits: Limits) => (limits === 'startup' ? STATEMENT_LIMITS : {});

/**
 * Applies pending migrations where the plan says: on `orm` (the service's own) when that is where
 * they run, else on an ORM of their own for DATABASE_DIRECT_URL, closed afterwards.
 */
export async function migrateAsPlanned(plan: DatabasePlan, orm?: MikroORM): Promise<string[]> {
  assertMigratable(plan);
  const target = plan.migrations as Exclude<MigrationTarget, { refused: string }>;
  const lockUrl = target.lock ? target.url : undefined;
  if (orm && target.url === plan.url) return migrate(orm, lockUrl);
  const own = await openOrm({ url: target.url, poolSize: 1, limits: target.limits });
  try {
    return await migrate(own, lockUrl);
  } finally {
    await own.close(true);
  }
}

/** The plan in words, for the start-up summary. */
export function describePlan(plan: DatabasePlan): string {
  if (plan.connections !== 'transaction') return `PostgreSQL ${redactUrl(plan.url)}`;
  const target = plan.migrations;
  return `PostgreSQL through a transaction-mode pooler, ${redactUrl(plan.url)} (migrations: ${'url' in target ? redactUrl(target.url) : 'refused without DATABASE_DIRECT_URL'})`;
}

export { PoolModeError };
