import type { ClientInfo } from '../../shared/http/request-context.js';
import type { SignInMethod } from '../security-event/security-event-type.js';
import type { AuthenticationResponseInput } from '../passkey/passkey.inputs.js';
import type { Amr } from './amr.js';

/** What MFA_REQUIRED tells the client: the token to finish with and the codes it takes. */
export interface MfaChallenge {
  mfaToken: string;
  mfaMethods: string[];
}

/**
 * A second factor passed, for a sign-in (whose, by what first factor, and the methods of both) or
 * for a step-up of a signed-in session (whose, which session, and the methods it gains).
 */
export type PassedSecondFactor =
  | { kind: 'sign-in'; userId: string; method: SignInMethod; amr: Amr[] }
  | { kind: 'step-up'; userId: string; sessionId: string; amr: readonly Amr[] };

/** The second factor at sign-in (TOTP and recovery codes), as the sign-in use cases see it. */
export interface SecondFactors {
  /**
   * After a right first factor: an mfaToken when the account has a second factor on, undefined
   * otherwise (the sign-in then goes on).
   */
  challenge(userId: string, method: SignInMethod, amr: Amr[], client: ClientInfo): Promise<MfaChallenge | undefined>;
  /**
   * Spends a code on an mfaToken (of a sign-in, or of a step-up) and runs `complete` (the sign-in, or
   * the upgrade of the session) in the same transaction: the code and the token are spent exactly when
   * it commits. INVALID_CODE (or RATE_LIMITED) when the code does not pass, and, before any code is
   * judged, for a step-up whose session has ended.
   */
  verify<T>(mfaToken: string, code: string, client: ClientInfo, complete: (passed: PassedSecondFactor) => Promise<T>): Promise<T>;
}

/** Passkey sign-in, as the sign-in use cases see it. */
export interface PasskeySignIn {
  /** Request options for any discoverable credential, under a single-use challenge; RATE_LIMITED per address. */
  options(client: ClientInfo): Promise<{ challengeId: string; options: unknown }>;
  /** The account whose passkey signed the challenge; INVALID_CREDENTIALS otherwise. */
  verify(challengeId: string, response: AuthenticationResponseInput, client: ClientInfo): Promise<{ userId: string }>;
}
