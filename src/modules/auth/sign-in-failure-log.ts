import type { ClientInfo } from '../../shared/http/request-context.js';
import type { RateLimiter } from '../../shared/rate-limit/rate-limiter.js';
import { SecurityEventType, type SignInMethod } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';

/** The account a failed sign-in was aimed at, as read before the attempt. */
export interface FailedAccount {
  id: string;
  lastLoginAt: Date | null;
}

const DAY_SECONDS = 86400;

/**
 * Writes SIGN_IN_FAILED events so that wrong guesses cannot push an account's real events off its
 * first page: of the failures of one method aimed at one account, only the first since the account's
 * last sign-in is written, and then at most one a day while no sign-in comes between. The events
 * written are real failures, with their time and address; the ones left out are the repeats of a
 * streak already in the log (which the failure limits refuse soon anyway). Failures aimed at no
 * account (an unknown phone, a registration) are shown to no one and kept alike, one per phone.
 *
 * A streak is named by the account and the time of its last sign-in, so a sign-in starts a new one
 * without anything to reset; its count lives in the shared counter store (a day, from its first).
 */
export class SignInFailureLog {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly events: SecurityEventService,
  ) {}

  /**
   * `type`: SIGN_IN_FAILED for a wrong first factor, MFA_FAILED for a wrong second one (a streak of its
   * own). `method`: the first factor's; none for the second factor of a step-up (a streak of its own too).
   */
  async record(
    method: SignInMethod | undefined,
    phone: string,
    account: FailedAccount | undefined,
    client: ClientInfo,
    type: typeof SecurityEventType.SIGN_IN_FAILED | typeof SecurityEventType.MFA_FAILED = SecurityEventType.SIGN_IN_FAILED,
  ): Promise<void> {
    const streak = account ? `user:${account.id}:${account.lastLoginAt?.getTime() ?? 'never'}` : `phone:${phone}`;
    const kind = type === SecurityEventType.MFA_FAILED ? 'mfa-failed' : 'sign-in-failed';
    const { count } = await this.limiter.add(`${kind}:${method ?? 'step-up'}:${streak}`, DAY_SECONDS);
    if (count > 1) return;
    await this.events.recordUnlocked({ type, method, userId: account?.id, phone, client });
  }
}
