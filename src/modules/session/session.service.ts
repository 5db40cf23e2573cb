import { randomUUID, type KeyObject } from 'node:crypto';
import type { ClientInfo } from '../../shared/http/request-context.js';
import { oneTimeTokenHash } from '../../shared/tokens/canonical.js';
import { randomToken, sha256Hex, successorToken } from '../../shared/tokens/secrets.js';
import type { Uuid } from '../../shared/ids.js';
import { toUserView, type UserView } from '../account/user.view.js';
import type { WebhookService } from '../webhook/webhook.service.js';
import type { SessionFactors, SessionRepository } from './session.repository.js';
import { AccountEventType, accountMessage } from '../live/account-event.js';
import type { LivePublisher } from '../live/live-transport.js';

export interface SessionView {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

export interface IssuedRefresh {
  sessionId: string;
  userId: string;
  refreshToken: string;
  /** How the session was signed in (RFC 8176), for the access tokens' `amr`. */
  amr: string[];
  /** When those methods were last proven (the sign-in, or a step-up), for the access tokens' `auth_time`. */
  authTime: Date;
}

export type Rotation =
  | { outcome: 'rotated'; issued: IssuedRefresh }
  | { outcome: 'reused'; sessionId: string; userId: string }
  /** A known token whose session has ended (revoked, logged out, expired). */
  | { outcome: 'ended'; userId: string }
  /** `userId`: the account of a token that is known but no longer valid. */
  | { outcome: 'invalid'; userId?: string };

export interface SessionSettings {
  refreshTtlSeconds: number;
  refreshReuseGraceSeconds: number;
  /** Keys the successors of refresh tokens (refreshSuccessorKey). */
  successorKey: KeyObject;
}

/**
 * Sessions live in the database, so revocation is immediate on every instance. A session's refresh
 * token is single use: rotation marks it used with a conditional update (one concurrent winner); a
 * used token presented again within the grace window gets the successor its rotation issued, and
 * after the window it revokes the whole session.
 * A sign-in's session and every revocation are webhook events (`session.created`, `session.revoked`),
 * written in the caller's transaction; a rotation is neither.
 */
export class SessionService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly webhooks: WebhookService,
    private readonly settings: SessionSettings,
    /** Live events: the account's sockets learn of every session that ends (API.md 10.2). */
    private readonly live: LivePublisher,
  ) {}

  /**
   * A sign-in's session, in the caller's transaction. `method`: how it signed in, as the
   * `session.created` event says; `amr`: the methods its tokens name (RFC 8176).
   */
  async create(userId: string, client: ClientInfo, method: string, amr: string[], provider?: string): Promise<IssuedRefresh> {
    const sessionId = randomUUID();
    const refreshToken = randomToken();
    const authTime = new Date();
    await this.sessions.create({
      id: sessionId,
      userId,
      userAgent: client.userAgent ?? null,
      ip: client.ip ?? null,
      refreshTokenHash: sha256Hex(refreshToken),
      ttlSeconds: this.settings.refreshTtlSeconds,
      amr,
      authTime,
    });
    await this.webhooks.enqueue({ type: 'session.created', data: { userId, sessionId, method, ...(provider && { provider }) } });
    return { sessionId, userId, refreshToken, amr, authTime };
  }

  /**
   * Exchanges a refresh token for its successor; the old one stops working. A used token seen again
   * outside the grace window means it leaked: `reused`, for the caller to revoke its session. Inside
   * the window it is most likely a client that raced two refreshes (two tabs): it gets the very
   * successor the first refresh returned (derived from the token, so never stored in clear), as long
   * as that successor is still the session's unused token. Once the successor was used itself (or a
   * step-up replaced it), the old token would bring back a spent one: `invalid`, the session lives on.
   */
  async rotate(refreshToken: string): Promise<Rotation> {
    // Only the token's canonical spelling is looked up: any other is an unknown token, never a reuse.
    const hash = oneTimeTokenHash(refreshToken);
    if (!hash) return { outcome: 'invalid' };
    const next = successorToken(this.settings.successorKey, refreshToken);
    const { refreshTtlSeconds, refreshReuseGraceSeconds } = this.settings;
    const rotated = await this.sessions.rotate(hash, sha256Hex(next), refreshTtlSeconds, refreshReuseGraceSeconds);
    if (rotated) return { outcome: 'rotated', issued: { ...rotated, refreshToken: next } };
    const used = await this.sessions.reuseOf(hash, refreshReuseGraceSeconds);
    if (used?.reused) return { outcome: 'reused', sessionId: used.sessionId, userId: used.userId };
    return used?.ended ? { outcome: 'ended', userId: used.userId } : { outcome: 'invalid', userId: used?.userId };
  }

  /**
   * The session a refresh token stands for, to end it (a logout without an access token): a token
   * that is unused, or used within the grace window (the holder may not have its successor yet), names
   * its session. `undefined` for any other token; no `user` when that session is no longer live
   * (revoked, expired, its account blocked), as the per-request check judges it.
   */
  async holderOf(refreshToken: string): Promise<{ factors: SessionFactors; user?: UserView } | undefined> {
    // As in rotate: only the token's canonical spelling is looked up.
    const hash = oneTimeTokenHash(refreshToken);
    const factors = hash && (await this.sessions.holderOf(hash, this.settings.refreshReuseGraceSeconds));
    return factors ? { factors, user: await this.liveUser(factors.sessionId, factors.userId) } : undefined;
  }

  /**
   * The per-request check: the session is live and belongs to the token's subject. One indexed
   * query; `lastUsedAt` is written at most once a minute per session, after the answer is known.
   */
  async liveUser(sessionId: string, userId: string): Promise<UserView | undefined> {
    const row = await this.sessions.liveUser(sessionId, userId);
    if (row?.stale) {
      this.sessions.touch(sessionId).catch(() => undefined); // best effort: a missed touch only makes lastUsedAt a minute older
    }
    return row && toUserView(row);
  }

  /** Whether the session is live and its account, its subject, not blocked (as the per-request check judges it). */
  async isLive(sessionId: string, userId: string): Promise<boolean> {
    return Boolean(await this.sessions.liveUser(sessionId, userId));
  }

  /**
   * Upgrades a live session whose user proved a second factor just now (a step-up), in the caller's
   * transaction: its methods gain `added`, its `auth_time` becomes now, and it gets a new refresh token
   * (the previous one stops working as after a rotation). The session's next tokens, or `undefined`
   * when it has ended or its account is blocked.
   */
  async stepUp(sessionId: string, userId: string, added: readonly string[]): Promise<IssuedRefresh | undefined> {
    const refreshToken = randomToken();
    const authTime = new Date();
    const upgraded = await this.sessions.stepUp({
      sessionId,
      userId,
      added,
      authTime,
      nextTokenHash: sha256Hex(refreshToken),
      ttlSeconds: this.settings.refreshTtlSeconds,
    });
    return upgraded && { sessionId, userId, refreshToken, amr: upgraded.amr, authTime };
  }

  /** Live sessions of a user, newest first, the caller's own one marked. */
  async listLive(userId: string, currentSessionId: string): Promise<SessionView[]> {
    return (await this.sessions.listLive(userId)).map((s) => ({
      id: s.id,
      createdAt: s.createdAt,
      lastUsedAt: s.lastUsedAt,
      userAgent: s.userAgent,
      ip: s.ip,
      current: s.id === currentSessionId,
    }));
  }

  /** When any session of the user not revoked was last used (a request, a refresh); null without one. */
  lastUse(userId: string): Promise<Date | null> {
    return this.sessions.lastUse(userId);
  }

  countLive(userId: string): Promise<number> {
    return this.sessions.countLive(userId);
  }

  /** `countLive` of several users in one query. */
  countLiveOf(userIds: string[]): Promise<Map<string, number>> {
    return this.sessions.countLiveOf(userIds);
  }

  /** Revokes one live session of this user; false when there is none with that id. */
  async revokeOwn(userId: Uuid, sessionId: Uuid): Promise<boolean> {
    const revoked = await this.sessions.revokeOwn(userId, sessionId);
    if (revoked) {
      await this.webhooks.enqueue({ type: 'session.revoked', data: { userId, sessionId } });
      await this.live.publish(accountMessage(userId, AccountEventType.SESSION_REVOKED, sessionId));
    }
    return revoked;
  }

  /** Ends every session of the user except `keepSessionId`. */
  async revokeOthers(userId: string, keepSessionId: string): Promise<void> {
    await this.sessions.revokeAllOf(userId, keepSessionId);
    await this.webhooks.enqueue({ type: 'session.revoked', data: { userId, all: true } });
    await this.live.publish(accountMessage(userId, AccountEventType.SIGNED_OUT_EVERYWHERE, null, { exceptSessionId: keepSessionId }));
  }

  /** One session of `userId`. */
  async revoke(userId: string, sessionId: string): Promise<void> {
    await this.sessions.revoke(sessionId);
    await this.webhooks.enqueue({ type: 'session.revoked', data: { userId, sessionId } });
    await this.live.publish(accountMessage(userId, AccountEventType.SESSION_REVOKED, sessionId));
  }

  async revokeAllOf(userId: string, detail: Record<string, unknown> = {}): Promise<void> {
    await this.sessions.revokeAllOf(userId);
    await this.webhooks.enqueue({ type: 'session.revoked', data: { userId, all: true } });
    await this.live.publish(accountMessage(userId, AccountEventType.SIGNED_OUT_EVERYWHERE, null, detail));
  }

  sweepExpired(): Promise<Record<string, number>> {
    return this.sessions.sweepExpired();
  }
}
