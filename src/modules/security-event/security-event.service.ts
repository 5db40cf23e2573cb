import { isForeignKeyViolation } from '../../db/database.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { Principal } from '../account/principal.js';
import { toPage, type Paged } from '../../shared/pagination.js';
import { eventCursor, type SecurityEventsPage } from './security-event.inputs.js';
import { SecurityEventType, type SignInMethod } from './security-event-type.js';
import { AccountEventType, accountMessage } from '../live/account-event.js';
import type { LivePublisher } from '../live/live-transport.js';
import type { SecurityEventRepository } from './security-event.repository.js';

/** What happened, to whom, from where. No field can hold a password, code, token or hash. */
export interface SecurityEventInput {
  type: SecurityEventType;
  /** On sign-ins. */
  method?: SignInMethod;
  /** The external provider's id: on OIDC sign-ins, and on identities linked or unlinked. */
  provider?: string;
  /** The account, when there is one. */
  userId?: string | null;
  /** E.164; stored masked but for the last four digits. */
  phone?: string | null;
  /** The session the event is about: the one created, ended, or acting. */
  sessionId?: string | null;
  client: ClientInfo;
}

interface SecurityEventView {
  id: string;
  type: SecurityEventType;
  method: SignInMethod | null;
  provider: string | null;
  at: Date;
  ip: string | null;
  userAgent: string | null;
  sessionId: string | null;
  phoneMasked: string | null;
}

export type SecurityEventList = Paged<SecurityEventView>;

const DAY_MS = 86400_000;

/** The live event a security event is to the account's devices, for those they learn of (see AccountEventType). */
function liveEventOf(event: SecurityEventInput): { type: AccountEventType; detail: Record<string, unknown> } | undefined {
  const phoneMasked = event.phone ? maskPhone(event.phone) : undefined;
  switch (event.type) {
    case SecurityEventType.SIGN_IN:
      return { type: AccountEventType.NEW_SIGN_IN, detail: { method: event.method ?? null, ...(event.provider && { provider: event.provider }), ip: event.client.ip ?? null, userAgent: event.client.userAgent ?? null } };
    case SecurityEventType.PROFILE_CHANGED:
      return { type: AccountEventType.PROFILE_UPDATED, detail: { change: 'PROFILE' } };
    case SecurityEventType.AVATAR_CHANGED:
      return { type: AccountEventType.PROFILE_UPDATED, detail: { change: 'AVATAR' } };
    case SecurityEventType.ROLE_CHANGED:
      return { type: AccountEventType.ROLE_CHANGED, detail: {} };
    case SecurityEventType.ACCOUNT_BLOCKED:
      return { type: AccountEventType.ACCOUNT_BLOCKED, detail: {} };
    case SecurityEventType.ACCOUNT_DELETED:
      return { type: AccountEventType.SIGNED_OUT_EVERYWHERE, detail: { reason: 'ACCOUNT_DELETED' } };
    case SecurityEventType.MFA_ENABLED:
    case SecurityEventType.MFA_DISABLED:
    case SecurityEventType.PASSKEY_ADDED:
    case SecurityEventType.PASSKEY_REMOVED:
      return { type: AccountEventType.MFA_CHANGED, detail: { change: event.type } };
    case SecurityEventType.IDENTITY_LINKED:
    case SecurityEventType.IDENTITY_UNLINKED:
      return { type: event.type === SecurityEventType.IDENTITY_LINKED ? AccountEventType.IDENTITY_LINKED : AccountEventType.IDENTITY_UNLINKED, detail: { provider: event.provider ?? null } };
    case SecurityEventType.PHONE_CHANGE_REQUESTED:
    case SecurityEventType.PHONE_CHANGED:
      return { type: event.type === SecurityEventType.PHONE_CHANGED ? AccountEventType.PHONE_CHANGED : AccountEventType.PHONE_CHANGE_REQUESTED, detail: { phoneMasked: phoneMasked ?? null } };
    default:
      return undefined;
  }
}

/** `+8613800138000` -> `+*********8000`. */
function maskPhone(e164: string): string {
  return `+${'*'.repeat(Math.max(0, e164.length - 5))}${e164.slice(-4)}`;
}

/** The security event log: recorded by the use cases, in their transactions; read by the account's owner. */
export class SecurityEventService {
  constructor(
    private readonly events: SecurityEventRepository,
    private readonly retentionDays: number,
    /** Live events: the events an account's other devices should learn of at once (API.md 10.2). */
    private readonly live: LivePublisher,
  ) {}

  record(event: SecurityEventInput): Promise<void> {
    const { client } = event;
    const told = event.userId ? liveEventOf(event) : undefined;
    return this.events.append({
      type: event.type,
      method: event.method ?? null,
      provider: event.provider ?? null,
      userId: event.userId ?? null,
      phoneMasked: event.phone ? maskPhone(event.phone) : null,
      ip: client.ip ?? null,
      userAgent: client.userAgent ?? null,
      sessionId: event.sessionId ?? null,
      requestId: client.requestId ?? null,
    }, told && this.live.inline(accountMessage(event.userId!, told.type, event.sessionId ?? null, told.detail)));
  }

  /**
   * An event about an account read earlier but not locked (see AccountService.lock), recorded on
   * its own, outside any transaction: when the account has been deleted since, the event is written
   * without it, as the deletion would have left it, instead of failing on the foreign key.
   */
  async recordUnlocked(event: SecurityEventInput): Promise<void> {
    try {
      await this.record(event);
    } catch (error) {
      if (!event.userId || !isForeignKeyViolation(error)) throw error;
      await this.record({ ...event, userId: null });
    }
  }

  /**
   * An event of the signed-in user's own doing: their account and phone, about the session acting
   * unless `sessionId` names another (the one they revoked).
   */
  recordOwn(type: SecurityEventType, principal: Principal, client: ClientInfo, sessionId = principal.sessionId, provider?: string): Promise<void> {
    return this.record({ type, userId: principal.userId, phone: principal.user.phone, sessionId, client, provider });
  }

  /** The user's own events, newest first, a page at a time. */
  async list(userId: string, page: SecurityEventsPage): Promise<SecurityEventList> {
    const rows = await this.events.listForUser(userId, page.after, page.limit + 1);
    return toPage(rows, page.limit, (row) => eventCursor.encode(row.id), (row) => ({
      id: row.id,
      type: row.type,
      method: row.method,
      provider: row.provider,
      at: row.at,
      ip: row.ip,
      userAgent: row.userAgent,
      sessionId: row.sessionId,
      phoneMasked: row.phoneMasked,
    }));
  }

  /** Events older than the retention period. */
  async sweepExpired(): Promise<Record<string, number>> {
    return { securityEvents: await this.events.deleteOlderThan(new Date(Date.now() - this.retentionDays * DAY_MS)) };
  }
}
