import type { ClientInfo } from '../../shared/http/request-context.js';
import type { SignInMethod } from '../security-event/security-event-type.js';
import type { AuthenticationResponseInput } from '../passkey/passkey.inputs.js';
import type { MfaMethod } from '../mfa/mfa-method.js';
import type { Amr } from './amr.js';

/** What MFA_REQUIRED tells the client: the token to finish with and the codes it takes. */
export interface MfaChallenge {
  mfaToken: string;
  mfaMethods: MfaMethod[];
}

/** An identity an external provider proved: who it is there, and what it says of itself (shown, never trusted). */
export interface ProvenIdentity {
  provider: string;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
}

/**
 * What a sign-in through an external provider carries to its end: the provider (its events name
 * it), and, when the sign-in proved a phone for an identity no account had, that identity, linked
 * when the sign-in completes (after its second factor, when the account has one).
 */
export interface ExternalSignIn {
  provider: string;
  link?: ProvenIdentity;
}

/**
 * A second factor passed, for a sign-in (whose, by what first factor, and the methods of both) or
 * for a step-up of a signed-in session (whose, which session, and the methods it gains).
 */
export type PassedSecondFactor =
  | { kind: 'sign-in'; userId: string; method: SignInMethod; amr: Amr[]; external?: ExternalSignIn }
  | { kind: 'step-up'; userId: string; sessionId: string; amr: readonly Amr[] };

/** The second factor at sign-in (TOTP and recovery codes), as the sign-in use cases see it. */
export interface SecondFactors {
  /**
   * After a right first factor: an mfaToken when the account has a second factor on, undefined
   * otherwise (the sign-in then goes on).
   */
  challenge(userId: string, method: SignInMethod, amr: Amr[], client: ClientInfo, external?: ExternalSignIn): Promise<MfaChallenge | undefined>;
  /**
   * Spends a code on an mfaToken (of a sign-in, or of a step-up) and runs `complete` (the sign-in, or
   * the upgrade of the session) in the same transaction: the code and the token are spent exactly when
   * it commits. INVALID_CODE (or RATE_LIMITED) when the code does not pass, and, before any code is
   * judged, for a step-up whose session has ended.
   */
  verify<T>(mfaToken: string, code: string, client: ClientInfo, complete: (passed: PassedSecondFactor) => Promise<T>): Promise<T>;
}

/**
 * External identities (OpenID Connect), as the sign-in use cases see them: proven identities from a
 * web flow's result, an ID token or a link token, the account each is linked to, and the link itself.
 */
export interface ExternalIdentities {
  /** The provider's authorization URL of a new sign-in web flow returning to `returnTo`, bound to `clientChallenge` when given. */
  authorizationUrl(providerId: string, returnTo: string, client: ClientInfo, linking?: undefined, clientChallenge?: string): Promise<string>;
  /** The identity of a web flow's one-time result (with the verifier of its challenge, if it had one), used up; INVALID_CREDENTIALS otherwise. */
  takeSignInResult(result: string, codeVerifier?: string): Promise<ProvenIdentity>;
  /** The identity of a platform SDK's ID token, checked and used up; INVALID_CREDENTIALS otherwise. */
  verifyIdToken(providerId: string, idToken: string, nonce: string | undefined, client: ClientInfo): Promise<ProvenIdentity>;
  /** The account the identity is linked to, if any. */
  accountOf(identity: ProvenIdentity): Promise<string | undefined>;
  /** A single-use token standing for an identity no account has, until a phone is proven for it. */
  newLinkToken(identity: ProvenIdentity): Promise<string>;
  /** INVALID_CREDENTIALS unless the link token is live. */
  assertLinkToken(linkToken: string): Promise<void>;
  /** The identity of a link token, used up. */
  takeLinkToken(linkToken: string): Promise<ProvenIdentity>;
  /** Links the identity to the account in the caller's transaction; IDENTITY_ALREADY_LINKED when either is taken. */
  link(userId: string, identity: ProvenIdentity, client: ClientInfo, options: { signedIn: boolean; sessionId: string }): Promise<unknown>;
}

/** Passkey sign-in, as the sign-in use cases see it. */
export interface PasskeySignIn {
  /** Request options for any discoverable credential, under a single-use challenge; RATE_LIMITED per address. */
  options(client: ClientInfo): Promise<{ challengeId: string; options: unknown }>;
  /** The account whose passkey signed the challenge; INVALID_CREDENTIALS otherwise. */
  verify(challengeId: string, response: AuthenticationResponseInput, client: ClientInfo): Promise<{ userId: string }>;
}
