import QRCode from 'qrcode';
import { isForeignKeyViolation, type Database } from '../../db/database.js';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { RateLimiter, Rule } from '../../shared/rate-limit/rate-limiter.js';
import { unauthenticated } from '../../shared/tokens/access-token.js';
import { oneTimeTokenHash } from '../../shared/tokens/canonical.js';
import { randomToken, sha256Hex } from '../../shared/tokens/secrets.js';
import type { AccountService } from '../account/account.service.js';
import type { Principal } from '../account/principal.js';
import { SECOND_FACTOR_AMR, withSecondFactor, type Amr } from '../auth/amr.js';
import type { PendingSignIns } from '../auth/pending-sign-ins.js';
import type { ExternalSignIn, MfaChallenge, PassedSecondFactor, SecondFactors } from '../auth/second-factor.js';
import { SignInFailureLog } from '../auth/sign-in-failure-log.js';
import { provesRecentSecondFactor, STEP_UP_MAX_AGE_SECONDS, type RecentSecondFactor } from '../auth/step-up.js';
import { SecurityEventType, type SignInMethod } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { SessionService } from '../session/session.service.js';
import type { ChallengePurpose } from './mfa-challenge.entity.js';
import { MfaMethod } from './mfa-method.js';
import type { MfaRepository, SpentToken, StoredFactor } from './mfa.repository.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import type { SecretBox } from './secret-box.js';
import { newTotpSecret, totpStep } from './totp.js';

export interface MfaStatus {
  totp: boolean;
  recoveryCodesLeft: number;
  passkeys: number;
}

export interface TotpEnrollment {
  /** Base32, for typing into an authenticator app. */
  secret: string;
  otpauthUri: string;
  qrCodeSvg: string;
}

export interface MfaSettings {
  /** The otpauth:// issuer an authenticator app shows. */
  totpIssuer: string;
  /** Wrong second-factor codes per account and client address per 15 minutes (as password failures). */
  failuresPerAccountIp: number;
  /** Wrong second-factor codes per account per hour, whatever the address. */
  failuresPerAccountHourly: number;
}

export interface MfaDependencies {
  db: Database;
  mfa: MfaRepository;
  accounts: AccountService;
  sessions: SessionService;
  events: SecurityEventService;
  limiter: RateLimiter;
  box: SecretBox;
  /** Half-finished sign-ins (this module's mfaTokens among them), ended when TOTP goes off. */
  pendingSignIns: PendingSignIns;
}

/** The lifetime of an mfaToken (and of a proofToken). */
export const CHALLENGE_TTL_SECONDS = 300;
/** What a refused code is told: the account's wrong codes reached a limit, or codes being checked fill it. */
const ATTEMPT_MESSAGES = {
  locked: msg('mfa.locked'),
  busy: msg('mfa.busy'),
};
/** Wrong codes an mfaToken (or wrong proofs a proofToken) takes before it is dead. */
export const MAX_ATTEMPTS = 5;
const MFA_METHODS: readonly MfaMethod[] = [MfaMethod.totp, MfaMethod.recovery];

type Spent = 'totp' | 'recovery';

/**
 * TOTP (RFC 6238) and recovery codes: enrolment and switching off for the signed-in user, the second
 * factor of sign-in (the SecondFactors port of AuthService), and the step-up of a signed-in session
 * that a change needing a recent second factor asks for (the RecentSecondFactor port). Every code is
 * accepted once: a TOTP step by a conditional update that only moves the last accepted step forward,
 * a recovery code by one that marks it used, so a replay fails on every instance sharing the
 * database. Wrong codes count against the account like password failures, before any code is looked at.
 */
export class MfaService implements SecondFactors, RecentSecondFactor {
  private readonly failures: SignInFailureLog;

  constructor(
    private readonly deps: MfaDependencies,
    private readonly settings: MfaSettings,
  ) {
    this.failures = new SignInFailureLog(deps.limiter, deps.events);
  }

  async status(userId: string): Promise<MfaStatus> {
    return this.deps.mfa.status(userId);
  }

  /** Those of `userIds` with TOTP on, for the operators' view of accounts. */
  totpEnabledOf(userIds: string[]): Promise<Set<string>> {
    return this.deps.mfa.confirmedOf(userIds);
  }

  /** A new pending TOTP secret, replacing any pending one; MFA_ALREADY_ENABLED while TOTP is on. */
  async startTotpEnrollment(principal: Principal): Promise<TotpEnrollment> {
    const { db, accounts, mfa, box } = this.deps;
    const { userId } = principal;
    const { secret, base32, uri } = newTotpSecret(this.settings.totpIssuer, principal.user.phone);
    const qrCodeSvg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M' });
    await db.transaction(async () => {
      await accounts.lockActive(userId);
      if (!(await mfa.savePending(userId, box.seal(secret, userId)))) throw alreadyEnabled();
    });
    return { secret: base32, otpauthUri: uri, qrCodeSvg };
  }

  /**
   * Turns TOTP on with a code of the pending secret; returns the recovery codes, shown this once.
   * NOT_FOUND without a pending enrolment, MFA_ALREADY_ENABLED once on, INVALID_CODE for a wrong code.
   */
  async confirmTotp(principal: Principal, code: string, client: ClientInfo): Promise<string[]> {
    const { db, accounts, mfa, events } = this.deps;
    const { userId } = principal;
    return db.transaction(async () => {
      await accounts.lockActive(userId);
      const factor = await mfa.factor(userId);
      if (!factor) throw new AppError(ErrorCode.NOT_FOUND, msg('mfa.noPendingEnrolment'));
      if (factor.confirmed) throw alreadyEnabled();
      const typed = digitsOf(code);
      const step = typed === undefined ? undefined : totpStep(this.secretOf(factor, userId), typed);
      if (step === undefined || !(await mfa.confirm(userId, step, factor.secretSealed))) throw wrongCode();
      const recoveryCodes = await this.replaceRecoveryCodes(userId);
      await events.recordOwn(SecurityEventType.MFA_ENABLED, principal, client);
      return recoveryCodes;
    });
  }

  /**
   * Turns TOTP off with a current TOTP or an unused recovery code: the factor and the recovery codes
   * go, and every other session of the account and every half-finished sign-in (mfaTokens, passkey
   * registrations) end with them, so that none finishes once TOTP is on again.
   */
  async disableTotp(principal: Principal, code: string, client: ClientInfo): Promise<void> {
    const { sessions, mfa, events, pendingSignIns } = this.deps;
    const { userId, sessionId } = principal;
    await this.withCode(principal, code, client, async () => {
      await mfa.removeAll(userId);
      await sessions.revokeOthers(userId, sessionId);
      await pendingSignIns.endAllOf(userId);
      await events.recordOwn(SecurityEventType.MFA_DISABLED, principal, client);
    });
  }

  /** A new set of recovery codes, with a current TOTP or an unused recovery code; the old set stops working. */
  regenerateRecoveryCodes(principal: Principal, code: string, client: ClientInfo): Promise<string[]> {
    return this.withCode(principal, code, client, () => this.replaceRecoveryCodes(principal.userId));
  }

  async challenge(userId: string, method: SignInMethod, amr: Amr[], _client: ClientInfo, external?: ExternalSignIn): Promise<MfaChallenge | undefined> {
    const { mfa } = this.deps;
    if (!(await mfa.factor(userId))?.confirmed) return undefined;
    const mfaToken = randomToken();
    try {
      await mfa.createChallenge(sha256Hex(mfaToken), { userId, method, amr, external }, CHALLENGE_TTL_SECONDS);
    } catch (error) {
      // Deleted since its first factor passed: the sign-in then fails as for a missing account.
      if (isForeignKeyViolation(error)) return undefined;
      throw error;
    }
    return { mfaToken, mfaMethods: [...MFA_METHODS] };
  }

  /**
   * Passes when the account has no TOTP on or the principal's token proves a second factor (or a
   * passkey) within the last 10 minutes; otherwise MFA_REQUIRED with an mfaToken bound to the account
   * and the principal's session, as the sign-in's (5 minutes, single use), which replaces any earlier
   * one of the session.
   */
  async requireRecentSecondFactor(principal: Principal): Promise<void> {
    if (provesRecentSecondFactor(principal)) return;
    const { mfa } = this.deps;
    const { userId, sessionId } = principal;
    if (!(await mfa.factor(userId))?.confirmed) return;
    const mfaToken = randomToken();
    try {
      await mfa.createStepUp(sha256Hex(mfaToken), { userId, sessionId, amr: [...principal.amr] }, CHALLENGE_TTL_SECONDS);
    } catch (error) {
      // The account (and with it the session) deleted since the token was checked: as its token now is.
      if (isForeignKeyViolation(error)) throw unauthenticated('session_ended');
      throw error;
    }
    throw new AppError(ErrorCode.MFA_REQUIRED, msg('mfa.stepUpRequired', { minutes: String(STEP_UP_MAX_AGE_SECONDS / 60) }), {
      details: { mfaToken, mfaMethods: [...MFA_METHODS] },
    });
  }

  /**
   * Spends a code on an mfaToken. An unknown, expired, used or dead token is INVALID_CODE whatever
   * the code, and so is a step-up token whose session has ended; a wrong code counts against the
   * token (five kill it) and the account's failure limits. `purpose` `second-proof`: the token is a
   * dormant account's proofToken instead (see SecondProofTokens), taken here for its TOTP or recovery code.
   */
  async verify<T>(
    mfaToken: string,
    code: string,
    client: ClientInfo,
    complete: (passed: PassedSecondFactor) => Promise<T>,
    purpose: ChallengePurpose = 'second-factor',
  ): Promise<T> {
    const { db, mfa, accounts, events, sessions } = this.deps;
    // Only the token's canonical spelling is looked up: any other is an unknown token.
    const tokenHash = oneTimeTokenHash(mfaToken);
    if (!tokenHash) throw wrongCode();
    const found = await mfa.challengeWithFactor(tokenHash, MAX_ATTEMPTS, purpose);
    if (!found) throw wrongCode();
    // A step-up of a session that ended since (a logout, a revocation, a block) is as dead as its
    // session, before any limit or code; the upgrade checks again where it is written.
    if (found.sessionId && !(await sessions.isLive(found.sessionId, found.userId))) throw wrongCode();
    let signedIn: { result: T } | undefined;
    const verdict = await this.deps.limiter.attempt(this.failureRules(found.userId, client), ATTEMPT_MESSAGES, () =>
      db.transaction(async () => {
        // The account first, as every change of it takes it (a deleted one ends here): the verifies
        // of one account, and so of one token, run one at a time from here.
        if (!(await accounts.lock(found.userId))) return undefined;
        // The factor read with the token: a code is spent only on that very secret (see useStep).
        const token = { hash: tokenHash, maxAttempts: MAX_ATTEMPTS };
        const spent = found.factor?.confirmed ? await this.spend(found.userId, found.factor, code, token) : undefined;
        if (!spent) {
          // A token spent or ended by the verify this one waited for is no wrong code of this caller's.
          if (!(await mfa.lockChallenge(tokenHash, MAX_ATTEMPTS))) return undefined;
          await mfa.countWrong(tokenHash);
          return false;
        }
        if (spent === 'recovery') {
          const phone = (await accounts.findById(found.userId))?.phone;
          await events.record({ type: SecurityEventType.RECOVERY_CODE_USED, userId: found.userId, phone, client });
        }
        // The sign-in (or the session's upgrade) in this transaction: a code is spent only with a
        // session made or upgraded (a blocked account's right code, refused there, is not), and one
        // commit less on the way.
        const passed: PassedSecondFactor = found.sessionId
          ? { kind: 'step-up', userId: found.userId, sessionId: found.sessionId, amr: SECOND_FACTOR_AMR }
          : {
              kind: 'sign-in',
              userId: found.userId,
              method: found.method as SignInMethod,
              amr: withSecondFactor(found.amr as Amr[]),
              ...(found.external && { external: found.external }),
            };
        signedIn = { result: await complete(passed) };
        return true;
      }),
    );
    if (signedIn) return signedIn.result;
    if (verdict === undefined) throw wrongCode();
    const account = await accounts.findById(found.userId);
    // A step-up has no first factor of its own: its wrong codes are MFA_FAILED without a method.
    if (account) await this.failures.record((found.method as SignInMethod | null) ?? undefined, account.phone, account, client, SecurityEventType.MFA_FAILED);
    throw wrongCode();
  }

  sweepExpired(): Promise<Record<string, number>> {
    return this.deps.mfa.sweepExpired();
  }

  /**
   * `change` of the signed-in user's, in the transaction that spends `code` (a TOTP or an unused
   * recovery code; the account's row held): a phone change's account proof. INVALID_CODE when the
   * code does not pass, NOT_FOUND while TOTP is off.
   */
  withSecondFactorCode<T>(principal: Principal, code: string, client: ClientInfo, change: () => Promise<T>): Promise<T> {
    return this.withCode(principal, code, client, change);
  }

  /**
   * Runs `change` in one transaction once `code` (a TOTP or an unused recovery code) is spent;
   * NOT_FOUND while TOTP is off. A wrong code counts against the account's failure limits, as at sign-in.
   */
  private async withCode<T>(principal: Principal, code: string, client: ClientInfo, change: () => Promise<T>): Promise<T> {
    const { db, accounts, mfa, events, limiter } = this.deps;
    const { userId } = principal;
    let changed: { result: T } | undefined;
    const verdict = await limiter.attempt(this.failureRules(userId, client), ATTEMPT_MESSAGES, () =>
      db.transaction(async () => {
        await accounts.lockActive(userId);
        const factor = await mfa.factor(userId);
        if (!factor?.confirmed) throw new AppError(ErrorCode.NOT_FOUND, msg('mfa.totpOff'));
        const spent = await this.spend(userId, factor, code);
        if (!spent) return false;
        if (spent === 'recovery') await events.recordOwn(SecurityEventType.RECOVERY_CODE_USED, principal, client);
        changed = { result: await change() };
        return true;
      }),
    );
    if (!changed) throw wrongCode();
    return changed.result;
  }

  /** Uses `code` once: six digits are a TOTP code, anything else may be a recovery code. */
  /** Uses the code (and with `token`, that mfaToken in the same statement); what it was, or undefined when it was wrong. */
  private async spend(userId: string, factor: StoredFactor, code: string, token?: SpentToken): Promise<Spent | undefined> {
    const { mfa } = this.deps;
    const digits = digitsOf(code);
    if (digits !== undefined) {
      const step = totpStep(this.secretOf(factor, userId), digits);
      return step !== undefined && (await mfa.useStep(userId, step, factor.secretSealed, token)) ? 'totp' : undefined;
    }
    const hash = recoveryCodeHash(code);
    return hash && (await mfa.useRecoveryCode(userId, hash, token)) ? 'recovery' : undefined;
  }

  private async replaceRecoveryCodes(userId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await this.deps.mfa.replaceRecoveryCodes(userId, codes.map((code) => recoveryCodeHash(code)!));
    return codes;
  }

  /** A secret that does not open is a fault (a changed MFA_ENCRYPTION_KEY, a row moved), never a wrong code. */
  private secretOf(factor: StoredFactor, userId: string): Uint8Array {
    const secret = this.deps.box.open(factor.secretSealed, userId);
    if (!secret) throw new Error('A TOTP secret does not open with the configured MFA_ENCRYPTION_KEY');
    return secret;
  }

  private failureRules(userId: string, client: ClientInfo): Rule[] {
    return [
      { name: 'mfa-failures-per-account-ip', key: `mfa-fail:user-ip:${userId}:${client.ip ?? 'unknown'}`, limit: this.settings.failuresPerAccountIp, windowSeconds: 15 * 60 },
      { name: 'mfa-failures-per-account-hourly', key: `mfa-fail:user:${userId}`, limit: this.settings.failuresPerAccountHourly, windowSeconds: 3600 },
    ];
  }
}

/** Six digits, spaces and hyphens aside (as some apps show them: `123 456`). */
function digitsOf(code: string): string | undefined {
  const typed = code.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(typed) ? typed : undefined;
}

function alreadyEnabled(): AppError {
  return new AppError(ErrorCode.MFA_ALREADY_ENABLED, msg('mfa.totpOn'));
}

function wrongCode(): AppError {
  return new AppError(ErrorCode.INVALID_CODE, msg('code.invalidShort'));
}
