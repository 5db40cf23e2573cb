import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { NicknameGrams } from '../modules/account/nickname-grams.routine.js';
import { User } from '../modules/account/user.entity.js';
import { VerificationCode } from '../modules/auth/verification-code.entity.js';
import { RefreshToken } from '../modules/session/refresh-token.entity.js';
import { Session } from '../modules/session/session.entity.js';
import { MeetingUsage } from '../modules/stats/meeting-usage.entity.js';
import { UserMeetingRole } from '../modules/stats/user-meeting-role.entity.js';
import { UserMeetingTotals } from '../modules/stats/user-meeting-totals.entity.js';
import { UserMeeting } from '../modules/stats/user-meeting.entity.js';
import { RateLimit } from '../shared/rate-limit/rate-limit.entity.js';
import { SecurityEvent } from '../modules/security-event/security-event.entity.js';
import { AuditEntry } from '../modules/audit/audit-entry.entity.js';
import { WebhookDelivery } from '../modules/webhook/webhook-delivery.entity.js';
import { MfaChallenge } from '../modules/mfa/mfa-challenge.entity.js';
import { RecoveryCode } from '../modules/mfa/recovery-code.entity.js';
import { TotpFactor } from '../modules/mfa/totp-factor.entity.js';
import { Passkey } from '../modules/passkey/passkey.entity.js';
import { WebAuthnChallenge } from '../modules/passkey/webauthn-challenge.entity.js';
import { Migration20261121000000 } from './migrations/Migration20261121000000.js';
import { Migration20261121130000 } from './migrations/Migration20261121130000.js';
import { Migration20261121140000 } from './migrations/Migration20261121140000.js';
import { Migration20261124000000 } from './migrations/Migration20261124000000.js';
import { Migration20261124120000 } from './migrations/Migration20261124120000.js';
import { Migration20261125000000 } from './migrations/Migration20261125000000.js';
import { Migration20261125010000 } from './migrations/Migration20261125010000.js';
import { Migration20261125020000 } from './migrations/Migration20261125020000.js';
import { Migration20261125030000 } from './migrations/Migration20261125030000.js';
import { Migration20261125040000 } from './migrations/Migration20261125040000.js';
import { Migration20261125050000 } from './migrations/Migration20261125050000.js';
import { Migration20261125060000 } from './migrations/Migration20261125060000.js';
import { Migration20261125070000 } from './migrations/Migration20261125070000.js';
import { Migration20261125080000 } from './migrations/Migration20261125080000.js';
import { Migration20261126090000 } from './migrations/Migration20261126090000.js';
import { Migration20261126091000 } from './migrations/Migration20261126091000.js';
import { Migration20261126100000 } from './migrations/Migration20261126100000.js';
import { Migration20261128061000 } from './migrations/Migration20261128061000.js';
import { Migration20261128062000 } from './migrations/Migration20261128062000.js';
import { Migration20261128090000 } from './migrations/Migration20261128090000.js';
import { PhoneChange } from '../modules/phone-change/phone-change.entity.js';
import { ExternalIdentity } from '../modules/identity/identity.entity.js';
import { IdentityTicket } from '../modules/identity/identity-ticket.entity.js';
import { OidcFlow } from '../modules/identity/oidc-flow.entity.js';
import { UsedIdToken } from '../modules/identity/used-id-token.entity.js';
import { transactionPoolingClient } from './transaction-pooling.js';

/**
 * How the server-side limits (STATEMENT_LIMITS) reach PostgreSQL: as startup parameters of each
 * connection (a session of its own), inside each transaction (behind a transaction-mode pooler,
 * which keeps no session settings), or not at all (the embedded database, which runs one statement
 * at a time anyway).
 */
export type Limits = 'startup' | 'transaction' | 'none';

export interface OrmOptions {
  url: string;
  poolSize: number;
  /** 'startup' unless said otherwise. */
  limits?: Limits;
}

/**
 * An unreachable database must cost a bounded time per request (then 503), never a hang: connecting
 * gives up after 2 s, a query after 10 s (client side, and server side where supported).
 */
export const CONNECT_TIMEOUT_MS = 2_000;
const QUERY_TIMEOUT_MS = 10_000;

/** The server-side limits of every statement the service runs. */
export const STATEMENT_LIMITS: Readonly<Record<string, number>> = { statement_timeout: QUERY_TIMEOUT_MS };

/** Migrations are listed explicitly so that the same list runs from source (tests) and from dist. */
const migrations = [
  { name: 'Migration20261121000000', class: Migration20261121000000 },
  { name: 'Migration20261121130000', class: Migration20261121130000 },
  { name: 'Migration20261121140000', class: Migration20261121140000 },
  { name: 'Migration20261124000000', class: Migration20261124000000 },
  { name: 'Migration20261124120000', class: Migration20261124120000 },
  { name: 'Migration20261125000000', class: Migration20261125000000 },
  { name: 'Migration20261125010000', class: Migration20261125010000 },
  { name: 'Migration20261125020000', class: Migration20261125020000 },
  { name: 'Migration20261125030000', class: Migration20261125030000 },
  { name: 'Migration20261125040000', class: Migration20261125040000 },
  { name: 'Migration20261125050000', class: Migration20261125050000 },
  { name: 'Migration20261125060000', class: Migration20261125060000 },
  { name: 'Migration20261125070000', class: Migration20261125070000 },
  { name: 'Migration20261125080000', class: Migration20261125080000 },
  { name: 'Migration20261126090000', class: Migration20261126090000 },
  { name: 'Migration20261126091000', class: Migration20261126091000 },
  { name: 'Migration20261126100000', class: Migration20261126100000 },
  { name: 'Migration20261128061000', class: Migration20261128061000 },
  { name: 'Migration20261128062000', class: Migration20261128062000 },
  { name: 'Migration20261128090000', class: Migration20261128090000 },
];

/**
 * One entity per table the migrations create, listed like the migrations so that source and dist
 * load the same set; test/schema-drift.test.ts fails when they and the migrations disagree.
 */
const entities = [User, Session, RefreshToken, VerificationCode, RateLimit, MeetingUsage, UserMeeting, UserMeetingRole, UserMeetingTotals, SecurityEvent, AuditEntry, WebhookDelivery, TotpFactor, RecoveryCode, MfaChallenge, Passkey, WebAuthnChallenge, ExternalIdentity, OidcFlow, IdentityTicket, UsedIdToken, PhoneChange];

function ormConfig({ url, poolSize, limits = 'startup' }: OrmOptions): Options {
  return defineConfig({
    clientUrl: url,
    entities,
    routines: [NicknameGrams],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, silent: true, snapshot: false },
    pool: { min: 0, max: poolSize, idleTimeoutMillis: 30_000 },
    driverOptions: {
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      ...(limits === 'startup' ? STATEMENT_LIMITS : {}),
      // pg's pool builds its connections from this class (pg-pool's `Client` option).
      ...(limits === 'transaction' ? { Client: transactionPoolingClient(STATEMENT_LIMITS) } : {}),
      keepAlive: true,
    },
    allowGlobalContext: false,
    debug: false,
  });
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

// Any constant shared by every instance; it names the lock, nothing more.
const MIGRATION_LOCK = 4_127_733_019;

/**
 * Applies pending migrations; returns the names applied. With `lockUrl`, a session-level advisory
 * lock on a connection of its own serialises instances that start together on one database
 * (without it, the second fails creating the migrations table). The embedded database has a single
 * owner and one connection, so it needs no lock.
 */
export async function migrate(orm: MikroORM, lockUrl?: string): Promise<string[]> {
  if (!lockUrl) return (await orm.migrator.up()).map((m) => m.name);
  const lock = new pg.Client({ connectionString: lockUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return (await orm.migrator.up()).map((m) => m.name);
  } finally {
    await lock.end().catch(() => undefined);
  }
}

export type { MikroORM };
