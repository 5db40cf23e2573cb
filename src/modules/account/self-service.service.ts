import type { Sql } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';
import type { Logger } from '../../shared/logger.js';
import type { PasswordHasher } from '../../shared/password/password-hasher.js';
import { assertPasswordPolicy } from '../../shared/password/password-policy.js';
import { parsePhone } from '../../shared/phone.js';
import type { Principal } from '../auth/authenticator.js';
import { CodePurpose } from '../auth/code-purpose.js';
import type { PasswordCheck } from '../auth/password-check.js';
import type { ClientInfo, SessionView, Sessions } from '../auth/sessions.js';
import type { VerificationCodes } from '../auth/verification-codes.js';
import type { AvatarStorage } from '../avatar/avatar-storage.js';
import type { AccountService } from './account.service.js';
import { normaliseNickname } from './nickname.js';
import type { ChangePasswordInput } from './account.inputs.js';
import type { UserView } from './user.view.js';

export interface SelfServiceDependencies {
  sql: Sql;
  accounts: AccountService;
  sessions: Sessions;
  codes: VerificationCodes;
  hasher: PasswordHasher;
  passwords: PasswordCheck;
  avatarStorage: AvatarStorage;
  logger: Logger;
  defaultPhoneRegion: string;
}

/** What a signed-in user can do to their own account. */
export class SelfService {
  constructor(private readonly deps: SelfServiceDependencies) {}

  async updateProfile(principal: Principal, nickname: string): Promise<UserView> {
    const { accounts, sql } = this.deps;
    await sql.rows('update users set nickname = $2, updated_at = now() where id = $1', [principal.userId, normaliseNickname(nickname)]);
    const user = await accounts.findById(principal.userId);
    if (!user) throw new AppError(ErrorCode.UNAUTHENTICATED, 'The account no longer exists');
    return user;
  }

  /**
   * Checks the current password when the account has one (throttled like sign-ins), lets a
   * code-only account set its first password, and ends every other session.
   */
  async changePassword(principal: Principal, input: ChangePasswordInput, client: ClientInfo): Promise<void> {
    const { accounts, hasher, passwords, sessions } = this.deps;
    const account = await accounts.findByPhone(principal.user.phone);
    if (!account) throw new AppError(ErrorCode.UNAUTHENTICATED, 'The account no longer exists');
    assertPasswordPolicy(input.newPassword, parsePhone(account.phone, this.deps.defaultPhoneRegion), 'newPassword');
    if (account.passwordHash) {
      if (input.currentPassword == null) {
        throw new AppError(ErrorCode.VALIDATION_FAILED, 'currentPassword is required for an account that has a password', {
          fields: { currentPassword: 'is required' },
        });
      }
      const ok = await passwords.verify(account.phone, client.ip, input.currentPassword, account.passwordHash);
      if (!ok) throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'The current password is wrong');
    }
    await accounts.setPasswordHash(account.id, await hasher.hash(input.newPassword));
    await sessions.revokeOthers(account.id, principal.sessionId);
  }

  listSessions(principal: Principal): Promise<SessionView[]> {
    return this.deps.sessions.listLive(principal.userId, principal.sessionId);
  }

  async revokeSession(principal: Principal, sessionId: string): Promise<void> {
    if (!(await this.deps.sessions.revokeOwn(principal.userId, sessionId))) {
      throw new AppError(ErrorCode.NOT_FOUND, 'No such session');
    }
  }

  /**
   * Deletes the account with a fresh delete-account code: the row and, through foreign keys, its
   * sessions, refresh tokens and usage reports, in one statement; its codes in the same
   * transaction; the avatar file after the commit. Its tokens stop working at once.
   */
  async deleteAccount(principal: Principal, code: string): Promise<void> {
    const { codes, sql, avatarStorage, logger } = this.deps;
    const phone = principal.user.phone;
    await codes.consume(phone, CodePurpose.DELETE_ACCOUNT, code);
    const deleted = await sql.transaction(async (tx) => {
      const row = await tx.one<{ avatar_key: string | null }>('delete from users where id = $1 returning avatar_key', [principal.userId]);
      await tx.rows('delete from verification_codes where phone = $1', [phone]);
      return row;
    });
    if (!deleted) throw new AppError(ErrorCode.UNAUTHENTICATED, 'The account no longer exists');
    if (deleted.avatar_key) {
      await avatarStorage.delete(deleted.avatar_key).catch((error: unknown) => {
        logger.warn({ err: error, key: deleted.avatar_key }, 'could not delete the avatar of a deleted account');
      });
    }
  }
}
