import { AppError, ErrorCode, assertThat, msg } from '../../shared/errors/app-error.js';
import type { PasswordHasher } from '../../shared/password/password-hasher.js';
import { assertPasswordPolicy } from '../../shared/password/password-policy.js';
import { parsePhone, type Phone } from '../../shared/phone.js';
import type { RateLimiter, Rule } from '../../shared/rate-limit/rate-limiter.js';
import { unauthenticated } from '../../shared/tokens/access-token.js';
import type { Database } from '../../db/database.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import { accountBlocked, type AccountService } from '../account/account.service.js';
import { defaultNickname, normaliseNickname } from '../account/nickname.js';
import type { CodeLoginInput, PasswordLoginInput, RegisterInput, ResetPasswordInput, SendCodeInput } from './auth.inputs.js';
import type { PasswordCheck } from './password-check.js';
import { CodePurpose } from './code-purpose.js';
import { SecurityEventType, SignInMethod } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { SessionService } from '../session/session.service.js';
import type { Principal } from '../account/principal.js';
import type { Uuid } from '../../shared/ids.js';
import type { SmsFraudGuard } from './sms-fraud-guard.js';
import type { SmsProvider } from './sms/index.js';
import { SmsDeliveryError, type SmsMessage } from './sms/sms-provider.js';
import type { VerificationCodeService } from './verification-code.service.js';
import type { PendingSignIns } from './pending-sign-ins.js';
import { ownReader, smsLocale } from './sms/sms-locale.js';
import type { PasskeySignIn, SecondFactors } from './second-factor.js';
import { codeGone, invalidCredentials, type AuthPayload, type SignIns } from './sign-ins.js';
import type { Locale } from '../../shared/i18n/locale.js';
import type { AuthenticationResponseInput } from '../passkey/passkey.inputs.js';

export interface SendCodeResult {
  expiresIn: number;
  resendAfter: number;
}

export interface AuthSettings {
  defaultPhoneRegion: string;
  /** The last source of an SMS's language. */
  defaultLocale: Locale;
  registrationEnabled: boolean;
  codeTtlSeconds: number;
  sendCode: { intervalSeconds: number; perPhoneHourly: number; perPhoneDaily: number; perIpHourly: number };
}

export interface AuthDependencies {
  db: Database;
  accounts: AccountService;
  codes: VerificationCodeService;
  sessions: SessionService;
  hasher: PasswordHasher;
  limiter: RateLimiter;
  passwords: PasswordCheck;
  sms: SmsProvider;
  smsGuard: SmsFraudGuard;
  events: SecurityEventService;
  /** TOTP and recovery codes: the second step of a sign-in that answered MFA_REQUIRED. */
  secondFactors: SecondFactors;
  passkeys: PasskeySignIn;
  /** The end every sign-in shares: the session, the event, the tokens. */
  signIns: SignIns;
  /** Half-finished sign-ins, ended with a reset. */
  pendingSignIns: PendingSignIns;
}

const HOUR = 3600;
const DAY = 86400;

/** Sign-in, registration, token and session-ending use cases; knows nothing of HTTP or GraphQL. */
export class AuthService {
  private readonly signIns: SignIns;

  constructor(
    private readonly deps: AuthDependencies,
    private readonly settings: AuthSettings,
  ) {
    this.signIns = deps.signIns;
  }

  /**
   * Order: the region (free), the address's hourly limit and regions, the purpose checks, the
   * region's budget and breaker, then the phone's limits; a request refused by an earlier rule uses
   * up no later one, and one whose SMS surely did not go out gives back what it took.
   */
  async sendCode(input: SendCodeInput, client: ClientInfo): Promise<SendCodeResult> {
    const { accounts, codes, limiter, smsGuard } = this.deps;
    const { sendCode: limits, codeTtlSeconds } = this.settings;
    const phone = this.phone(input.phone);
    const purpose = input.purpose;
    smsGuard.assertServed(phone);
    await limiter.consume(
      [{ name: 'send-code-per-ip-hourly', key: `send-code:ip:${client.ip ?? 'unknown'}`, limit: limits.perIpHourly, windowSeconds: HOUR }],
      msg('code.tooManyFromAddress'),
    );
    await smsGuard.admitCountry(client.ip, phone.country);
    const user = await accounts.findByPhone(phone.e164);
    // Nothing is sent for a blocked account, whatever the purpose: no way back in, no SMS to pay for.
    if (user?.blocked) throw accountBlocked();
    if (purpose === CodePurpose.REGISTER) {
      assertThat(!user, ErrorCode.PHONE_ALREADY_REGISTERED, msg('auth.phoneRegistered'));
    }
    if (purpose === CodePurpose.REGISTER || (purpose === CodePurpose.LOGIN && !user)) {
      assertThat(this.settings.registrationEnabled, ErrorCode.REGISTRATION_DISABLED, msg('auth.registrationDisabled'));
    }
    // Asked of unknown phones too (reset, delete), so that the answers cannot tell accounts apart.
    await smsGuard.assertOpen(phone.country);
    // Per-phone limits count for unknown phones too, for the same reason.
    const perPhone: Rule[] = [
      { name: 'send-code-interval', key: `send-code:phone:${phone.e164}:interval`, limit: 1, windowSeconds: limits.intervalSeconds },
      { name: 'send-code-per-phone-hourly', key: `send-code:phone:${phone.e164}:hour`, limit: limits.perPhoneHourly, windowSeconds: HOUR },
      { name: 'send-code-per-phone-daily', key: `send-code:phone:${phone.e164}:day`, limit: limits.perPhoneDaily, windowSeconds: DAY },
    ].filter((rule) => rule.windowSeconds > 0);
    await limiter.consume(perPhone, msg('code.tooManyForPhone'));

    const mustExist = purpose === CodePurpose.RESET_PASSWORD || purpose === CodePurpose.DELETE_ACCOUNT;
    if (!mustExist || user) {
      // Issued before sending and never withdrawn: after a timeout the SMS may have arrived.
      const code = await codes.issue(phone.e164, purpose);
      try {
        await smsGuard.send(phone.country, () => this.deliver({ phone: phone.e164, code, purpose, ttlSeconds: codeTtlSeconds, locale: smsLocale(ownReader(user?.locale, client), phone, this.settings.defaultLocale) }));
      } catch (error) {
        // Only a send that surely reached no one gives the phone's allowance back; one that may
        // have gone out (a timeout) counts, or a slow provider would let anyone send without limit.
        if (!(error instanceof SmsDeliveryError) || error.definite) await limiter.undo(perPhone);
        if (error instanceof SmsDeliveryError) {
          throw new AppError(ErrorCode.SMS_DELIVERY_FAILED, msg('sms.deliveryFailed'), { cause: error });
        }
        throw error;
      }
      // After the provider took it: the event records an SMS that went out.
      await this.deps.events.recordUnlocked({ type: SecurityEventType.CODE_SENT, userId: user?.id, phone: phone.e164, client });
    }
    return { expiresIn: codeTtlSeconds, resendAfter: limits.intervalSeconds };
  }

  /**
   * Signs in by SMS code; creates the account when there is none and registration is on. The code is
   * checked first: whether the phone has an account, and whether registration is off, is told only to
   * the holder of a valid code (a wrong one answers INVALID_CODE for every phone).
   */
  loginWithCode(input: CodeLoginInput, client: ClientInfo): Promise<AuthPayload> {
    return this.signIns.counted('code', () => this.codeSignIn(input, client));
  }

  private async codeSignIn(input: CodeLoginInput, client: ClientInfo): Promise<AuthPayload> {
    const { accounts } = this.deps;
    const phone = this.phone(input.phone);
    const existing = await accounts.findByPhone(phone.e164);
    await this.signIns.consumeCode(phone, CodePurpose.LOGIN, input.code, existing, client);
    if (existing) return this.signIns.complete(existing.id, SignInMethod.CODE, client, { isNewUser: false, gate: true });
    assertThat(this.settings.registrationEnabled, ErrorCode.REGISTRATION_DISABLED, msg('auth.registrationDisabled'));
    const created = await accounts.createIfAbsent({ phone: phone.e164, nickname: defaultNickname(phone.e164), passwordHash: null });
    if (created) return this.signIns.complete(created.id, SignInMethod.CODE, client, { isNewUser: true });
    // Created by a concurrent request between our lookup and insert: sign in to that account.
    const raced = await accounts.findByPhone(phone.e164);
    if (!raced) throw codeGone();
    return this.signIns.complete(raced.id, SignInMethod.CODE, client, { isNewUser: false, gate: true });
  }

  /** Unknown phone, wrong password and code-only account fail alike (see PasswordCheck). */
  loginWithPassword(input: PasswordLoginInput, client: ClientInfo): Promise<AuthPayload> {
    return this.signIns.counted('password', () => this.passwordSignIn(input, client));
  }

  private async passwordSignIn(input: PasswordLoginInput, client: ClientInfo): Promise<AuthPayload> {
    const phone = this.phone(input.phone);
    const user = await this.deps.accounts.findByPhone(phone.e164);
    const ok = await this.deps.passwords.verify(phone.e164, client.ip, input.password, user?.passwordHash);
    if (!user || !ok) {
      await this.signIns.recordFailure(SignInMethod.PASSWORD, phone.e164, user, client);
      throw invalidCredentials();
    }
    return this.signIns.complete(user.id, SignInMethod.PASSWORD, client, { isNewUser: false, gate: true });
  }

  /**
   * Sets a new password with a reset-password code and ends every session of the account, and every
   * half-finished sign-in (mfaTokens, passkey registrations) begun before it.
   */
  async resetPassword(input: ResetPasswordInput, client: ClientInfo): Promise<void> {
    const { db, accounts, codes, hasher, sessions, events, pendingSignIns } = this.deps;
    const phone = this.phone(input.phone);
    assertPasswordPolicy(input.newPassword, phone, 'newPassword');
    // An unknown phone has no code, so it fails here exactly like a wrong code.
    await codes.consume(phone.e164, CodePurpose.RESET_PASSWORD, input.code, client.ip);
    const user = await accounts.findByPhone(phone.e164);
    if (!user) throw codeGone();
    const passwordHash = await hasher.hash(input.newPassword);
    await db.transaction(async () => {
      // Deleted since it was read: the code was of an account that no longer exists.
      if (!(await accounts.lock(user.id))) throw codeGone();
      await accounts.setPasswordHash(user.id, passwordHash);
      await sessions.revokeAllOf(user.id);
      await pendingSignIns.endAllOf(user.id);
      await events.record({ type: SecurityEventType.PASSWORD_RESET, userId: user.id, phone: phone.e164, client });
    });
  }

  /**
   * Creates an account with a password and a register code. The code is checked before the phone:
   * PHONE_ALREADY_REGISTERED goes only to the holder of a valid code, so a wrong code cannot probe
   * which phones have accounts; a register code touches nothing of an existing account.
   */
  async register(input: RegisterInput, client: ClientInfo): Promise<AuthPayload> {
    const { accounts, hasher } = this.deps;
    const phone = this.phone(input.phone);
    const nickname = input.nickname == null ? defaultNickname(phone.e164) : normaliseNickname(input.nickname);
    assertPasswordPolicy(input.password, phone);
    assertThat(this.settings.registrationEnabled, ErrorCode.REGISTRATION_DISABLED, msg('auth.registrationDisabled'));
    const taken = () => new AppError(ErrorCode.PHONE_ALREADY_REGISTERED, msg('auth.phoneRegistered'));
    // No account is named: a registration's failure is no attempt on the account of the phone.
    await this.signIns.consumeCode(phone, CodePurpose.REGISTER, input.code, undefined, client);
    if (await accounts.findByPhone(phone.e164)) throw taken();
    const passwordHash = await hasher.hash(input.password);
    const created = await accounts.createIfAbsent({ phone: phone.e164, nickname, passwordHash });
    if (!created) throw taken();
    // The code proved the phone: a registration is a sign-in by code.
    return this.signIns.complete(created.id, SignInMethod.CODE, client, { isNewUser: true });
  }

  /**
   * Finishes what answered MFA_REQUIRED: the code (TOTP or recovery) is spent on the mfaToken, and
   * either the sign-in's new session names both factors, or (a step-up) the session that asked gains
   * them and gets fresh tokens.
   */
  verifyMfa(mfaToken: string, code: string, client: ClientInfo): Promise<AuthPayload> {
    return this.signIns.counted('mfa', () =>
      this.deps.secondFactors.verify(mfaToken, code, client, (passed) =>
        passed.kind === 'step-up'
          ? this.signIns.stepUp(passed.userId, passed.sessionId, passed.amr)
          : this.signIns.complete(passed.userId, passed.method, client, { isNewUser: false, amr: passed.amr, external: passed.external }),
      ),
    );
  }

  /** Request options of a passkey sign-in (no phone: any discoverable credential), under a single-use challenge. */
  passkeyOptions(client: ClientInfo): Promise<{ challengeId: string; options: unknown }> {
    return this.deps.passkeys.options(client);
  }

  /** Signs in with a passkey: a possession factor with user verification, so no second factor is asked. */
  loginWithPasskey(challengeId: string, response: AuthenticationResponseInput, client: ClientInfo): Promise<AuthPayload> {
    return this.signIns.counted('passkey', async () => {
      const { userId } = await this.deps.passkeys.verify(challengeId, response, client);
      return this.signIns.complete(userId, SignInMethod.PASSKEY, client, { isNewUser: false });
    });
  }

  /**
   * Rotates the refresh token. A used one presented again within the grace window gets the same new
   * one (see SessionService.rotate); after it, it revokes its session (reuse detection), recorded with
   * the revocation.
   */
  refresh(refreshToken: string, client: ClientInfo): Promise<AuthPayload> {
    return this.signIns.counted('refresh', () => this.rotate(refreshToken, client));
  }

  private async rotate(refreshToken: string, client: ClientInfo): Promise<AuthPayload> {
    const { db, accounts, sessions, events } = this.deps;
    const rotation = await sessions.rotate(refreshToken);
    if (rotation.outcome === 'rotated') {
      return this.signIns.payload(rotation.issued, await accounts.getSignInable(rotation.issued.userId), false);
    }
    if (rotation.outcome === 'reused') {
      const { sessionId, userId } = rotation;
      const user = await accounts.findById(userId);
      await db.transaction(async () => {
        // An account deleted meanwhile took the session with it; the event then belongs to no one,
        // as the deletion would have left it.
        const present = await accounts.lock(userId);
        if (present) await sessions.revoke(userId, sessionId);
        await events.record({ type: SecurityEventType.REFRESH_REUSE, userId: present ? userId : null, phone: user?.phone, sessionId, client });
      });
    }
    // A block ended the token's session: its holder learns why rather than to sign in again.
    if (rotation.userId && (await accounts.isBlocked(rotation.userId))) throw accountBlocked();
    // Its session has ended (just now, by the reuse, or before): only a new sign-in helps.
    if (rotation.outcome !== 'invalid') throw unauthenticated('session_ended', msg('token.refreshSessionEnded'));
    throw unauthenticated('invalid', msg('token.refreshInvalid'));
  }

  async logout(principal: Principal, allSessions: boolean, client: ClientInfo): Promise<void> {
    const { db, accounts, sessions, events } = this.deps;
    await db.transaction(async () => {
      await accounts.lockActive(principal.userId);
      if (allSessions) await sessions.revokeAllOf(principal.userId);
      else await sessions.revoke(principal.userId, principal.sessionId);
      await events.recordOwn(SecurityEventType.LOGOUT, principal, client);
    });
  }

  /**
   * Logout with a refresh token instead of an access token (API.md 10.5): ends the token's session
   * (or, with `allSessions`, every session of its account) as `logout` does. A token that is unused,
   * or used within the grace window, names its session; any other is `invalid`. A session already
   * ended is `session_ended`, as the access token of an ended session is (not an idempotent success).
   * `caller`: the bearer token's principal when one was sent too: the refresh token must then be of
   * the same account, or it is refused as unknown (`invalid`), telling nothing of another account's.
   */
  async logoutWithRefreshToken(refreshToken: string, caller: Principal | undefined, allSessions: boolean, client: ClientInfo): Promise<void> {
    const holder = await this.deps.sessions.holderOf(refreshToken);
    if (!holder || (caller && caller.userId !== holder.factors.userId)) {
      throw unauthenticated('invalid', msg('token.refreshInvalid'));
    }
    if (!holder.user) throw unauthenticated('session_ended', msg('token.refreshSessionEndedShort'));
    const { sessionId, userId, amr, authTime } = holder.factors;
    await this.logout({ sessionId: sessionId as Uuid, userId: userId as Uuid, amr, authTime, user: holder.user }, allSessions, client);
  }

  /**
   * Revokes one live session of the signed-in user, recorded with it; NOT_FOUND for any other id,
   * whoever's it is, and for text that is no id at all (null).
   */
  async revokeSession(principal: Principal, sessionId: Uuid | null, client: ClientInfo): Promise<void> {
    const { db, accounts, sessions, events } = this.deps;
    await db.transaction(async () => {
      await accounts.lockActive(principal.userId);
      if (!sessionId || !(await sessions.revokeOwn(principal.userId, sessionId))) throw new AppError(ErrorCode.NOT_FOUND, msg('session.notFound'));
      await events.recordOwn(SecurityEventType.SESSION_REVOKED, principal, client, sessionId);
    });
  }

  /** The provider's send; whatever it throws is an SmsDeliveryError (unknown failures: maybe sent). */
  private async deliver(message: SmsMessage): Promise<void> {
    try {
      await this.deps.sms.send(message);
    } catch (error) {
      if (error instanceof SmsDeliveryError) throw error;
      throw new SmsDeliveryError(`${this.deps.sms.name}: failed`, { definite: false, cause: error });
    }
  }

  private phone(raw: string): Phone {
    return parsePhone(raw, this.settings.defaultPhoneRegion);
  }
}
