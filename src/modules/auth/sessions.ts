import { randomUUID } from 'node:crypto';
import type { Sql } from '../../db/sql.js';
import { randomToken, sha256Hex } from '../../shared/tokens/secrets.js';
import { unauthenticated } from '../../shared/tokens/access-token.js';
import { USER_COLUMNS, toUserView, type UserRow, type UserView } from '../account/user.view.js';

export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

export interface SessionView {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

interface SessionRow {
  id: string;
  created_at: Date | string;
  last_used_at: Date | string;
  user_agent: string | null;
  ip: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IssuedRefresh {
  sessionId: string;
  userId: string;
  refreshToken: string;
}

export interface SessionSettings {
  refreshTtlSeconds: number;
  refreshReuseGraceSeconds: number;
}

/**
 * Sessions live in the database, so revocation is immediate on every instance. A session's refresh
 * token is single use: rotation marks it used with a conditional update (one concurrent winner), and
 * a used token presented again after the grace window revokes the whole session.
 */
export class Sessions {
  constructor(
    private readonly sql: Sql,
    private readonly settings: SessionSettings,
  ) {}

  async create(userId: string, client: ClientInfo): Promise<IssuedRefresh> {
    const sessionId = randomUUID();
    return this.sql.transaction(async (tx) => {
      await tx.rows(
        `insert into sessions (id, user_id, expires_at, user_agent, ip)
         values ($1, $2, now() + make_interval(secs => $3), $4, $5)`,
        [sessionId, userId, this.settings.refreshTtlSeconds, client.userAgent?.slice(0, 512) ?? null, client.ip?.slice(0, 64) ?? null],
      );
      const refreshToken = await this.issueRefresh(tx, sessionId);
      return { sessionId, userId, refreshToken };
    });
  }

  /** Exchanges a refresh token for a new one; the old one stops working. */
  async rotate(refreshToken: string): Promise<IssuedRefresh> {
    const hash = sha256Hex(refreshToken);
    const rotated = await this.sql.transaction(async (tx) => {
      const used = await tx.one<{ session_id: string }>(
        `update refresh_tokens set used_at = now()
          where token_hash = $1 and used_at is null and expires_at > now()
          returning session_id`,
        [hash],
      );
      if (!used) return undefined;
      const session = await tx.one<{ user_id: string }>(
        `update sessions set last_used_at = now(), expires_at = now() + make_interval(secs => $2)
          where id = $1 and revoked_at is null
          returning user_id`,
        [used.session_id, this.settings.refreshTtlSeconds],
      );
      if (!session) return undefined;
      return { sessionId: used.session_id, userId: session.user_id, refreshToken: await this.issueRefresh(tx, used.session_id) };
    });
    if (rotated) return rotated;
    await this.detectReuse(hash);
    throw unauthenticated('The refresh token is invalid, expired or already used');
  }

  /**
   * The per-request check: the session is live and belongs to the token's subject. One indexed
   * query; `lastUsedAt` is written at most once a minute per session, after the answer is known.
   */
  async liveUser(sessionId: string, userId: string): Promise<UserView | undefined> {
    const row = await this.sql.one<UserRow & { stale: boolean }>(
      `select ${USER_COLUMNS}, s.last_used_at < now() - interval '60 seconds' as stale
         from sessions s join users u on u.id = s.user_id
        where s.id = $1 and s.user_id = $2 and s.revoked_at is null and s.expires_at > now()`,
      [sessionId, userId],
      'session_live_user',
    );
    if (row?.stale) {
      this.sql
        .rows('update sessions set last_used_at = now() where id = $1', [sessionId], 'session_touch')
        .catch(() => undefined); // best effort: a missed touch only makes lastUsedAt a minute older
    }
    return row && toUserView(row);
  }

  /** Live sessions of a user, newest first, the caller's own one marked. */
  async listLive(userId: string, currentSessionId: string): Promise<SessionView[]> {
    const rows = await this.sql.rows<SessionRow>(
      `select id, created_at, last_used_at, user_agent, ip from sessions
        where user_id = $1 and revoked_at is null and expires_at > now()
        order by created_at desc, id`,
      [userId],
    );
    return rows.map((r) => ({
      id: r.id,
      createdAt: new Date(r.created_at),
      lastUsedAt: new Date(r.last_used_at),
      userAgent: r.user_agent,
      ip: r.ip,
      current: r.id === currentSessionId,
    }));
  }

  /** Revokes one live session of this user; false when there is none with that id. */
  async revokeOwn(userId: string, sessionId: string): Promise<boolean> {
    if (!UUID.test(sessionId)) return false;
    const revoked = await this.sql.one(
      `update sessions set revoked_at = now()
        where id = $1 and user_id = $2 and revoked_at is null and expires_at > now()
        returning 1 as ok`,
      [sessionId, userId],
    );
    return Boolean(revoked);
  }

  /** Ends every session of the user except `keepSessionId`. */
  async revokeOthers(userId: string, keepSessionId: string): Promise<void> {
    await this.sql.rows('update sessions set revoked_at = now() where user_id = $1 and id <> $2 and revoked_at is null', [
      userId,
      keepSessionId,
    ]);
  }

  async revoke(sessionId: string): Promise<void> {
    await this.sql.rows('update sessions set revoked_at = now() where id = $1 and revoked_at is null', [sessionId]);
  }

  async revokeAllOf(userId: string): Promise<void> {
    await this.sql.rows('update sessions set revoked_at = now() where user_id = $1 and revoked_at is null', [userId]);
  }

  private async issueRefresh(tx: Sql, sessionId: string): Promise<string> {
    const token = randomToken();
    await tx.rows(
      `insert into refresh_tokens (token_hash, session_id, expires_at) values ($1, $2, now() + make_interval(secs => $3))`,
      [sha256Hex(token), sessionId, this.settings.refreshTtlSeconds],
    );
    return token;
  }

  /**
   * A used token seen again outside the grace window means it leaked: revoke its session. Inside the
   * window it is most likely a client that raced two refreshes, so the session lives on.
   */
  private async detectReuse(hash: string): Promise<void> {
    const token = await this.sql.one<{ session_id: string; reused: boolean }>(
      `select session_id, (used_at is not null and used_at < now() - make_interval(secs => $2)) as reused
         from refresh_tokens where token_hash = $1`,
      [hash, this.settings.refreshReuseGraceSeconds],
    );
    if (token?.reused) await this.revoke(token.session_id);
  }
}
