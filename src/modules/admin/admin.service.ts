import type { Database } from '../../db/database.js';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import { isUuid } from '../../shared/uuid.js';
import type { AccountService, OperatorView } from '../account/account.service.js';
import type { Principal } from '../account/principal.js';
import { Role } from '../account/role.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { SessionService } from '../session/session.service.js';

export enum AccountStatus {
  ACTIVE = 'ACTIVE',
  BLOCKED = 'BLOCKED',
}

/** An account as operators see it: the user, its role and block, and how many sessions it has live. */
export interface AdminUserView extends OperatorView {
  status: AccountStatus;
  activeSessions: number;
}

export interface AdminDependencies {
  db: Database;
  accounts: AccountService;
  sessions: SessionService;
  events: SecurityEventService;
}

const REASON_MAX = 500;
const RANK: Record<Role, number> = { [Role.USER]: 0, [Role.SUPPORT]: 1, [Role.ADMIN]: 2 };

/**
 * What operators do to other accounts. Every method checks the caller's role first (the role the
 * per-request session check read, so a revoked role stops at once): SUPPORT reads accounts and ends
 * their sessions, ADMIN also blocks and unblocks. The affected user sees each action in their own
 * security events, written in the action's transaction.
 */
export class AdminService {
  constructor(private readonly deps: AdminDependencies) {}

  /** FORBIDDEN unless the caller's role includes `needed`. */
  authorize(principal: Principal, needed: Role.SUPPORT | Role.ADMIN): void {
    if (RANK[principal.user.role] < RANK[needed]) {
      throw new AppError(ErrorCode.FORBIDDEN, `This needs the ${needed} role`);
    }
  }

  async user(principal: Principal, id: string): Promise<AdminUserView> {
    this.authorize(principal, Role.SUPPORT);
    return this.adminView(await this.found(id));
  }

  /** Ends every session of the account at once; its access tokens stop on their next request. */
  async revokeSessions(principal: Principal, id: string, client: ClientInfo): Promise<void> {
    this.authorize(principal, Role.SUPPORT);
    assertUserId(id);
    const { db, accounts, sessions, events } = this.deps;
    await db.transaction(async () => {
      if (!(await accounts.lock(id))) throw notFound();
      await sessions.revokeAllOf(id);
      await events.record({ type: SecurityEventType.SESSIONS_REVOKED_BY_OPERATOR, userId: id, client: onBehalf(client) });
    });
  }

  /** Blocks the account with a reason (1-500 characters) and ends its sessions, in one transaction. */
  async block(principal: Principal, id: string, reason: string, client: ClientInfo): Promise<AdminUserView> {
    this.authorize(principal, Role.ADMIN);
    const trimmed = reason.trim();
    if (trimmed.length === 0 || trimmed.length > REASON_MAX) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, `The reason must be 1-${REASON_MAX} characters`, {
        fields: { reason: `must be 1-${REASON_MAX} characters` },
      });
    }
    assertUserId(id);
    if (id === principal.userId) throw new AppError(ErrorCode.FORBIDDEN, 'Operators cannot block their own account');
    return this.setBlock(id, { reason: trimmed }, SecurityEventType.ACCOUNT_BLOCKED, client);
  }

  async unblock(principal: Principal, id: string, client: ClientInfo): Promise<AdminUserView> {
    this.authorize(principal, Role.ADMIN);
    assertUserId(id);
    return this.setBlock(id, null, SecurityEventType.ACCOUNT_UNBLOCKED, client);
  }

  /** Gives another account a role (ADMIN); never the caller's own, so that the last admin cannot demote themself. */
  async setRole(principal: Principal, id: string, role: Role, client: ClientInfo): Promise<AdminUserView> {
    this.authorize(principal, Role.ADMIN);
    assertUserId(id);
    if (id === principal.userId) throw new AppError(ErrorCode.FORBIDDEN, 'Operators cannot change their own role');
    const changed = await this.deps.accounts.setRole(id, role, onBehalf(client));
    if (!changed) throw notFound();
    return this.adminView(changed.user);
  }

  private async setBlock(id: string, block: { reason: string } | null, type: SecurityEventType, client: ClientInfo): Promise<AdminUserView> {
    const { db, accounts, sessions, events } = this.deps;
    const changed = await db.transaction(async () => {
      const set = await accounts.setBlock(id, block);
      if (!set) return undefined;
      if (block) await sessions.revokeAllOf(id);
      // A block of a blocked account only changes the reason; an unblock of an active one nothing.
      if (set.wasBlocked !== Boolean(block)) await events.record({ type, userId: id, phone: set.user.phone, client: onBehalf(client) });
      return set.user;
    });
    if (!changed) throw notFound();
    return this.adminView(changed);
  }

  /** The account of a well-formed id; NOT_FOUND for an unknown one. */
  private async found(id: string): Promise<OperatorView> {
    assertUserId(id);
    const user = await this.deps.accounts.operatorView(id);
    if (!user) throw notFound();
    return user;
  }

  private async adminView(user: OperatorView): Promise<AdminUserView> {
    return {
      ...user,
      status: user.blockedAt ? AccountStatus.BLOCKED : AccountStatus.ACTIVE,
      activeSessions: await this.deps.sessions.countLive(user.id),
    };
  }
}

/**
 * The client of an operator's action, as the affected user's event keeps it: the request id (for
 * the audit trail) without the operator's address and user agent, which are not the user's to see.
 */
function onBehalf(client: ClientInfo): ClientInfo {
  return { requestId: client.requestId };
}

/** VALIDATION_FAILED for an id that cannot name an account (before it reaches a uuid column). */
function assertUserId(id: string): void {
  if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION_FAILED, 'The id is not a user id', { fields: { id: 'must be a UUID' } });
}

function notFound(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, 'No such user');
}
