import DataLoader from 'dataloader';
import type { Database } from '../../db/database.js';
import { userViewSource } from '../account/account.repository.js';
import type { UserFields } from '../account/user.view.js';
import { RefreshToken } from './refresh-token.entity.js';
import { Session } from './session.entity.js';

export interface NewSession {
  id: string;
  userId: string;
  userAgent: string | null;
  ip: string | null;
  refreshTokenHash: string;
  ttlSeconds: number;
  amr: string[];
  /** When its methods were proven: the sign-in. */
  authTime: Date;
}

/** A session's subject and how it was signed in: what its next access token says. */
export interface SessionFactors {
  sessionId: string;
  userId: string;
  amr: string[];
  authTime: Date;
}

const WEEK_MS = 7 * 86400_000;

/** Per-request checks asked in one statement at most. */
const LIVE_CHECK_BATCH = 200;

/** What the list of a user's live sessions shows of each. */
export type LiveSession = Pick<Session, 'id' | 'createdAt' | 'lastUsedAt' | 'userAgent' | 'ip'>;

/** A live session's user row, and whether the session's lastUsedAt is over a minute old. */
type LiveSessionUser = UserFields & { stale: boolean };

/** The `sessions` and `refresh_tokens` tables. */
export class SessionRepository {
  private readonly sql: {
    create: string;
    lockSession: string;
    useToken: string;
    replay: string;
    holder: string;
    extend: string;
    reuse: string;
    liveUser: string;
    liveUsers: string;
    touch: string;
    stepUp: string;
    retireTokens: string;
    listLive: string;
    countLive: string;
    lastUse: string;
  };

  /**
   * The per-request checks of one turn of the event loop, asked in one statement: under load, fifty
   * requests in flight cost one round trip and one pool connection instead of fifty. Nothing is
   * cached (each check reads the database afresh). As Nagle's algorithm sends a lone packet at once:
   * with no check waiting for the database, a check is sent at once (one request in flight waits for
   * nothing); while one is out, the checks that come meanwhile wait at most for the I/O callbacks of
   * their turn to be gathered.
   */
  private readonly liveLoader: DataLoader<{ sessionId: string; userId: string }, LiveSessionUser | undefined>;
  /** Batches of checks sent and not yet answered. */
  private checksOut = 0;

  constructor(private readonly db: Database) {
    const s = db.names(Session);
    const r = db.names(RefreshToken);
    const u = userViewSource(db, 'u');
    const liveCheck = `select ${u.columns}, s.${s.id} as "sessionId", s.${s.user} as "sessionUserId",
                              s.${s.lastUsedAt} < now() - interval '60 seconds' as stale
                         from ${s.table} s join ${u.from} on ${u.id} = s.${s.user}
                        where s.${s.revokedAt} is null and s.${s.expiresAt} > now() and ${u.active} and`;
    this.sql = {
      // Every sign-in runs it: the session and its first refresh token in one prepared statement,
      // both expiring on the database's clock (the one rotations extend by).
      create: `with s as (insert into ${s.table} (${s.id}, ${s.user}, ${s.expiresAt}, ${s.userAgent}, ${s.ip}, ${s.amr}, ${s.authTime})
                          values ($1, $2, now() + make_interval(secs => $3), $4, $5, $6::text[], $8) returning ${s.id} as id, ${s.expiresAt} as expires_at)
               insert into ${r.table} (${r.tokenHash}, ${r.session}, ${r.expiresAt}) select $7, s.id, s.expires_at from s`,
      // The token's session, taken before the token: a deletion of the account takes its sessions
      // and then their tokens, so a rotation taking them in the other order could deadlock with it.
      // Not for a blocked account (a block written in SQL leaves its sessions): its token is left
      // as it was, unused, and the caller answers ACCOUNT_BLOCKED.
      lockSession: `select s.${s.id} from ${r.table} r join ${s.table} s on s.${s.id} = r.${r.session} join ${u.from} on ${u.id} = s.${s.user}
                     where r.${r.tokenHash} = $1 and ${u.active} for no key update of s`,
      // Conditional update: of concurrent rotations of one token, exactly one gets its row back.
      useToken: `update ${r.table} set ${r.usedAt} = now()
                  where ${r.tokenHash} = $1 and ${r.usedAt} is null and ${r.expiresAt} > now()
                  returning ${r.session} as "sessionId"`,
      // A token used within the grace window whose successor is still unused: the successor is then
      // the session's live token (a rotation or a step-up would have used it), and nothing newer exists.
      replay: `select p.${r.session} as "sessionId" from ${r.table} p join ${r.table} c on c.${r.tokenHash} = $2 and c.${r.session} = p.${r.session}
                where p.${r.tokenHash} = $1 and p.${r.usedAt} >= now() - make_interval(secs => $3)
                  and c.${r.usedAt} is null and c.${r.expiresAt} > now()`,
      // The session of a token its holder may still present: unused and unexpired, or used within
      // the grace window (its successor may not have reached the holder). Live or not: the caller tells.
      holder: `select r.${r.session} as "sessionId", s.${s.user} as "userId", s.${s.amr} as amr, s.${s.authTime} as "authTime"
                 from ${r.table} r join ${s.table} s on s.${s.id} = r.${r.session}
                where r.${r.tokenHash} = $1 and ((r.${r.usedAt} is null and r.${r.expiresAt} > now()) or r.${r.usedAt} >= now() - make_interval(secs => $2))`,
      // Conditional on the session being live, judged and extended on the database's clock.
      extend: `update ${s.table} set ${s.lastUsedAt} = now(), ${s.expiresAt} = now() + make_interval(secs => $2)
                where ${s.id} = $1 and ${s.revokedAt} is null
                returning ${s.user} as "userId", ${s.amr} as amr, ${s.authTime} as "authTime"`,
      // On the database's clock, the one that stamped used_at.
      reuse: `select r.${r.session} as "sessionId", s.${s.user} as "userId",
                     (r.${r.usedAt} is not null and r.${r.usedAt} < now() - make_interval(secs => $2)) as reused,
                     (s.${s.revokedAt} is not null or s.${s.expiresAt} <= now()) as ended
                from ${r.table} r join ${s.table} s on s.${s.id} = r.${r.session} where r.${r.tokenHash} = $1`,
      // The per-request check: one indexed, prepared query that also returns the user row. Asked
      // alone (one request in flight), by session and user, which PostgreSQL plans as two index
      // lookups whatever its statistics say; for all the sessions asked about at about the same
      // moment, by an array (see liveUser). The array form's generic plan assumes ten keys and, on
      // tables of a few hundred rows, scans them: for one key it took 120 us more a request.
      liveUser: `${liveCheck} s.${s.id} = $1 and s.${s.user} = $2`,
      liveUsers: `${liveCheck} s.${s.id} = any($1::uuid[])`,
      // Prepared, as it follows the per-request check.
      touch: `update ${s.table} set ${s.lastUsedAt} = now() where ${s.id} = $1`,
      // Conditional on the session being live and its account not blocked (as the per-request check
      // judges it): the methods gained are appended once each, in order, and the session's expiry
      // slides as a rotation's does.
      stepUp: `update ${s.table} s
                  set ${s.amr} = array(select m from unnest(s.${s.amr} || $3::text[]) with ordinality as t(m, n) group by m order by min(n)),
                      ${s.authTime} = $4, ${s.lastUsedAt} = now(), ${s.expiresAt} = now() + make_interval(secs => $5)
                 from ${u.from}
                where s.${s.id} = $1 and s.${s.user} = $2 and ${u.id} = s.${s.user} and s.${s.revokedAt} is null and s.${s.expiresAt} > now() and ${u.active}
                returning s.${s.amr} as amr`,
      // The session's unused refresh tokens, used as a rotation uses one: presented again they are a
      // refresh within the grace window, or a reuse after it.
      retireTokens: `update ${r.table} set ${r.usedAt} = now() where ${r.session} = $1 and ${r.usedAt} is null`,
      // Prepared reads of a signed-in user's first screen (its sessions, their count): MikroORM's
      // find and count cost several times the CPU of the statement for these rows.
      listLive: `select ${s.id} as id, ${s.createdAt} as "createdAt", ${s.lastUsedAt} as "lastUsedAt", ${s.userAgent} as "userAgent", ${s.ip} as ip
                   from ${s.table} where ${s.user} = $1 and ${s.revokedAt} is null and ${s.expiresAt} > now()
                  order by ${s.createdAt} desc, ${s.id}`,
      countLive: `select count(*)::int as n from ${s.table} where ${s.user} = $1 and ${s.revokedAt} is null and ${s.expiresAt} > now()`,
      // Sessions not revoked only: the partial index on the user serves them (a revoked one counts from its sign-in).
      lastUse: `select max(${s.lastUsedAt}) as at from ${s.table} where ${s.user} = $1 and ${s.revokedAt} is null`,
    };
    this.liveLoader = new DataLoader((keys) => this.liveUsers(keys), {
      cache: false,
      maxBatchSize: LIVE_CHECK_BATCH,
      // (the microtask runs once the caller's synchronous code has added its key)
      batchScheduleFn: (run) => (this.checksOut === 0 ? queueMicrotask(run) : setImmediate(run)),
    });
  }

  /** The session and its first refresh token, in one statement. */
  async create(session: NewSession): Promise<void> {
    const { id, userId, ttlSeconds, userAgent, ip, amr, refreshTokenHash, authTime } = session;
    await this.db.rows(this.sql.create, [id, userId, ttlSeconds, userAgent, ip, amr, refreshTokenHash, authTime], 'session_create');
  }

  /**
   * Marks a live refresh token used, extends its session and stores its successor `nextTokenHash`,
   * in one transaction. A token used within the last `graceSeconds` whose successor is still unused
   * is answered the same way, storing nothing (the successor was stored by its first rotation).
   * `undefined` when neither holds or the session has ended.
   *
   * Every rotation of one token waits for the session's lock: the first stores the successor and
   * commits, the others then find the token used and the successor stored, on any instance.
   */
  rotate(tokenHash: string, nextTokenHash: string, ttlSeconds: number, graceSeconds: number): Promise<SessionFactors | undefined> {
    return this.db.transaction(async () => {
      if (!(await this.db.one(this.sql.lockSession, [tokenHash]))) return undefined;
      const used = await this.db.one<{ sessionId: string }>(this.sql.useToken, [tokenHash]);
      const sessionId = used?.sessionId ?? (await this.db.one<{ sessionId: string }>(this.sql.replay, [tokenHash, nextTokenHash, graceSeconds]))?.sessionId;
      if (!sessionId) return undefined;
      // Explicit SQL reads timestamps as strings (MikroORM's pg type parsers).
      const session = await this.db.one<{ userId: string; amr: string[]; authTime: string }>(this.sql.extend, [sessionId, ttlSeconds]);
      if (!session) return undefined;
      if (used) await this.db.em().insert(RefreshToken, { tokenHash: nextTokenHash, session: sessionId, expiresAt: new Date(Date.now() + ttlSeconds * 1000) });
      return { sessionId, userId: session.userId, amr: session.amr, authTime: new Date(session.authTime) };
    });
  }

  /**
   * Upgrades a live session after a step-up: its methods gain `added`, they were proven at `authTime`,
   * and `nextTokenHash` becomes its only live refresh token. `undefined` (nothing changed) when the
   * session has ended or its account is blocked.
   */
  stepUp(step: { sessionId: string; userId: string; added: readonly string[]; authTime: Date; nextTokenHash: string; ttlSeconds: number }): Promise<{ amr: string[] } | undefined> {
    const { sessionId, userId, added, authTime, nextTokenHash, ttlSeconds } = step;
    return this.db.transaction(async () => {
      const upgraded = await this.db.one<{ amr: string[] }>(this.sql.stepUp, [sessionId, userId, added, authTime, ttlSeconds]);
      if (!upgraded) return undefined;
      await this.db.rows(this.sql.retireTokens, [sessionId]);
      await this.db.em().insert(RefreshToken, { tokenHash: nextTokenHash, session: sessionId, expiresAt: new Date(Date.now() + ttlSeconds * 1000) });
      return upgraded;
    });
  }

  /** The session of a refresh token that is unused, or was used within the last `graceSeconds`; live or not. */
  async holderOf(tokenHash: string, graceSeconds: number): Promise<SessionFactors | undefined> {
    const row = await this.db.one<Omit<SessionFactors, 'authTime'> & { authTime: string }>(this.sql.holder, [tokenHash, graceSeconds]);
    return row && { ...row, authTime: new Date(row.authTime) };
  }

  /**
   * A known token's session and user, whether it was used longer than `graceSeconds` ago, and whether
   * its session has ended (revoked or expired).
   */
  reuseOf(tokenHash: string, graceSeconds: number): Promise<{ sessionId: string; userId: string; reused: boolean; ended: boolean } | undefined> {
    return this.db.one(this.sql.reuse, [tokenHash, graceSeconds]);
  }

  /**
   * The user of a live session of `userId`, and whether its lastUsedAt is over a minute old. Inside a
   * transaction, on its connection and at once; elsewhere batched with the checks of the same turn.
   */
  async liveUser(sessionId: string, userId: string): Promise<LiveSessionUser | undefined> {
    if (this.db.inTransaction()) return (await this.liveUsers([{ sessionId, userId }]))[0];
    return this.liveLoader.load({ sessionId, userId });
  }

  /** Each key's live session user, undefined where the session is not live or not of that user. */
  private async liveUsers(keys: readonly { sessionId: string; userId: string }[]): Promise<(LiveSessionUser | undefined)[]> {
    this.checksOut++;
    try {
      return await this.liveUsersNow(keys);
    } finally {
      this.checksOut--;
    }
  }

  private async liveUsersNow(keys: readonly { sessionId: string; userId: string }[]): Promise<(LiveSessionUser | undefined)[]> {
    type Row = LiveSessionUser & { sessionId: string; sessionUserId: string };
    const [only] = keys;
    const rows =
      keys.length === 1
        ? await this.db.rows<Row>(this.sql.liveUser, [only!.sessionId, only!.userId], 'session_live_user')
        : await this.db.rows<Row>(this.sql.liveUsers, [[...new Set(keys.map((key) => key.sessionId))]], 'session_live_users');
    const bySession = new Map(rows.map((row) => [row.sessionId, row]));
    return keys.map(({ sessionId, userId }) => {
      const row = bySession.get(sessionId);
      if (!row || row.sessionUserId !== userId) return undefined;
      const { sessionId: _session, sessionUserId: _user, ...user } = row;
      return user;
    });
  }

  async touch(sessionId: string): Promise<void> {
    await this.db.rows(this.sql.touch, [sessionId], 'session_touch');
  }

  /** Live sessions of a user, newest first. */
  async listLive(userId: string): Promise<LiveSession[]> {
    // Timestamps come as the database writes them (the pool parses no dates).
    const rows = await this.db.rows<LiveSession & { createdAt: Date | string; lastUsedAt: Date | string }>(this.sql.listLive, [userId], 'session_list_live');
    return rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt), lastUsedAt: new Date(row.lastUsedAt) }));
  }

  /** The last use of any session of the user not revoked (live or expired), if there is one. */
  async lastUse(userId: string): Promise<Date | null> {
    const at = (await this.db.one<{ at: Date | string | null }>(this.sql.lastUse, [userId], 'session_last_use'))?.at ?? null;
    return at === null ? null : new Date(at);
  }

  async countLive(userId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(this.sql.countLive, [userId], 'session_count_live'))?.n ?? 0;
  }

  /** Live sessions of each of `userIds` (absent: none). */
  async countLiveOf(userIds: string[]): Promise<Map<string, number>> {
    if (userIds.length === 0) return new Map();
    const s = this.db.names(Session);
    const rows = await this.db.rows<{ user_id: string; live: number }>(
      `select ${s.user} as user_id, count(*)::int as live from ${s.table}
        where ${s.user} = any($1::uuid[]) and ${s.revokedAt} is null and ${s.expiresAt} > now() group by ${s.user}`,
      [userIds],
    );
    return new Map(rows.map((row) => [row.user_id, row.live]));
  }

  /** Revokes one live session of this user; false when there is none with that id. */
  async revokeOwn(userId: string, sessionId: string): Promise<boolean> {
    const revoked = await this.db
      .em()
      .nativeUpdate(Session, { id: sessionId, user: userId, revokedAt: null, expiresAt: { $gt: new Date() } }, { revokedAt: new Date() });
    return revoked > 0;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db.em().nativeUpdate(Session, { id: sessionId, revokedAt: null }, { revokedAt: new Date() });
  }

  async revokeAllOf(userId: string, exceptSessionId?: string): Promise<void> {
    const except = exceptSessionId ? { id: { $ne: exceptSessionId } } : {};
    await this.db.em().nativeUpdate(Session, { user: userId, revokedAt: null, ...except }, { revokedAt: new Date() });
  }

  /** Expired refresh tokens, and sessions that ended (revoked or expired) more than a week ago. */
  async sweepExpired(): Promise<Record<string, number>> {
    const em = this.db.em();
    const now = Date.now();
    const weekAgo = new Date(now - WEEK_MS);
    return {
      refreshTokens: await em.nativeDelete(RefreshToken, { expiresAt: { $lt: new Date(now) } }),
      sessions: await em.nativeDelete(Session, { $or: [{ revokedAt: { $lt: weekAgo } }, { revokedAt: null, expiresAt: { $lt: weekAgo } }] }),
    };
  }
}

/**
 * The number of live sessions of the user `userId` (an SQL expression), as a scalar subquery: for the
 * one statement outside this file that counts them, the personal statistics (see StatsRepository).
 */
export function liveSessionCountOf(db: Database, userId: string): string {
  const s = db.names(Session);
  return `(select count(*)::int from ${s.table} where ${s.user} = ${userId} and ${s.revokedAt} is null and ${s.expiresAt} > now())`;
}
