/**
 * The codes an mfaToken takes (MFA_REQUIRED's `mfaMethods`): public API, the same values on both
 * transports and the names of the GraphQL enum MfaMethod (lower case, as `mfaMethods` sends them);
 * add, never rename.
 */
export const MfaMethod = { totp: 'totp', recovery: 'recovery' } as const;
export type MfaMethod = (typeof MfaMethod)[keyof typeof MfaMethod];

/** What each method is, for the schema's documentation of `mfaMethods`. */
export const MFA_METHOD_DESCRIPTIONS: Readonly<Record<MfaMethod, string>> = {
  totp: 'A 6-digit code of the authenticator app (TOTP)',
  recovery: 'One of the single-use recovery codes (abcde-fghij) shown when TOTP was turned on',
};
