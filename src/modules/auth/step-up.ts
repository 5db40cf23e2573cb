import type { Principal } from '../account/principal.js';

/** How long a second factor (or a passkey sign-in) counts as recent for the changes that need one. */
export const STEP_UP_MAX_AGE_SECONDS = 600;

/**
 * Whether the principal's token proves a second factor (`amr` `mfa`) or a passkey (`hwk`) within
 * STEP_UP_MAX_AGE_SECONDS of `now`, judged by its `auth_time` (when the session last proved its
 * factors, which a refresh does not move), never by when the token was issued.
 */
export function provesRecentSecondFactor(principal: Pick<Principal, 'amr' | 'authTime'>, now = Date.now()): boolean {
  const { amr, authTime } = principal;
  if (!authTime || !(amr.includes('mfa') || amr.includes('hwk'))) return false;
  return now - authTime.getTime() <= STEP_UP_MAX_AGE_SECONDS * 1000;
}

/**
 * The rule of the changes that would let a stolen access token outlast the second factor (adding,
 * renaming or removing a passkey): on an account with a second factor on, the session must have
 * proven one recently. The second factor's module keeps the rule; the modules of those changes ask.
 */
export interface RecentSecondFactor {
  /**
   * Passes when the account has no second factor on, or when the principal's token proves a recent
   * one (provesRecentSecondFactor). Otherwise MFA_REQUIRED with an mfaToken bound to the account and
   * to the principal's session: the second step of sign-in then upgrades that session and returns
   * fresh tokens for it. Call it before the change's transaction: the mfaToken must outlive the refusal.
   */
  requireRecentSecondFactor(principal: Principal): Promise<void>;
}
