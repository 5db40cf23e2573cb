/** The kinds of live account events (API.md 10.2): public API, the GraphQL enum `AccountEventType`; add, never rename. */
export const AccountEventType = {
  /** A session of the account ended (logout, revocation, a reused refresh token); `sessionId` names it. */
  SESSION_REVOKED: 'SESSION_REVOKED',
  /** Every session of the account ended, or every one but `detail.exceptSessionId`. */
  SIGNED_OUT_EVERYWHERE: 'SIGNED_OUT_EVERYWHERE',
  ACCOUNT_BLOCKED: 'ACCOUNT_BLOCKED',
  ROLE_CHANGED: 'ROLE_CHANGED',
  /** The nickname, the language or the avatar changed (`detail.change`). */
  PROFILE_UPDATED: 'PROFILE_UPDATED',
  PHONE_CHANGE_REQUESTED: 'PHONE_CHANGE_REQUESTED',
  PHONE_CHANGED: 'PHONE_CHANGED',
  /** A second factor was added or removed: TOTP, a passkey (`detail.change`). */
  MFA_CHANGED: 'MFA_CHANGED',
  IDENTITY_LINKED: 'IDENTITY_LINKED',
  IDENTITY_UNLINKED: 'IDENTITY_UNLINKED',
  /** Another session began ("was this you?"): `sessionId` is the new one, `detail` how and from where. */
  NEW_SIGN_IN: 'NEW_SIGN_IN',
} as const;
export type AccountEventType = (typeof AccountEventType)[keyof typeof AccountEventType];

/** One event of an account, as subscribers receive it. */
export interface AccountEvent {
  type: AccountEventType;
  at: Date;
  /** The session the event is about (the one ended, or begun), when there is one. */
  sessionId: string | null;
  detail: Record<string, unknown>;
}

/**
 * What travels between instances, as JSON: an account's event (`u`: the account), or a new audit
 * entry (`a`: its id; each instance reads the entry once for its operators). `at` is milliseconds
 * since the epoch, the time of publication (delivery latency is measured from it).
 */
export type LiveMessage =
  | { k: 'account'; u: string; t: AccountEventType; at: number; s: string | null; d: Record<string, unknown> }
  | { k: 'audit'; a: string; at: number };

/** Whether an event may have ended sessions of the account: its sockets re-check theirs. */
export function mayEndSessions(type: AccountEventType): boolean {
  return type === AccountEventType.SESSION_REVOKED || type === AccountEventType.SIGNED_OUT_EVERYWHERE || type === AccountEventType.ACCOUNT_BLOCKED || type === AccountEventType.ROLE_CHANGED;
}

/** A message read off the wire, or undefined for anything not in its shape (another service's, a truncated one). */
export function parseLiveMessage(text: string): LiveMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const m = value as Record<string, unknown>;
  if (typeof m.at !== 'number') return undefined;
  if (m.k === 'audit' && typeof m.a === 'string') return m as LiveMessage;
  if (m.k === 'account' && typeof m.u === 'string' && typeof m.t === 'string' && Object.hasOwn(AccountEventType, m.t) && (m.s === null || typeof m.s === 'string') && m.d !== null && typeof m.d === 'object') {
    return m as LiveMessage;
  }
  return undefined;
}

/** The message of an account's event, stamped now. */
export function accountMessage(userId: string, type: AccountEventType, sessionId: string | null = null, detail: Record<string, unknown> = {}): LiveMessage {
  return { k: 'account', u: userId, t: type, at: Date.now(), s: sessionId, d: detail };
}
