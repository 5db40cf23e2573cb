import { SignInMethod } from '../security-event/security-event-type.js';

/**
 * Authentication method references (RFC 8176) of an access token's `amr` claim: how its session was
 * signed in. `sms` an SMS code, `pwd` a password, `otp` a TOTP or recovery code, `hwk` a passkey
 * (a proof of possession of a hardware-bound key), `fed` an external identity provider (federated
 * authentication), `mfa` two factors. A session keeps its methods, so every token refreshed from it
 * carries the same claim.
 */
export type Amr = 'sms' | 'pwd' | 'otp' | 'hwk' | 'fed' | 'mfa';

/** The methods of a sign-in by one factor. */
export function firstFactorAmr(method: SignInMethod): Amr[] {
  switch (method) {
    case SignInMethod.CODE:
      return ['sms'];
    case SignInMethod.PASSWORD:
      return ['pwd'];
    case SignInMethod.PASSKEY:
      return ['hwk'];
    case SignInMethod.OIDC:
      return ['fed'];
  }
}

/** What a TOTP or recovery code adds to the methods of a sign-in or of a session it steps up. */
export const SECOND_FACTOR_AMR: readonly Amr[] = ['otp', 'mfa'];

/** The methods of a first factor completed by a TOTP or recovery code. */
export function withSecondFactor(first: readonly Amr[]): Amr[] {
  return [...new Set<Amr>([...first, ...SECOND_FACTOR_AMR])];
}
