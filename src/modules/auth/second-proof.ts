import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { AccountService } from '../account/account.service.js';
import type { SignInMethod } from '../security-event/security-event-type.js';
import type { Amr } from './amr.js';
import type { ExternalSignIn, PassedSecondFactor } from './second-factor.js';

/**
 * What SECOND_PROOF_REQUIRED offers: `password`, `totp` and `recovery` are taken by
 * completeSecondProof with the proofToken; `passkey` and `identity` mean "sign in with your passkey,
 * or through your linked provider, instead": those sign-ins never rested on the phone.
 */
export type SecondProofMethod = 'password' | 'totp' | 'recovery' | 'passkey' | 'identity';

/** The sign-in a live proofToken stands for: whose, its first factor, that factor's methods, and an identity to link. */
export interface ProofHolder {
  userId: string;
  method: SignInMethod;
  amr: Amr[];
  external?: ExternalSignIn;
}

/** The proofTokens, as the sign-in use cases see them (the MFA module keeps them beside its mfaTokens). */
export interface ProofTokens {
  /** A new proofToken of the sign-in; undefined when the account was deleted meanwhile. */
  issue(userId: string, method: SignInMethod, amr: Amr[], external?: ExternalSignIn): Promise<string | undefined>;
  /** The sign-in of a live proofToken (canonical spelling, unused, unexpired, attempts left). */
  holder(proofToken: string): Promise<ProofHolder | undefined>;
  /** Counts a wrong proof against the token. */
  countWrong(proofToken: string): Promise<void>;
  /** Spends a live token; false when another request spent it first (or it died meanwhile). */
  use(proofToken: string): Promise<boolean>;
  /** Spends a TOTP or recovery code on the token and runs `complete` in the same transaction (see SecondFactors.verify). */
  verifyCode<T>(proofToken: string, code: string, client: ClientInfo, complete: (passed: PassedSecondFactor) => Promise<T>): Promise<T>;
}

/** The account's factors besides its phone, as the modules that own them count them. */
export interface AccountFactors {
  /** TOTP on, unused recovery codes, passkeys. */
  mfaStatus(userId: string): Promise<{ totp: boolean; recoveryCodesLeft: number; passkeys: number }>;
  /** Linked external identities. */
  identityCount(userId: string): Promise<number>;
  /** The last use of any of its sessions not revoked (a refresh, a request), if it has one. */
  lastSessionUse(userId: string): Promise<Date | null>;
}

export interface DormantAccountsDependencies {
  accounts: Pick<AccountService, 'activity' | 'findById' | 'findByPhone'>;
  factors: AccountFactors;
  tokens: ProofTokens;
}

const DAY_MS = 86_400_000;

/** Whether a sign-in's methods prove only the phone (an SMS code; with a provider's identity that no account had, to link). */
export function provesOnlyThePhone(amr: readonly Amr[]): boolean {
  return amr.includes('sms') && !amr.some((method) => method === 'pwd' || method === 'otp' || method === 'hwk');
}

/**
 * The dormant-account rule (carriers recycle phone numbers): a sign-in that proves only the phone,
 * to an account unused for `dormantDays` that has another factor, also asks for that factor. Unused:
 * its last sign-in, the last use of any session not revoked, and its creation are all older than
 * that. An account whose only factor is its phone signs in as before: nothing else can be asked of it.
 */
export class DormantAccounts {
  constructor(
    private readonly deps: DormantAccountsDependencies,
    private readonly settings: { dormantDays: number },
  ) {}

  /** Returns when the sign-in may go on; SECOND_PROOF_REQUIRED with a proofToken and the methods otherwise. */
  async demand(userId: string, method: SignInMethod, amr: Amr[], external?: ExternalSignIn): Promise<void> {
    if (this.settings.dormantDays === 0 || !(await this.isDormant(userId))) return;
    const methods = await this.methodsOf(userId);
    if (methods.length === 0) return;
    const proofToken = await this.deps.tokens.issue(userId, method, amr, external);
    // Deleted meanwhile: the sign-in goes on and fails as it would for a missing account.
    if (!proofToken) return;
    throw new AppError(ErrorCode.SECOND_PROOF_REQUIRED, msg('auth.secondProofRequired'), {
      details: { proofToken, methods },
    });
  }

  private async isDormant(userId: string): Promise<boolean> {
    const { accounts, factors } = this.deps;
    // A deleted account (UNAUTHENTICATED) is no dormant one: the sign-in fails further on as for a
    // missing account. Anything else (the database away) fails the sign-in, never the rule open.
    const gone = (error: unknown) => {
      if (error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED) return undefined;
      throw error;
    };
    const [activity, sessionUse] = await Promise.all([accounts.activity(userId).catch(gone), factors.lastSessionUse(userId)]);
    if (!activity) return false;
    const last = Math.max(activity.memberSince.getTime(), activity.lastLoginAt?.getTime() ?? 0, sessionUse?.getTime() ?? 0);
    return last < Date.now() - this.settings.dormantDays * DAY_MS;
  }

  private async methodsOf(userId: string): Promise<SecondProofMethod[]> {
    const { accounts, factors } = this.deps;
    const phone = (await accounts.findById(userId))?.phone;
    const [withSecret, mfa, identities] = await Promise.all([
      phone ? accounts.findByPhone(phone) : undefined,
      factors.mfaStatus(userId),
      factors.identityCount(userId),
    ]);
    const methods: SecondProofMethod[] = [];
    if (withSecret?.passwordHash) methods.push('password');
    if (mfa.totp) methods.push('totp');
    if (mfa.totp && mfa.recoveryCodesLeft > 0) methods.push('recovery');
    if (mfa.passkeys > 0) methods.push('passkey');
    if (identities > 0) methods.push('identity');
    return methods;
  }
}
