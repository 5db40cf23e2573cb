import { STEP_UP_MAX_AGE_SECONDS } from '../auth/step-up.js';
import type { Principal } from '../account/principal.js';
import { PhoneChangeStatus } from './phone-change.entity.js';
import type { PhoneChangeRow } from './phone-change.repository.js';

/** A change as both transports answer it. */
export interface PhoneChangeView {
  id: string;
  phone: string;
  status: PhoneChangeStatus;
  newPhoneProven: boolean;
  accountProven: boolean;
  /** For WAITING: when it applies. */
  appliesAt: Date | null;
  createdAt: Date;
}

/** Whether an account proof of `at` still counts (STEP_UP_MAX_AGE_SECONDS, as every recent proof). */
export function isRecent(at: Date | null, now = Date.now()): boolean {
  return at !== null && now - at.getTime() <= STEP_UP_MAX_AGE_SECONDS * 1000;
}

/**
 * Whether the principal's session proves the account recently without a code: a second factor
 * (`mfa`), a passkey (`hwk`) or an external identity (`fed`) within STEP_UP_MAX_AGE_SECONDS of its
 * `auth_time` (when the session last proved its methods; a refresh does not move it). A password or
 * an SMS sign-in does not: the first is what a thief may know, the second is the number being replaced.
 */
export function sessionProvesAccount(principal: Pick<Principal, 'amr' | 'authTime'>, now = Date.now()): boolean {
  const { amr, authTime } = principal;
  if (!authTime || !(amr.includes('mfa') || amr.includes('hwk') || amr.includes('fed'))) return false;
  return isRecent(authTime, now);
}

export function toView(row: PhoneChangeRow, status = row.status): PhoneChangeView {
  return {
    id: row.id,
    phone: row.phone,
    status,
    newPhoneProven: row.newPhoneProvenAt !== null,
    accountProven: status === PhoneChangeStatus.APPLIED ? row.accountProvenAt !== null : isRecent(row.accountProvenAt),
    appliesAt: status === PhoneChangeStatus.WAITING ? row.appliesAt : null,
    createdAt: row.createdAt,
  };
}
