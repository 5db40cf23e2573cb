import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import { unauthenticated } from '../../shared/tokens/access-token.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { Logger } from '../../shared/logger.js';
import type { PasswordHasher } from '../../shared/password/password-hasher.js';
import { assertPasswordPolicy } from '../../shared/password/password-policy.js';
import { parsePhone, phonePrefixes } from '../../shared/phone.js';
import { toUuid } from '../../shared/ids.js';
import type { Principal } from './principal.js';
import { CodePurpose } from '../auth/code-purpose.js';
import type { PasswordCheck } from '../auth/password-check.js';
import type { PendingSignIns } from '../auth/pending-sign-ins.js';
import type { VerificationCodeService } from '../auth/verification-code.service.js';
import type { AvatarStorage } from '../avatar/avatar-storage.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { SessionService } from '../session/session.service.js';
import type { WebhookService } from '../webhook/webhook.service.js';
import type { ChangePasswordInput, UpdateProfileInput } from './account.inputs.js';
import type { AccountRepository, NewUser, SearchPosition, UserSearch } from './account.repository.js';
import { normaliseNickname } from './nickname.js';
import { Role } from './role.js';
import type { User } from './user.entity.js';
import { toUserView, type UserView } from './user.view.js';

/** An account with its password hash and block, for the sign-in checks of other modules; never sent to a client. */
export interface UserWithSecret extends UserView {
  passwordHash: string | null;
  blocked: boolean;
}

export interface AccountActivity {
  loginCount: number;
  lastLoginAt: Date | null;
  memberSince: Date;
}

export interface AccountDependencies {
  db: Database;
  accounts: AccountRepository;
  sessions: SessionService;
  codes: VerificationCodeService;
  hasher: PasswordHasher;
  passwords: PasswordCheck;
  avatarStorage: AvatarStorage;
  events: SecurityEventService;
  /** The webhook outbox: every change of an account is an event, written in the change's transaction. */
  webhooks: WebhookService;
  /** Half-finished sign-ins, ended with a password change. */
  pendingSignIns: PendingSignIns;
  logger: Logger;
  defaultPhoneRegion: string;
}

/** The signed-in account was deleted meanwhile: its sessions went with it. */
const gone = () => unauthenticated('session_ended', msg('account.gone'));

/** What every way into a blocked account answers (once the code or password was right). */
export function accountBlocked(): AppError {
  return new AppError(ErrorCode.ACCOUNT_BLOCKED, msg('account.blocked'));
}

/**
 * Accounts: what a signed-in user can do to their own account, and the account records the other
 * modules (sign-in, avatars, statistics) read and change through here, never through the table.
 */
export class AccountService {
  constructor(private readonly deps: AccountDependencies) {}

  async findByPhone(phone: string): Promise<UserWithSecret | undefined> {
    const user = await this.deps.accounts.findByPhone(phone);
    return user ? { ...view(user), passwordHash: user.passwordHash, blocked: user.blockedAt !== null } : undefined;
  }

  async findById(id: string): Promise<UserView | undefined> {
    const user = await this.deps.accounts.findById(id);
    return user ? view(user) : undefined;
  }

  /** The accounts of `ids` that exist, by id, in one query. */
  async findManyById(ids: readonly string[]): Promise<Map<string, UserView>> {
    return new Map((await this.deps.accounts.findManyById(ids)).map((user) => [user.id, toUserView(user)]));
  }

  /** The account, or UNAUTHENTICATED when it was deleted meanwhile (its caller's token is then void too). */
  async get(id: string): Promise<UserView> {
    const user = await this.findById(id);
    if (!user) throw gone();
    return user;
  }

  /** `undefined` when another account has the phone (a concurrent sign-up won); `user.created` with the account. */
  createIfAbsent(user: NewUser): Promise<UserView | undefined> {
    return this.deps.db.transaction(async () => {
      const created = await this.deps.accounts.createIfAbsent(user);
      if (!created) return undefined;
      await this.webhook('user.created', view(created));
      return view(created);
    });
  }

  /**
   * Counts a sign-in; `undefined` when the account was deleted meanwhile, ACCOUNT_BLOCKED (the
   * caller's transaction then takes the count back) when it is blocked. Its update locks the row
   * until the caller's transaction ends, so a deletion or a block waits for the sign-in and then ends
   * its session (see AuthService.signIn).
   */
  async recordSignIn(userId: string): Promise<UserView | undefined> {
    const row = await this.deps.accounts.recordSignIn(userId);
    if (row?.blocked) throw accountBlocked();
    return row && toUserView(row);
  }

  /** The account for a refreshed session: UNAUTHENTICATED when gone, ACCOUNT_BLOCKED when blocked. */
  async getSignInable(id: string): Promise<UserView> {
    const user = await this.deps.accounts.findById(id);
    if (!user) throw gone();
    if (user.blockedAt) throw accountBlocked();
    return view(user);
  }

  async isBlocked(id: string): Promise<boolean> {
    return Boolean((await this.deps.accounts.findById(id))?.blockedAt);
  }

  /**
   * Gives the account of `phone` a role, recorded in its security events as ROLE_CHANGED (unless it
   * had the role already); `undefined` without such an account. Seen on the holder's next request.
   */
  async setRoleByPhone(rawPhone: string, role: Role): Promise<{ user: UserView; previous: Role } | undefined> {
    const phone = parsePhone(rawPhone, this.deps.defaultPhoneRegion).e164;
    const account = await this.deps.accounts.findByPhone(phone);
    return account ? this.setRole(account.id, role, {}) : undefined;
  }

  /** `setRoleByPhone` by id; `client` is what the user's ROLE_CHANGED event keeps of the request. */
  setRole(id: string, role: Role, client: ClientInfo): Promise<{ user: OperatorView; previous: Role } | undefined> {
    const { db, accounts, events } = this.deps;
    return db.transaction(async () => {
      const changed = await accounts.setRole(id, role);
      if (!changed) return undefined;
      if (changed.previous !== role) {
        await events.record({ type: SecurityEventType.ROLE_CHANGED, userId: id, phone: changed.user.phone, client });
        await this.webhook('user.updated', view(changed.user));
      }
      return { user: operatorView(changed.user), previous: changed.previous };
    });
  }

  /** The account of a well-formed id as operators see it, or `undefined`. */
  async operatorView(id: string): Promise<OperatorView | undefined> {
    const user = await this.deps.accounts.findById(id);
    return user ? operatorView(user) : undefined;
  }

  /**
   * Blocks the account (`reason` given) or lifts the block, in the caller's transaction, with the
   * account's row locked: a sign-in running meanwhile either committed before (and the caller then
   * ends its session) or finds the block. `undefined` without the account.
   */
  async setBlock(id: string, block: { reason: string } | null): Promise<{ user: OperatorView; wasBlocked: boolean } | undefined> {
    const changed = await this.deps.accounts.setBlock(id, block);
    if (!changed) return undefined;
    // A block of a blocked account (a new reason) or an unblock of an active one is no event.
    if (changed.wasBlocked !== Boolean(block)) await this.webhook(block ? 'user.blocked' : 'user.unblocked', view(changed.user));
    return { user: operatorView(changed.user), wasBlocked: changed.wasBlocked };
  }

  /** The accounts with a role above USER, oldest first. */
  async operators(): Promise<UserView[]> {
    return (await this.deps.accounts.withRoles([Role.SUPPORT, Role.ADMIN])).map(view);
  }

  /**
   * Takes the account's row for a change of the account or of what hangs off it (its sessions, its
   * events), until the caller's transaction ends; false when the account is gone. The first
   * statement of every such transaction, as the deletion takes the row first too: the two are then
   * serialised there (no deadlock over sessions or events taken in the other order), and a change
   * that comes second finds no account instead of writing for one gone. Changes whose first
   * statement is the row's own update (a sign-in's count, the nickname, the avatar) take it that way.
   */
  lock(userId: string): Promise<boolean> {
    return this.deps.accounts.lock(userId, 'change');
  }

  /** `lock` for the signed-in user: UNAUTHENTICATED when the account is gone, as its token then is. */
  async lockActive(userId: string): Promise<void> {
    if (!(await this.lock(userId))) throw gone();
  }

  setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    return this.deps.accounts.setPasswordHash(userId, passwordHash);
  }

  /**
   * Moves the account to a new phone number in the caller's transaction, announced as `user.updated`;
   * returns the account and its old number. Another account's number fails the transaction with a
   * unique violation (see isUniqueViolation); UNAUTHENTICATED when the account is gone.
   */
  async changePhone(userId: string, phone: string): Promise<{ user: UserView; previousPhone: string }> {
    const changed = await this.deps.accounts.setPhone(userId, phone);
    if (!changed) throw gone();
    await this.webhook('user.updated', view(changed.user));
    return { user: view(changed.user), previousPhone: changed.previous };
  }

  /** Makes `avatarKey` the account's avatar; returns the account and the key it replaced. */
  async replaceAvatarKey(userId: string, avatarKey: string): Promise<{ user: UserView; previousKey: string | null }> {
    const replaced = await this.deps.accounts.replaceAvatarKey(userId, avatarKey);
    if (!replaced) throw gone();
    if (replaced.previousKey !== avatarKey) await this.webhook('user.updated', view(replaced.user));
    return { user: view(replaced.user), previousKey: replaced.previousKey };
  }

  async activity(userId: string): Promise<AccountActivity> {
    const activity = await this.deps.accounts.activity(userId);
    if (!activity) throw gone();
    return activity;
  }

  async updateProfile(principal: Principal, input: UpdateProfileInput, client: ClientInfo): Promise<UserView> {
    const { db, accounts } = this.deps;
    const nickname = input.nickname === undefined ? undefined : normaliseNickname(input.nickname);
    const user = await db.transaction(async () => {
      const changed = await accounts.setProfile(principal.userId, { nickname, locale: input.locale });
      if (changed) {
        await this.deps.events.recordOwn(SecurityEventType.PROFILE_CHANGED, principal, client);
        await this.webhook('user.updated', view(changed));
      }
      return changed;
    });
    if (!user) throw gone();
    return view(user);
  }

  /**
   * Checks the current password when the account has one (throttled like sign-ins), lets a
   * code-only account set its first password, and ends every other session and every half-finished
   * sign-in (mfaTokens, passkey registrations) begun under the old password.
   */
  async changePassword(principal: Principal, input: ChangePasswordInput, client: ClientInfo): Promise<void> {
    const { db, accounts, hasher, passwords, sessions } = this.deps;
    const account = await accounts.findById(principal.userId);
    if (!account) throw gone();
    assertPasswordPolicy(input.newPassword, parsePhone(account.phone, this.deps.defaultPhoneRegion), 'newPassword');
    if (account.passwordHash) {
      if (input.currentPassword == null) {
        throw new AppError(ErrorCode.VALIDATION_FAILED, msg('account.currentPasswordRequired'), {
          fields: { currentPassword: msg('field.required') },
        });
      }
      const ok = await passwords.verify(account.phone, client.ip, input.currentPassword, account.passwordHash);
      if (!ok) throw new AppError(ErrorCode.INVALID_CREDENTIALS, msg('account.currentPasswordWrong'));
    }
    const passwordHash = await hasher.hash(input.newPassword);
    await db.transaction(async () => {
      await this.lockActive(account.id);
      await accounts.setPasswordHash(account.id, passwordHash);
      await sessions.revokeOthers(account.id, principal.sessionId);
      await this.deps.pendingSignIns.endAllOf(account.id);
      await this.deps.events.recordOwn(SecurityEventType.PASSWORD_CHANGED, principal, client);
    });
  }

  /**
   * Deletes the account with a fresh delete-account code: the row and, through foreign keys, its
   * sessions, refresh tokens and usage reports, and its codes, in one transaction; the avatar file
   * after the commit. Its tokens stop working at once. Its security events stay, the deletion's own
   * included, with the user nulled by the foreign key and the phone masked.
   */
  async deleteAccount(principal: Principal, code: string, client: ClientInfo): Promise<void> {
    const phone = principal.user.phone;
    await this.deps.codes.consume(phone, CodePurpose.DELETE_ACCOUNT, code, client.ip);
    const deleted = await this.remove(principal.userId, () => this.deps.events.recordOwn(SecurityEventType.ACCOUNT_DELETED, principal, client));
    if (!deleted) throw gone();
  }

  /**
   * An operator's deletion of the account of `id`: as the owner's own (`deleteAccount`), with no
   * code; `alongside` runs in its transaction before the row goes (the operator's audit entry).
   * False when there is no such account.
   */
  async deleteByOperator(id: string, client: ClientInfo, alongside: (user: UserView) => Promise<void>): Promise<boolean> {
    return this.remove(id, async (user) => {
      await this.deps.events.record({ type: SecurityEventType.ACCOUNT_DELETED, userId: id, phone: user.phone, client });
      await alongside(user);
    });
  }

  /**
   * Deletes the account: the row and, through foreign keys, its sessions, refresh tokens and usage
   * reports, and its codes, in one transaction with what `record` writes; the avatar file after the
   * commit. Its tokens stop working at once. Its security events stay, with the user nulled by the
   * foreign key and the phone masked. False when the account is gone already.
   */
  private async remove(id: string, record: (user: UserView) => Promise<void>): Promise<boolean> {
    const { db, accounts, codes, avatarStorage, logger } = this.deps;
    const deleted = await db.transaction(async () => {
      // Locked first, as every change of the account locks it first (see lock): a sign-in or a
      // change still running commits before the event is written (the log shows its event before
      // the ACCOUNT_DELETED), and none of them can be waiting for a session this deletion holds.
      if (!(await accounts.lock(id, 'delete'))) return undefined;
      const user = await accounts.findById(id);
      if (!user) return undefined;
      await record(view(user));
      await this.deps.webhooks.enqueue({ type: 'user.deleted', data: { userId: id } });
      const row = await accounts.delete(id);
      await codes.discardAll(user.phone);
      return row;
    });
    if (!deleted) return false;
    if (deleted.avatarKey) {
      await avatarStorage.delete(deleted.avatarKey).catch((error: unknown) => {
        logger.warn({ err: error, key: deleted.avatarKey }, 'could not delete the avatar of a deleted account');
      });
    }
    return true;
  }

  /** A `user.*` event about `user`, in the caller's transaction. */
  private webhook(type: 'user.created' | 'user.updated' | 'user.blocked' | 'user.unblocked', user: UserView): Promise<void> {
    return this.deps.webhooks.enqueue({ type, data: { user } });
  }

  /**
   * The operators' search, newest first: `text` matches an id, a phone (whole, in any form the
   * sign-in accepts, or its leading digits, see phonePrefixes) or a nickname substring, ignoring
   * case; without it, every account. `blocked` and `role` narrow it. `exact`: the account is the one
   * the text names by its full id or full phone number (see namesOneAccount).
   */
  async search(
    filter: { text?: string; blocked?: boolean; role?: Role },
    after: SearchPosition | undefined,
    limit: number,
  ): Promise<{ user: OperatorView; position: SearchPosition; exact: boolean }[]> {
    const text = filter.text?.trim();
    const search: UserSearch = { phonePrefixes: [], blocked: filter.blocked, role: filter.role };
    const named = text ? this.named(text) : {};
    if (text) {
      search.id = named.id;
      search.phonePrefixes = phonePrefixes(text, this.deps.defaultPhoneRegion);
      search.nickname = text.normalize('NFC');
    }
    return (await this.deps.accounts.search(search, after, limit)).map(({ user, position }) => ({
      user: operatorView(user),
      position,
      exact: user.id === named.id || user.phone === named.phone,
    }));
  }

  /** Whether a search text is a full account id or a full phone number, which name one account at most. */
  namesOneAccount(text: string | undefined): boolean {
    const named = text?.trim() ? this.named(text.trim()) : {};
    return Boolean(named.id ?? named.phone);
  }

  private named(text: string): { id?: string; phone?: string } {
    const id = toUuid(text);
    if (id) return { id };
    try {
      return { phone: parsePhone(text, this.deps.defaultPhoneRegion).e164 };
    } catch {
      return {};
    }
  }
}

/** What operators see of an account besides its UserView. */
export interface OperatorView extends UserView {
  blockedAt: Date | null;
  blockedReason: string | null;
}

function operatorView(user: User): OperatorView {
  return { ...view(user), blockedAt: user.blockedAt, blockedReason: user.blockedReason };
}

function view(user: User): UserView {
  return toUserView({ ...user, hasPassword: user.passwordHash !== null });
}
