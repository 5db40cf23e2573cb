import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import { toPage, type Page, type Paged } from '../../shared/pagination.js';
import type { Uuid } from '../../shared/ids.js';
import type { IdentityView } from '../identity/identity.service.js';
import type { AccountService, OperatorView } from '../account/account.service.js';
import type { Principal } from '../account/principal.js';
import { Role } from '../account/role.js';
import type { UserView } from '../account/user.view.js';
import { AuditAction } from '../audit/audit-action.js';
import type { AuditEntryView, AuditLogService } from '../audit/audit-log.service.js';
import type { PendingSignIns } from '../auth/pending-sign-ins.js';
import type { PhoneChangeView } from '../phone-change/phone-change.view.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventList, SecurityEventService } from '../security-event/security-event.service.js';
import type { SecurityEventsPage } from '../security-event/security-event.inputs.js';
import type { SessionService, SessionView } from '../session/session.service.js';
import type { WebhookDeliveryView, WebhookService } from '../webhook/webhook.service.js';
import { AccountStatus } from './account-status.js';
import { encodeSearchCursor, type UserSearchInput, type WebhookDeliveriesInput } from './admin.inputs.js';

/**
 * An account as operators see it: the user, its role and block, how many sessions it has live, and
 * whether it has a second factor (TOTP on, passkeys), never the factors themselves.
 */
export interface AdminUserView extends OperatorView {
  status: AccountStatus;
  activeSessions: number;
  mfaEnabled: boolean;
  passkeys: number;
  /** The external providers' identities linked to the account. */
  identities: IdentityView[];
  /** The account's change of phone number that waits or is being proven, if any. */
  pendingPhoneChange: PhoneChangeView | null;
}

/** Which accounts have TOTP on and how many passkeys each has, a page of accounts at a time. */
export interface FactorSummaries {
  totpEnabledOf(userIds: string[]): Promise<Set<string>>;
  passkeyCountsOf(userIds: string[]): Promise<Map<string, number>>;
  /** The external identities of each account (absent: none). */
  identitiesOf(userIds: string[]): Promise<Map<string, IdentityView[]>>;
}

/**
 * Changes of the phone number as operators start and see them, through the phone-change module's
 * service (which owns its table): an operator's change, which always waits, with `audit` run in its
 * transaction; and the open change of each account of a page.
 */
interface OperatorPhoneChanges {
  requestByOperator(
    operator: Principal,
    userId: string,
    rawPhone: string,
    reason: string,
    client: ClientInfo,
    audit: (change: PhoneChangeView, currentPhone: string) => Promise<void>,
  ): Promise<PhoneChangeView>;
  pendingOf(userIds: string[]): Promise<Map<string, PhoneChangeView>>;
}

export interface AdminDependencies {
  db: Database;
  accounts: AccountService;
  sessions: SessionService;
  events: SecurityEventService;
  audit: AuditLogService;
  webhooks: WebhookService;
  factors: FactorSummaries;
  /** Half-finished sign-ins, ended with a block. */
  pendingSignIns: PendingSignIns;
  phoneChanges: OperatorPhoneChanges;
}

/** What of an account an operator read, as USER_VIEWED's `detail.read` names it. */
type Reading = 'details' | 'sessions' | 'securityEvents';

const RANK: Record<Role, number> = { [Role.USER]: 0, [Role.SUPPORT]: 1, [Role.ADMIN]: 2 };

/**
 * What operators do to other accounts. Every method checks the caller's role first (the role the
 * per-request session check read, so a revoked role stops at once): SUPPORT finds and reads accounts
 * and ends the sessions of users (not of operators); ADMIN also ends operators' sessions, blocks,
 * unblocks, sets roles, deletes and reads the audit log.
 * Each action, a reading of one account's data included, is an audit-log entry written in the
 * action's transaction, and the affected user sees it in their own security events.
 */
export class AdminService {
  constructor(private readonly deps: AdminDependencies) {}

  /** Whether `role` includes `needed`. */
  allows(role: Role, needed: Role.SUPPORT | Role.ADMIN): boolean {
    return RANK[role] >= RANK[needed];
  }

  /** FORBIDDEN unless the caller's role includes `needed`. */
  authorize(principal: Principal, needed: Role.SUPPORT | Role.ADMIN): void {
    if (!this.allows(principal.user.role, needed)) {
      throw new AppError(ErrorCode.FORBIDDEN, msg('admin.roleNeeded', { role: needed }));
    }
  }

  /**
   * Accounts matching the search, newest first. A search is not a reading of the accounts it lists
   * (it shows what a support agent needs to pick one), but one that names an account by its full id
   * or full phone number reads that account as opening it would, and is audited so (USER_VIEWED,
   * with the user's ACCOUNT_VIEWED_BY_OPERATOR), in the transaction that reads it.
   */
  async search(principal: Principal, input: UserSearchInput, client: ClientInfo): Promise<Paged<AdminUserView>> {
    this.authorize(principal, Role.SUPPORT);
    const { query, status, role, page } = input;
    const blocked = status === undefined ? undefined : status === AccountStatus.BLOCKED;
    const filter = { text: query, blocked, role };
    const find = async () => {
      const rows = await this.deps.accounts.search(filter, page.after, page.limit + 1);
      const shown = rows.slice(0, page.limit);
      for (const { user, exact } of shown) {
        if (exact && (await this.deps.accounts.lock(user.id))) await this.recordReading(principal, user, 'details', client, { via: 'search' });
      }
      const ids = shown.map(({ user }) => user.id);
      const [live, totp, passkeys, identities, phoneChanges] = await Promise.all([
        this.deps.sessions.countLiveOf(ids),
        this.deps.factors.totpEnabledOf(ids),
        this.deps.factors.passkeyCountsOf(ids),
        this.deps.factors.identitiesOf(ids),
        this.deps.phoneChanges.pendingOf(ids),
      ]);
      return toPage(rows, page.limit, ({ position }) => encodeSearchCursor(position), ({ user }) =>
        toAdminView(user, {
          activeSessions: live.get(user.id) ?? 0,
          mfaEnabled: totp.has(user.id),
          passkeys: passkeys.get(user.id) ?? 0,
          identities: identities.get(user.id) ?? [],
          pendingPhoneChange: phoneChanges.get(user.id) ?? null,
        }),
      );
    };
    return this.deps.accounts.namesOneAccount(filter.text) ? this.deps.db.transaction(find) : find();
  }

  /** One account (USER_VIEWED). */
  async user(principal: Principal, id: Uuid, client: ClientInfo): Promise<AdminUserView> {
    this.authorize(principal, Role.SUPPORT);
    return this.reading(principal, id, 'details', client, (user) => this.adminView(user));
  }

  /** The account's live sessions, newest first (USER_VIEWED). */
  async sessions(principal: Principal, id: Uuid, client: ClientInfo): Promise<SessionView[]> {
    this.authorize(principal, Role.SUPPORT);
    return this.reading(principal, id, 'sessions', client, () => this.deps.sessions.listLive(id, ''));
  }

  /** The account's security events, a page at a time, as the user sees them (USER_VIEWED). */
  async securityEvents(principal: Principal, id: Uuid, page: SecurityEventsPage, client: ClientInfo): Promise<SecurityEventList> {
    this.authorize(principal, Role.SUPPORT);
    return this.reading(principal, id, 'securityEvents', client, () => this.deps.events.list(id, page));
  }

  /** Ends every session of the account at once; its access tokens stop on their next request. */
  async revokeSessions(principal: Principal, id: Uuid, client: ClientInfo): Promise<void> {
    this.authorize(principal, Role.SUPPORT);
    const { db, sessions, events } = this.deps;
    await db.transaction(async () => {
      const user = await this.locked(id);
      // SUPPORT acts on users only: ending an operator's sessions (an admin's, again and again) is
      // for an ADMIN to do.
      if (RANK[user.role] > RANK[Role.USER] && RANK[principal.user.role] < RANK[Role.ADMIN]) {
        throw new AppError(ErrorCode.FORBIDDEN, msg('admin.endOperatorSessions'));
      }
      const ended = await sessions.countLive(id);
      await sessions.revokeAllOf(id);
      await events.record({ type: SecurityEventType.SESSIONS_REVOKED_BY_OPERATOR, userId: id, phone: user.phone, client: onBehalf(client) });
      await this.audit(principal, AuditAction.SESSIONS_REVOKED, id, { sessions: ended }, client);
    });
  }

  /**
   * Blocks the account with a reason (1-500 characters, checked at the edge) and ends its sessions and its half-finished
   * sign-ins (mfaTokens, passkey registrations), in one transaction: none of them finishes after an unblock.
   */
  async block(principal: Principal, id: Uuid, reason: string, client: ClientInfo): Promise<AdminUserView> {
    this.authorize(principal, Role.ADMIN);
    if (id === principal.userId) throw new AppError(ErrorCode.FORBIDDEN, msg('admin.blockSelf'));
    return this.setBlock(principal, id, { reason }, client);
  }

  async unblock(principal: Principal, id: Uuid, client: ClientInfo): Promise<AdminUserView> {
    this.authorize(principal, Role.ADMIN);
    return this.setBlock(principal, id, null, client);
  }

  /** Gives another account a role (ADMIN); never the caller's own, so that the last admin cannot demote themself. */
  async setRole(principal: Principal, id: Uuid, role: Role, client: ClientInfo): Promise<AdminUserView> {
    this.authorize(principal, Role.ADMIN);
    if (id === principal.userId) throw new AppError(ErrorCode.FORBIDDEN, msg('admin.roleSelf'));
    const changed = await this.deps.db.transaction(async () => {
      const set = await this.deps.accounts.setRole(id, role, onBehalf(client));
      if (set) await this.audit(principal, AuditAction.ROLE_CHANGED, id, { from: set.previous, to: role }, client);
      return set;
    });
    if (!changed) throw notFound();
    return this.adminView(changed.user);
  }

  /**
   * The command-line tool's grant and revoke (`npm run admin`): the role change as through the API,
   * audited with no actor (whoever runs the tool has the database, not a role).
   */
  async setRoleFromCommandLine(phone: string, role: Role): Promise<{ user: UserView; previous: Role } | undefined> {
    return this.deps.db.transaction(async () => {
      const changed = await this.deps.accounts.setRoleByPhone(phone, role);
      if (changed) {
        await this.deps.audit.record({
          action: AuditAction.ROLE_CHANGED,
          actorId: null,
          targetUserId: changed.user.id,
          detail: { from: changed.previous, to: role, via: 'command line' },
          client: {},
        });
      }
      return changed;
    });
  }

  /**
   * Starts a change of another account's phone number (ADMIN) with a reason (1-500 characters,
   * checked at the edge): it always waits PHONE_RECOVERY_DELAY_HOURS, the account is told (an SMS to
   * its current number, PHONE_CHANGE_REQUESTED) and may cancel it; PHONE_CHANGE_REQUESTED in the
   * audit log, in the change's transaction (PHONE_CHANGED follows when it applies). Never the
   * caller's own account: operators change their number as every user does, with its proofs.
   */
  async changePhone(principal: Principal, id: Uuid, phone: string, reason: string, client: ClientInfo): Promise<PhoneChangeView> {
    this.authorize(principal, Role.ADMIN);
    if (id === principal.userId) throw new AppError(ErrorCode.FORBIDDEN, msg('admin.phoneSelf'));
    return this.deps.phoneChanges.requestByOperator(principal, id, phone, reason, client, (change, currentPhone) =>
      this.audit(principal, AuditAction.PHONE_CHANGE_REQUESTED, id, { phoneChangeId: change.id, from: currentPhone, to: change.phone, reason, appliesAt: change.appliesAt?.toISOString() }, client),
    );
  }

  /** Deletes another account (ADMIN), as its owner's deletion does: its data, sessions and avatar go; its events stay. */
  async delete(principal: Principal, id: Uuid, client: ClientInfo): Promise<void> {
    this.authorize(principal, Role.ADMIN);
    if (id === principal.userId) throw new AppError(ErrorCode.FORBIDDEN, msg('admin.deleteSelf'));
    const deleted = await this.deps.accounts.deleteByOperator(id, onBehalf(client), (user) =>
      this.audit(principal, AuditAction.USER_DELETED, id, { phone: user.phone, nickname: user.nickname }, client),
    );
    if (!deleted) throw notFound();
  }

  /** The audit log, newest first (ADMIN). */
  auditLog(principal: Principal, page: Page<string>): Promise<Paged<AuditEntryView>> {
    this.authorize(principal, Role.ADMIN);
    return this.deps.audit.list(page);
  }

  /** The webhook deliveries, newest first, of one status when given (ADMIN). */
  webhookDeliveries(principal: Principal, { status, page }: WebhookDeliveriesInput): Promise<Paged<WebhookDeliveryView>> {
    this.authorize(principal, Role.ADMIN);
    return this.deps.webhooks.list(status, page);
  }

  /** Sends a delivery once more, due now (ADMIN); WEBHOOK_RETRIED in the same transaction. */
  async retryWebhookDelivery(principal: Principal, id: Uuid, client: ClientInfo): Promise<WebhookDeliveryView> {
    this.authorize(principal, Role.ADMIN);
    return this.deps.db.transaction(async () => {
      const delivery = await this.deps.webhooks.retry(id);
      await this.deps.audit.record({
        action: AuditAction.WEBHOOK_RETRIED,
        actorId: principal.userId,
        targetUserId: null,
        detail: { deliveryId: delivery.id, eventType: delivery.eventType, url: delivery.url },
        client,
      });
      return delivery;
    });
  }

  /**
   * An operator's reading of one account: the audit entry and the user's ACCOUNT_VIEWED_BY_OPERATOR
   * event are written with the account's row locked (NOT_FOUND when it is gone), then `get` runs
   * in the same transaction, so that what was read is what the entry says was read.
   */
  private async reading<T>(principal: Principal, id: Uuid, read: Reading, client: ClientInfo, get: (user: OperatorView) => Promise<T>): Promise<T> {
    return this.deps.db.transaction(async () => {
      const user = await this.locked(id);
      await this.recordReading(principal, user, read, client);
      return get(user);
    });
  }

  /**
   * The audit entry of a reading and the user's ACCOUNT_VIEWED_BY_OPERATOR, in the caller's transaction.
   * An operator reading their own account is audited, but their own events do not call it a view by an operator.
   */
  private async recordReading(principal: Principal, user: OperatorView, read: Reading, client: ClientInfo, more: Record<string, unknown> = {}): Promise<void> {
    await this.audit(principal, AuditAction.USER_VIEWED, user.id, { read, ...more }, client);
    if (user.id === principal.userId) return;
    await this.deps.events.record({ type: SecurityEventType.ACCOUNT_VIEWED_BY_OPERATOR, userId: user.id, phone: user.phone, client: onBehalf(client) });
  }

  /**
   * The account of `id`, its row locked until the caller's transaction ends; NOT_FOUND when it is gone.
   * Read for the phone that the user's event keeps masked, as every security event does (and as
   * the only trace of whom it was about once the account is deleted).
   */
  private async locked(id: string): Promise<OperatorView> {
    const user = (await this.deps.accounts.lock(id)) ? await this.deps.accounts.operatorView(id) : undefined;
    if (!user) throw notFound();
    return user;
  }

  private async setBlock(principal: Principal, id: string, block: { reason: string } | null, client: ClientInfo): Promise<AdminUserView> {
    const { db, accounts, sessions, events, pendingSignIns } = this.deps;
    const changed = await db.transaction(async () => {
      const set = await accounts.setBlock(id, block);
      if (!set) return undefined;
      const ended = block ? await sessions.countLive(id) : 0;
      if (block) {
        await sessions.revokeAllOf(id);
        await pendingSignIns.endAllOf(id);
      }
      // A block of a blocked account only changes the reason; an unblock of an active one nothing:
      // the audit log keeps the action, the user's events only a change.
      const changes = set.wasBlocked !== Boolean(block);
      if (changes) {
        const type = block ? SecurityEventType.ACCOUNT_BLOCKED : SecurityEventType.ACCOUNT_UNBLOCKED;
        await events.record({ type, userId: id, phone: set.user.phone, client: onBehalf(client) });
      }
      const detail = block ? { reason: block.reason, sessionsEnded: ended, wasBlocked: set.wasBlocked } : { wasBlocked: set.wasBlocked };
      await this.audit(principal, block ? AuditAction.USER_BLOCKED : AuditAction.USER_UNBLOCKED, id, detail, client);
      return set.user;
    });
    if (!changed) throw notFound();
    return this.adminView(changed);
  }

  private audit(principal: Principal, action: AuditAction, targetUserId: string, detail: Record<string, unknown>, client: ClientInfo): Promise<void> {
    return this.deps.audit.record({ action, actorId: principal.userId, targetUserId, detail, client });
  }

  private async adminView(user: OperatorView): Promise<AdminUserView> {
    const { sessions, factors } = this.deps;
    const [activeSessions, totp, passkeys, identities, phoneChanges] = await Promise.all([
      sessions.countLive(user.id),
      factors.totpEnabledOf([user.id]),
      factors.passkeyCountsOf([user.id]),
      factors.identitiesOf([user.id]),
      this.deps.phoneChanges.pendingOf([user.id]),
    ]);
    return toAdminView(user, {
      activeSessions,
      mfaEnabled: totp.has(user.id),
      passkeys: passkeys.get(user.id) ?? 0,
      identities: identities.get(user.id) ?? [],
      pendingPhoneChange: phoneChanges.get(user.id) ?? null,
    });
  }
}

function toAdminView(user: OperatorView, counts: Pick<AdminUserView, 'activeSessions' | 'mfaEnabled' | 'passkeys' | 'identities' | 'pendingPhoneChange'>): AdminUserView {
  return { ...user, status: user.blockedAt ? AccountStatus.BLOCKED : AccountStatus.ACTIVE, ...counts };
}

/**
 * The client of an operator's action, as the affected user's event keeps it: the request id (for
 * the audit trail) without the operator's address and user agent, which are not the user's to see.
 */
function onBehalf(client: ClientInfo): ClientInfo {
  return { requestId: client.requestId };
}

function notFound(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, msg('user.notFound'));
}
