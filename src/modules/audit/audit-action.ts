/** What an operator did: public API (REST values and the GraphQL enum); add, never rename. */
export const AuditAction = {
  /** Read one account's details, sessions or security events (`detail.read` says which). */
  USER_VIEWED: 'USER_VIEWED',
  USER_BLOCKED: 'USER_BLOCKED',
  USER_UNBLOCKED: 'USER_UNBLOCKED',
  SESSIONS_REVOKED: 'SESSIONS_REVOKED',
  /** Through the API, or from the command line (`actorId` null, `detail.via` "command line"). */
  ROLE_CHANGED: 'ROLE_CHANGED',
  USER_DELETED: 'USER_DELETED',
  WEBHOOK_RETRIED: 'WEBHOOK_RETRIED',
  /** An operator started a change of the account's phone number, which waits PHONE_RECOVERY_DELAY_HOURS (`detail`: the new phone, the reason, when it applies). */
  PHONE_CHANGE_REQUESTED: 'PHONE_CHANGE_REQUESTED',
  /** An operator's change of the phone number applied after its wait (`actorId` the operator who asked; `detail`: the old and new phone). */
  PHONE_CHANGED: 'PHONE_CHANGED',
} as const;
export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];
