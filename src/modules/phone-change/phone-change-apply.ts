import { isUniqueViolation, type Database } from '../../db/database.js';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { Locale } from '../../shared/i18n/locale.js';
import type { Logger } from '../../shared/logger.js';
import { parsePhone } from '../../shared/phone.js';
import type { AccountService } from '../account/account.service.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { SessionService } from '../session/session.service.js';
import { PhoneChangeStatus } from './phone-change.entity.js';
import type { PhoneChangeRepository, PhoneChangeRow } from './phone-change.repository.js';
import type { PhoneChangeSms } from './phone-change-sms.js';
import { toView, type PhoneChangeView } from './phone-change.view.js';

export interface ApplyDependencies {
  db: Database;
  changes: PhoneChangeRepository;
  accounts: AccountService;
  sessions: SessionService;
  events: SecurityEventService;
  sms: PhoneChangeSms;
  logger: Logger;
  /** Told in the apply's transaction when an operator's change applies (the admin module audits it as PHONE_CHANGED). */
  operatorChangeApplied?: (applied: OperatorChangeApplied) => Promise<void>;
}

/** An operator's change that applied: which, whose, asked by whom, between which numbers. */
export interface OperatorChangeApplied {
  changeId: string;
  userId: string;
  operatorId: string;
  from: string;
  to: string;
}

/** An applied change: its answer, and the numbers the notice goes between. */
export interface Applied {
  view: PhoneChangeView;
  previousPhone: string;
  newPhone: string;
  /** The account's language, for the notice to the old number. */
  locale: Locale | null;
}

const NO_CLIENT: ClientInfo = {};

/**
 * The end of a phone change: applying it (with both proofs at once, or a waiting one when its time
 * comes), the limit per 30 days, and the notice to the old number. The unique index on users.phone
 * decides who gets a number: a change that loses a race is PHONE_TAKEN.
 */
export class PhoneChangeApplier {
  constructor(
    private readonly deps: ApplyDependencies,
    private readonly settings: { defaultPhoneRegion: string; perThirtyDays: number },
  ) {}

  /**
   * In the caller's transaction, the account's row held: the limit per 30 days, the number (the
   * unique index refuses a taken one), the change APPLIED, PHONE_CHANGED and `user.updated`; for a
   * waiting change (`endOthers`), every session but the one that asked for it ends (all of them for
   * an operator's).
   */
  async applyLocked(change: PhoneChangeRow, sessionId: string | null, client: ClientInfo, endOthers: boolean): Promise<Applied> {
    const { accounts, changes, events, sessions } = this.deps;
    await this.assertUnderLimit(change.userId);
    const { previousPhone, user } = await accounts.changePhone(change.userId, change.phone);
    await changes.markApplied(change.id);
    await events.record({ type: SecurityEventType.PHONE_CHANGED, userId: change.userId, phone: previousPhone, sessionId, client });
    if (change.operatorId) {
      await this.deps.operatorChangeApplied?.({ changeId: change.id, userId: change.userId, operatorId: change.operatorId, from: previousPhone, to: change.phone });
    }
    if (endOthers) {
      if (change.sessionId) await sessions.revokeOthers(change.userId, change.sessionId);
      else await sessions.revokeAllOf(change.userId);
    }
    return { view: toView(change, PhoneChangeStatus.APPLIED), previousPhone, newPhone: change.phone, locale: user.locale };
  }

  /** The answer of a proof: an applied change is told to its old number, after the commit. */
  async announced(result: Applied | PhoneChangeView): Promise<PhoneChangeView> {
    if (!('previousPhone' in result)) return result;
    const old = parsePhone(result.previousPhone, this.settings.defaultPhoneRegion);
    // Said after the fact, perhaps by the janitor: the account's choice or the old number's region decides the language.
    await this.deps.sms.sendNoticeAfterCommit(old, { kind: 'changed', newPhone: result.newPhone }, { account: result.locale, request: undefined }, undefined);
    return result.view;
  }

  /** RATE_LIMITED once PHONE_CHANGES_PER_30_DAYS changes applied within 30 days, until the oldest of them is 30 days old. */
  async assertUnderLimit(userId: string): Promise<void> {
    const { count, oldest } = await this.deps.changes.appliedSince(userId, 30);
    if (count < this.settings.perThirtyDays) return;
    const retryAfter = oldest ? Math.ceil((oldest.getTime() + 30 * 86400_000 - Date.now()) / 1000) : 86400;
    throw new AppError(ErrorCode.RATE_LIMITED, msg('phoneChange.tooMany', { count }), { retryAfter: Math.max(1, retryAfter) });
  }

  /**
   * Applies every WAITING change whose time has come (the janitor's job, on any instance, any number
   * of them at once): each in its own transaction, the account's row locked before the change's, so
   * two instances never apply one twice. One whose number another account took meanwhile, or over the
   * limit per 30 days, ends CANCELLED; one of a blocked account waits until the block is lifted.
   * Returns how many applied.
   */
  async applyDue(): Promise<number> {
    let applied = 0;
    const skipped = new Set<string>();
    for (;;) {
      const due = await this.deps.changes.dueIds(100, [...skipped]);
      if (due.length === 0) return applied;
      for (const { id, userId } of due) {
        if ((await this.applyWaiting(id, userId)) === 'applied') applied++;
        else skipped.add(id);
      }
    }
  }

  private async applyWaiting(id: string, userId: string): Promise<'applied' | 'skipped'> {
    const { db, accounts, changes, logger } = this.deps;
    try {
      const applied = await db.transaction(async () => {
        if (!(await accounts.lock(userId)) || (await accounts.isBlocked(userId))) return undefined;
        const change = await changes.lockDue(id);
        return change && this.applyLocked(change, null, NO_CLIENT, true);
      });
      if (!applied) return 'skipped';
      await this.announced(applied);
      return 'applied';
    } catch (error) {
      const refused = isUniqueViolation(error) || (error instanceof AppError && error.code === ErrorCode.RATE_LIMITED);
      if (!refused) {
        logger.warn({ err: error, phoneChange: id }, 'a waiting phone change could not be applied; will retry');
        return 'skipped';
      }
      await this.cancelRefused(id, userId);
      return 'skipped';
    }
  }

  /** A waiting change that cannot apply (its number taken, or over the limit) ends CANCELLED, recorded. */
  private async cancelRefused(id: string, userId: string): Promise<void> {
    const { db, accounts, changes, events } = this.deps;
    await db.transaction(async () => {
      if (!(await accounts.lock(userId))) return;
      const cancelled = await changes.markCancelled(id);
      const user = cancelled && (await accounts.findById(userId));
      if (user) await events.record({ type: SecurityEventType.PHONE_CHANGE_CANCELLED, userId, phone: user.phone, client: NO_CLIENT });
    });
  }
}

/** A unique violation of users.phone (a concurrent change or sign-up won the number) is PHONE_TAKEN. */
export async function asTaken<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

export function taken(): AppError {
  return new AppError(ErrorCode.PHONE_TAKEN, msg('phoneChange.taken'));
}
