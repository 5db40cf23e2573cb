/** The kinds of security events: public API (REST values and the GraphQL enum); add, never rename. */
export const SecurityEventType = {
  SIGN_IN: 'SIGN_IN',
  SIGN_IN_FAILED: 'SIGN_IN_FAILED',
  CODE_SENT: 'CODE_SENT',
  REFRESH_REUSE: 'REFRESH_REUSE',
  LOGOUT: 'LOGOUT',
  SESSION_REVOKED: 'SESSION_REVOKED',
  PASSWORD_CHANGED: 'PASSWORD_CHANGED',
  PASSWORD_RESET: 'PASSWORD_RESET',
  PROFILE_CHANGED: 'PROFILE_CHANGED',
  AVATAR_CHANGED: 'AVATAR_CHANGED',
  ACCOUNT_DELETED: 'ACCOUNT_DELETED',
  /** An operator (or the `npm run admin` tool) changed the account's role. */
  ROLE_CHANGED: 'ROLE_CHANGED',
  /** An operator blocked the account (its sessions ended with it) or lifted the block. */
  ACCOUNT_BLOCKED: 'ACCOUNT_BLOCKED',
  ACCOUNT_UNBLOCKED: 'ACCOUNT_UNBLOCKED',
  /** An operator ended every session of the account. */
  SESSIONS_REVOKED_BY_OPERATOR: 'SESSIONS_REVOKED_BY_OPERATOR',
  /** An operator read the account's details, sessions or security events. */
  ACCOUNT_VIEWED_BY_OPERATOR: 'ACCOUNT_VIEWED_BY_OPERATOR',
  /** TOTP was confirmed (enrolment complete) or switched off. */
  MFA_ENABLED: 'MFA_ENABLED',
  MFA_DISABLED: 'MFA_DISABLED',
  /** A wrong second-factor code at sign-in (after a right first factor). */
  MFA_FAILED: 'MFA_FAILED',
  RECOVERY_CODE_USED: 'RECOVERY_CODE_USED',
  PASSKEY_ADDED: 'PASSKEY_ADDED',
  PASSKEY_REMOVED: 'PASSKEY_REMOVED',
  /** An external provider's identity was linked to the account, or unlinked from it (the event names the provider). */
  IDENTITY_LINKED: 'IDENTITY_LINKED',
  IDENTITY_UNLINKED: 'IDENTITY_UNLINKED',
  /** A change of the account's phone number waits its delay (the lost-phone path, or an operator's). */
  PHONE_CHANGE_REQUESTED: 'PHONE_CHANGE_REQUESTED',
  /** The account's phone number changed (the event keeps the old number, masked). */
  PHONE_CHANGED: 'PHONE_CHANGED',
  /** A waiting or pending change of the phone number was cancelled (by a session, a sign-in with the current phone, or a new change). */
  PHONE_CHANGE_CANCELLED: 'PHONE_CHANGE_CANCELLED',
} as const;
export type SecurityEventType = (typeof SecurityEventType)[keyof typeof SecurityEventType];

export const SignInMethod = { CODE: 'CODE', PASSWORD: 'PASSWORD', PASSKEY: 'PASSKEY', OIDC: 'OIDC' } as const;
export type SignInMethod = (typeof SignInMethod)[keyof typeof SignInMethod];
