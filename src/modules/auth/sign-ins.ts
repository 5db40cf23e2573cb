import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import { toAppError } from '../../shared/errors/normalize.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { Phone } from '../../shared/phone.js';
import type { RateLimiter } from '../../shared/rate-limit/rate-limiter.js';
import type { AccessTokens } from '../../shared/tokens/access-token.js';
import { accountBlocked, type AccountService } from '../account/account.service.js';
import type { UserView } from '../account/user.view.js';
import { SecurityEventType, SignInMethod } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { IssuedRefresh, SessionService } from '../session/session.service.js';
import { firstFactorAmr, type Amr } from './amr.js';
import { NO_AUTH_METRICS, type AuthMetrics, type SignInMetricMethod } from './auth-metrics.js';
import type { CodePurpose } from './code-purpose.js';
import type { ExternalIdentities, ExternalSignIn, SecondFactors } from './second-factor.js';
import { provesOnlyThePhone, type DormantAccounts } from './second-proof.js';
import { SignInFailureLog, type FailedAccount } from './sign-in-failure-log.js';
import type { VerificationCodeService } from './verification-code.service.js';

export interface AuthPayload {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
  isNewUser: boolean;
  user: UserView;
}

export interface SignInDependencies {
  db: Database;
  accounts: AccountService;
  codes: VerificationCodeService;
  sessions: SessionService;
  tokens: AccessTokens;
  limiter: RateLimiter;
  events: SecurityEventService;
  /** TOTP and recovery codes: asked after every right first factor of an account that has them on. */
  secondFactors: SecondFactors;
  /** External identities: a sign-in that proved a phone for one links it when it completes. */
  identities: Pick<ExternalIdentities, 'link'>;
  /** Sign-ins counted by method and outcome; none when metrics are off. */
  metrics?: AuthMetrics;
  /** Phone changes: a code sign-in (the current phone proven) cancels one waiting for a lost phone. */
  phoneChanges?: { cancelWaitingOnSignIn(userId: string, phone: string, sessionId: string, client: ClientInfo): Promise<void> };
  /** The dormant-account rule: a sign-in by the phone alone to an account long unused asks another proof. */
  dormant?: Pick<DormantAccounts, 'demand'>;
}

export interface SignInOptions {
  isNewUser: boolean;
  /** A first factor alone: an account with a second factor on answers MFA_REQUIRED instead. */
  gate?: boolean;
  /** The methods of a sign-in by more than `method` (default: the method's own). */
  amr?: Amr[];
  /** Of a sign-in through an external provider: the provider, and the identity to link, if any. */
  external?: ExternalSignIn;
}

/**
 * The end every sign-in shares, whatever proved who the user is (a code, a password, a passkey, a
 * second factor, an external provider): the second factor's gate, the login count, the session and
 * the SIGN_IN event in one transaction, and the tokens. Also what the sign-in use cases share on the
 * way there: an SMS code used up (a wrong one a failed sign-in) and the counting of outcomes.
 */
export class SignIns {
  private readonly failures: SignInFailureLog;
  private readonly metrics: AuthMetrics;

  constructor(
    private readonly deps: SignInDependencies,
    private readonly settings: { refreshTtlSeconds: number },
  ) {
    this.failures = new SignInFailureLog(deps.limiter, deps.events);
    this.metrics = deps.metrics ?? NO_AUTH_METRICS;
  }

  /**
   * The login count, the session and the SIGN_IN event, in one transaction. The count comes first:
   * its update locks the account's row until the commit, so a deletion running meanwhile either
   * finished before (no row: the sign-in fails as its code or password would, never with a session
   * on a missing account) or waits for this sign-in and then ends its session with the account.
   *
   * `gate`: a first factor alone, so an account with a second factor on answers MFA_REQUIRED with an
   * mfaToken instead (a blocked one ACCOUNT_BLOCKED, as it would without); the mfaToken carries what
   * `external` says to the sign-in's end. An identity to link is linked in the same transaction (or
   * not at all: IDENTITY_ALREADY_LINKED, and no session).
   */
  async complete(userId: string, method: SignInMethod, client: ClientInfo, options: SignInOptions): Promise<AuthPayload> {
    const { isNewUser, gate = false, amr = firstFactorAmr(method), external } = options;
    const { db, sessions, accounts, events, secondFactors, identities } = this.deps;
    if (gate) {
      // Before the second factor's gate: a recycled number's new holder is asked what only the account's owner has.
      if (provesOnlyThePhone(amr)) await this.deps.dormant?.demand(userId, method, amr, external);
      const challenge = await secondFactors.challenge(userId, method, amr, client, external);
      if (challenge) {
        if (await accounts.isBlocked(userId)) throw accountBlocked();
        throw new AppError(ErrorCode.MFA_REQUIRED, msg('auth.mfaRequired'), { details: { ...challenge } });
      }
    }
    const [issued, user] = await db.transaction(async () => {
      const account = await accounts.recordSignIn(userId);
      if (!account) throw method === SignInMethod.CODE ? codeGone() : invalidCredentials();
      const provider = external?.provider;
      const session = await sessions.create(userId, client, method.toLowerCase(), amr, provider);
      if (external?.link) await identities.link(userId, external.link, client, { signedIn: true, sessionId: session.sessionId });
      await events.record({ type: SecurityEventType.SIGN_IN, method, provider, userId, phone: account.phone, sessionId: session.sessionId, client });
      // A code proved the current phone: its holder is back, and a change waiting for a lost phone ends.
      if (method === SignInMethod.CODE) await this.deps.phoneChanges?.cancelWaitingOnSignIn(userId, account.phone, session.sessionId, client);
      return [session, account] as const;
    });
    return this.payload(issued, user, isNewUser);
  }

  /** The tokens of a session just made, rotated or upgraded. */
  async payload(issued: IssuedRefresh, user: UserView, isNewUser: boolean): Promise<AuthPayload> {
    const { tokens } = this.deps;
    return {
      accessToken: await tokens.sign({ userId: issued.userId, sessionId: issued.sessionId, amr: issued.amr, authTime: issued.authTime }),
      tokenType: 'Bearer',
      expiresIn: tokens.ttlSeconds,
      refreshToken: issued.refreshToken,
      refreshExpiresIn: this.settings.refreshTtlSeconds,
      isNewUser,
      user,
    };
  }

  /**
   * A step-up's upgrade, in the transaction that spends its code: the same session, its methods
   * completed and proven now, with a new access token and a new refresh token. No sign-in is counted
   * and no event written: no session begins, and the change the step-up was for records its own.
   */
  async stepUp(userId: string, sessionId: string, added: readonly Amr[]): Promise<AuthPayload> {
    const { sessions, accounts } = this.deps;
    const issued = await sessions.stepUp(sessionId, userId, added);
    // Ended (or its account blocked) since the token was looked at: a dead token, and nothing spent.
    if (!issued) throw new AppError(ErrorCode.INVALID_CODE, msg('code.invalidShort'));
    return this.payload(issued, await accounts.getSignInable(userId), false);
  }

  /** Uses the code; a wrong one is a failed sign-in, recorded (see SignInFailureLog) before INVALID_CODE goes back. */
  async consumeCode(phone: Phone, purpose: CodePurpose, code: string, account: FailedAccount | undefined, client: ClientInfo): Promise<void> {
    try {
      await this.deps.codes.consume(phone.e164, purpose, code, client.ip);
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.INVALID_CODE) {
        await this.failures.record(SignInMethod.CODE, phone.e164, account, client);
      }
      throw error;
    }
  }

  /** A failed sign-in of `method` (see SignInFailureLog). */
  recordFailure(method: SignInMethod, phone: string, account: FailedAccount | undefined, client: ClientInfo): Promise<void> {
    return this.failures.record(method, phone, account, client);
  }

  /** Counts the sign-in's outcome (registration is not a sign-in here: it creates the account). */
  async counted(method: SignInMetricMethod, attempt: () => Promise<AuthPayload>): Promise<AuthPayload> {
    try {
      const payload = await attempt();
      this.metrics.signIn(method, 'success');
      return payload;
    } catch (error) {
      this.metrics.signIn(method, toAppError(error).code);
      throw error;
    }
  }
}

/** The right code of an account deleted meanwhile (or a reset for a phone without one): as if it were used. */
export function codeGone(): AppError {
  return new AppError(ErrorCode.INVALID_CODE, msg('code.invalid'));
}

export function invalidCredentials(): AppError {
  return new AppError(ErrorCode.INVALID_CREDENTIALS, msg('auth.invalidCredentials'));
}
