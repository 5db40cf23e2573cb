import { apiErrorOf, isApiError, type MfaMethod, type PendingIdentity, type SecondProofMethod } from './errors.js';
import type { IssuedTokens, TokenStore } from './tokens.js';

/**
 * Where a sign-in stands: signed in (the tokens kept in the store), or the step the service asks for
 * next, with what that step needs:
 * - `secondFactorRequired`: a TOTP or recovery code (or a passkey) for `mfaToken` (`verifyMfa`);
 * - `phoneVerificationRequired`: an external identity no account has, to link with an SMS code to a
 *   phone (`linkExternalIdentity`);
 * - `secondProofRequired`: a sign-in by SMS code to a long-unused account, which also needs one of
 *   `methods`: the password, a TOTP or a recovery code for `proofToken` (`completeSecondProof`), or a
 *   sign-in with the account's passkey or linked provider instead.
 */
export type SignInStep<P extends IssuedTokens = IssuedTokens> =
  | { step: 'signedIn'; payload: P }
  | { step: 'secondFactorRequired'; mfaToken: string; methods: MfaMethod[] }
  | { step: 'phoneVerificationRequired'; linkToken: string; identity: PendingIdentity }
  | { step: 'secondProofRequired'; proofToken: string; methods: SecondProofMethod[] };

/**
 * Runs a sign-in mutation (`login`, `loginWithPassword`, `verifyMfa`, `signInWithIdToken`,
 * `completeExternalSignIn`, `linkExternalIdentity`, `loginWithPasskey`...) and answers its step
 * instead of throwing for the refusals that are steps; the tokens of a sign-in go into `store`. Any
 * other refusal (INVALID_CODE, RATE_LIMITED...) is thrown as Apollo threw it: `apiErrorOf` reads it.
 */
export async function signInStep<P extends IssuedTokens>(run: () => Promise<P>, store?: TokenStore): Promise<SignInStep<P>> {
  let payload: P;
  try {
    payload = await run();
  } catch (error) {
    const refusal = apiErrorOf(error);
    if (isApiError(refusal, 'MFA_REQUIRED')) return { step: 'secondFactorRequired', mfaToken: refusal.extensions.mfaToken, methods: refusal.extensions.mfaMethods };
    if (isApiError(refusal, 'PHONE_VERIFICATION_REQUIRED')) return { step: 'phoneVerificationRequired', linkToken: refusal.extensions.linkToken, identity: refusal.extensions.identity };
    if (isApiError(refusal, 'SECOND_PROOF_REQUIRED')) return { step: 'secondProofRequired', proofToken: refusal.extensions.proofToken, methods: refusal.extensions.methods };
    throw error;
  }
  await store?.signedIn(payload);
  return { step: 'signedIn', payload };
}
