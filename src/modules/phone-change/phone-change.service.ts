import { randomUUID, type KeyObject } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import { parsePhone, type Phone } from '../../shared/phone.js';
import { equalHex, hmacHex } from '../../shared/tokens/secrets.js';
import { accountBlocked, type AccountService } from '../account/account.service.js';
import type { Principal } from '../account/principal.js';
import { CodePurpose } from '../auth/code-purpose.js';
import { ownReader } from '../auth/sms/sms-locale.js';
import type { VerificationCodeService } from '../auth/verification-code.service.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { SessionService } from '../session/session.service.js';
import { PhoneChangeStatus } from './phone-change.entity.js';
import type { AccountProof } from './phone-change.inputs.js';
import type { CodeSlot, PhoneChangeRepository, PhoneChangeRow } from './phone-change.repository.js';
import type { PhoneChangeSms } from './phone-change-sms.js';
import { asTaken, taken, type PhoneChangeApplier } from './phone-change-apply.js';
import { sessionProvesAccount, isRecent, toView, type PhoneChangeView } from './phone-change.view.js';

/** TOTP and recovery codes, as a phone change's account proof: `change` runs in the transaction that spends the code. */
interface SecondFactorCode {
  withSecondFactorCode<T>(principal: Principal, code: string, client: ClientInfo, change: () => Promise<T>): Promise<T>;
}

export interface PhoneChangeDependencies {
  db: Database;
  changes: PhoneChangeRepository;
  accounts: AccountService;
  sessions: SessionService;
  events: SecurityEventService;
  /** The failure limits of wrong codes and the SMS conversion, shared with every other code. */
  codes: Pick<VerificationCodeService, 'consumeWith'>;
  secondFactor: SecondFactorCode;
  sms: PhoneChangeSms;
  /** The key of every SMS code's hash (codeHashKey). */
  codeKey: KeyObject;
  /** The end of a change: applying it, the limit per 30 days, the notice to the old number. */
  applier: PhoneChangeApplier;
}

export interface PhoneChangeSettings {
  defaultPhoneRegion: string;
  recoveryDelayHours: number;
  codeTtlSeconds: number;
  codeMaxAttempts: number;
}


/**
 * Changing the account's phone number (API.md 10.1). A change needs the new phone (a code sent to
 * it) and the account (a code to the current phone, a TOTP or recovery code, or a session that proved
 * a second factor, a passkey or an external identity within the last 10 minutes); with both it
 * applies at once. Without an account proof (a lost phone) it waits PHONE_RECOVERY_DELAY_HOURS, told
 * to the current phone, cancelled by any session of the account or a code sign-in with the current
 * phone, then applies (applyDue, the janitor's job) and ends every other session. A pending change
 * reserves nothing: the unique index on users.phone decides when it applies.
 */
export class PhoneChangeService {
  private readonly applier: PhoneChangeApplier;

  constructor(
    private readonly deps: PhoneChangeDependencies,
    private readonly settings: PhoneChangeSettings,
  ) {
    this.applier = deps.applier;
  }

  /** The account's open (PENDING or WAITING) change; NOT_FOUND without one. */
  async current(principal: Principal): Promise<PhoneChangeView> {
    return toView(await this.openOf(principal.userId));
  }

  /** The account's open change, or null. */
  /** The open change of each of `userIds` that has one, for the operators' view of accounts. */
  async pendingOf(userIds: readonly string[]): Promise<Map<string, PhoneChangeView>> {
    return new Map((await this.deps.changes.openOf(userIds)).map((row) => [row.userId, toView(row)]));
  }

  async find(principal: Principal): Promise<PhoneChangeView | null> {
    const open = await this.deps.changes.open(principal.userId);
    return open ? toView(open) : null;
  }

  /**
   * Starts a change to `rawPhone`, replacing the open one, and sends a code to the new phone. Whose
   * number it is is not told here (a number of another account gets its code like any other).
   */
  async start(principal: Principal, rawPhone: string, client: ClientInfo): Promise<PhoneChangeView> {
    const { db, accounts, changes, sms } = this.deps;
    const phone = this.parse(rawPhone);
    this.assertNew(phone, principal.user.phone);
    await this.applier.assertUnderLimit(principal.userId);
    const id = randomUUID();
    let started: PhoneChangeRow | undefined;
    await sms.sendCode(phone, CodePurpose.PHONE_CHANGE, { id: principal.userId, locale: principal.user.locale }, client, async (code) => {
      started = await db.transaction(async () => {
        await accounts.lockActive(principal.userId);
        await this.cancelOpen(principal.userId, principal.user.phone, principal.sessionId, client);
        const newCode = { hash: this.hash(id, CodePurpose.PHONE_CHANGE, code), ttlSeconds: this.settings.codeTtlSeconds };
        return changes.insert({ id, userId: principal.userId, phone: phone.e164, status: PhoneChangeStatus.PENDING, sessionId: principal.sessionId, newCode });
      });
    });
    return toView(started!);
  }

  /** Proves the new phone with its code; PHONE_TAKEN (only now) when another account has it; applies when the account is proven too. */
  async verifyNew(principal: Principal, code: string, client: ClientInfo): Promise<PhoneChangeView> {
    const change = await this.openOf(principal.userId);
    if (change.status !== PhoneChangeStatus.PENDING) throw invalidCode();
    const proven = await this.useCode(change, 'new', code, change.phone, client);
    await this.assertFree(proven.phone, principal.userId);
    if (isRecent(proven.accountProvenAt)) return this.applyNow(principal, proven.id, client);
    return toView(proven);
  }

  /** Sends a code to the current phone, for the account proof of the open change. */
  async sendCurrentCode(principal: Principal, client: ClientInfo): Promise<PhoneChangeView> {
    const { changes, sms } = this.deps;
    const change = await this.openOf(principal.userId);
    const current = this.parse(principal.user.phone);
    await sms.sendCode(current, CodePurpose.PHONE_CHANGE_CURRENT, { id: principal.userId, locale: principal.user.locale }, client, async (code) => {
      const hash = this.hash(change.id, CodePurpose.PHONE_CHANGE_CURRENT, code);
      if (!(await changes.setCode(change.id, 'current', hash, this.settings.codeTtlSeconds))) throw noChange();
    });
    return toView(change);
  }

  /**
   * Proves the account for the open change: the current phone's code, a TOTP or recovery code, or
   * (none given) the session's own recent proof. With the new phone proven too, the change applies.
   */
  async verifyAccount(principal: Principal, proof: AccountProof, client: ClientInfo): Promise<PhoneChangeView> {
    const { changes, secondFactor } = this.deps;
    const change = await this.openOf(principal.userId);
    if (proof.kind === 'totp' || proof.kind === 'recovery') {
      const applied = await asTaken(() =>
        secondFactor.withSecondFactorCode(principal, proof.value, client, async () => {
          const proven = (await changes.markAccountProven(change.id)) ?? throwNoChange();
          return proven.newPhoneProvenAt ? this.applier.applyLocked(proven, principal.sessionId, client, false) : toView(proven);
        }),
      );
      return this.applier.announced(applied);
    }
    let proven: PhoneChangeRow;
    if (proof.kind === 'code') {
      proven = await this.useCode(change, 'current', proof.value, principal.user.phone, client);
    } else {
      if (!sessionProvesAccount(principal)) throw noSessionProof();
      proven = (await changes.markAccountProven(change.id)) ?? throwNoChange();
    }
    return proven.newPhoneProvenAt ? this.applyNow(principal, proven.id, client) : toView(proven);
  }

  /**
   * The lost-phone path: the new phone proven, no account proof. The notice goes to the current
   * phone first (no waiting change without it), then the change waits PHONE_RECOVERY_DELAY_HOURS.
   */
  async wait(principal: Principal, client: ClientInfo): Promise<PhoneChangeView> {
    const { db, accounts, changes, events, sms } = this.deps;
    const change = await this.openOf(principal.userId);
    if (change.status === PhoneChangeStatus.WAITING) return toView(change);
    if (!change.newPhoneProvenAt) throw new AppError(ErrorCode.VALIDATION_FAILED, msg('phoneChange.newNotProven'), { fields: { code: msg('phoneChange.newNotProven.field') } });
    await this.assertFree(change.phone, principal.userId);
    await this.applier.assertUnderLimit(principal.userId);
    const delaySeconds = this.settings.recoveryDelayHours * 3600;
    const appliesAt = new Date(Date.now() + delaySeconds * 1000);
    await sms.sendNotice(this.parse(principal.user.phone), { kind: 'requested', newPhone: change.phone, appliesAt }, ownReader(principal.user.locale, client), client);
    const waiting = await db.transaction(async () => {
      await accounts.lockActive(principal.userId);
      const row = (await changes.startWaiting(change.id, delaySeconds, principal.sessionId)) ?? throwNoChange();
      await events.recordOwn(SecurityEventType.PHONE_CHANGE_REQUESTED, principal, client);
      return row;
    });
    return toView(waiting);
  }

  /** Cancels the open change, from any session of the account; NOT_FOUND without one. */
  async cancel(principal: Principal, client: ClientInfo): Promise<void> {
    const { db, accounts } = this.deps;
    await db.transaction(async () => {
      await accounts.lockActive(principal.userId);
      if (!(await this.cancelOpen(principal.userId, principal.user.phone, principal.sessionId, client))) throw noChange();
    });
  }

  /**
   * A sign-in proved the current phone (an SMS code): the real owner is back, and a WAITING change
   * ends, recorded. Runs in the sign-in's transaction, which holds the account's row.
   */
  async cancelWaitingOnSignIn(userId: string, phone: string, sessionId: string, client: ClientInfo): Promise<void> {
    const { changes, events } = this.deps;
    if (await changes.cancelOpen(userId, PhoneChangeStatus.WAITING)) {
      await events.record({ type: SecurityEventType.PHONE_CHANGE_CANCELLED, userId, phone, sessionId, client });
    }
  }

  /**
   * An operator's change of `userId`'s number to `rawPhone`: it always waits the delay (no proof of
   * the new phone or the account), with the notice to the current phone and PHONE_CHANGE_REQUESTED;
   * the user can cancel it. NOT_FOUND without the account, ACCOUNT_BLOCKED for a blocked one (lift the
   * block first), PHONE_TAKEN at once for a number of another account (operators see accounts anyway).
   * The caller checks the operator's role and writes the audit log.
   */
  async requestByOperator(
    operator: Principal,
    userId: string,
    rawPhone: string,
    reason: string,
    client: ClientInfo,
    /** The admin module's audit entry, in the change's transaction. */
    audit: (change: PhoneChangeView, currentPhone: string) => Promise<void>,
  ): Promise<PhoneChangeView> {
    const { db, accounts, changes, events, sms } = this.deps;
    const target = await accounts.findById(userId);
    if (!target) throw new AppError(ErrorCode.NOT_FOUND, msg('user.notFound'));
    if (await accounts.isBlocked(userId)) throw accountBlocked();
    const phone = this.parse(rawPhone);
    this.assertNew(phone, target.phone);
    await this.assertFree(phone.e164, userId);
    await this.applier.assertUnderLimit(userId);
    const delaySeconds = this.settings.recoveryDelayHours * 3600;
    const appliesAt = new Date(Date.now() + delaySeconds * 1000);
    // The operator's request says nothing of the user's language: the account's choice or its phone's region does.
    await sms.sendNotice(this.parse(target.phone), { kind: 'requested', newPhone: phone.e164, appliesAt }, { account: target.locale, request: undefined }, client);
    const row = await db.transaction(async () => {
      if (!(await accounts.lock(userId))) throw new AppError(ErrorCode.NOT_FOUND, msg('user.notFound'));
      // The user's events keep the request id, not the operator's address and user agent.
      const onBehalf = { requestId: client.requestId };
      await this.cancelOpen(userId, target.phone, null, onBehalf);
      const waiting = await changes.insert({ userId, phone: phone.e164, status: PhoneChangeStatus.WAITING, sessionId: null, operatorId: operator.userId, reason, appliesAt });
      await events.record({ type: SecurityEventType.PHONE_CHANGE_REQUESTED, userId, phone: target.phone, client: onBehalf });
      await audit(toView(waiting), target.phone);
      return waiting;
    });
    return toView(row);
  }

  /** Applies the WAITING changes whose time has come (the janitor's job); how many applied. */
  applyDue(): Promise<number> {
    return this.applier.applyDue();
  }

  sweepExpired(): Promise<Record<string, number>> {
    return this.deps.changes.sweepExpired();
  }

  /** Applies the open change `id` now, in one transaction; the notice goes after the commit. */
  private async applyNow(principal: Principal, id: string, client: ClientInfo): Promise<PhoneChangeView> {
    const { db, accounts, changes } = this.deps;
    const applied = await asTaken(() =>
      db.transaction(async () => {
        await accounts.lockActive(principal.userId);
        const change = (await changes.lockOpen(id)) ?? throwNoChange();
        return this.applier.applyLocked(change, principal.sessionId, client, false);
      }),
    );
    return this.applier.announced(applied);
  }

  /** Cancels the account's open change, if any, recorded; in the caller's transaction. */
  private async cancelOpen(userId: string, phone: string, sessionId: string | null, client: ClientInfo): Promise<boolean> {
    const cancelled = await this.deps.changes.cancelOpen(userId);
    if (cancelled) await this.deps.events.record({ type: SecurityEventType.PHONE_CHANGE_CANCELLED, userId, phone, sessionId, client });
    return cancelled !== undefined;
  }

  /** Uses the code of `slot`; limited like every code by (`phone`, address) and address. */
  private async useCode(change: PhoneChangeRow, slot: CodeSlot, code: string, phone: string, client: ClientInfo): Promise<PhoneChangeRow> {
    const { changes, codes } = this.deps;
    const purpose = slot === 'new' ? CodePurpose.PHONE_CHANGE : CodePurpose.PHONE_CHANGE_CURRENT;
    let used: PhoneChangeRow | undefined;
    await codes.consumeWith(phone, client.ip, async () => {
      const stored = await changes.reserveAttempt(change.id, slot, this.settings.codeMaxAttempts);
      const candidate = this.hash(change.id, purpose, code);
      if (!stored || !equalHex(stored, candidate)) return false;
      used = await changes.useCode(change.id, slot, candidate);
      return used !== undefined;
    });
    return used!;
  }

  private async openOf(userId: string): Promise<PhoneChangeRow> {
    return (await this.deps.changes.open(userId)) ?? throwNoChange();
  }

  /** PHONE_TAKEN when another account has the number now. */
  private async assertFree(phone: string, userId: string): Promise<void> {
    const holder = await this.deps.accounts.findByPhone(phone);
    if (holder && holder.id !== userId) throw taken();
  }

  private assertNew(phone: Phone, current: string): void {
    if (phone.e164 === current) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, msg('phoneChange.samePhone'), { fields: { phone: msg('phoneChange.samePhone.field') } });
    }
  }

  private parse(raw: string): Phone {
    return parsePhone(raw, this.settings.defaultPhoneRegion);
  }

  /** Keyed by the change and the purpose: a code works for its change and purpose only. */
  private hash(changeId: string, purpose: CodePurpose, code: string): string {
    return hmacHex(this.deps.codeKey, `phone-change\u0000${changeId}\u0000${purpose}\u0000${code}`);
  }
}

function invalidCode(): AppError {
  return new AppError(ErrorCode.INVALID_CODE, msg('code.invalid'));
}

function noChange(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, msg('phoneChange.notPending'));
}

function throwNoChange(): never {
  throw noChange();
}

function noSessionProof(): AppError {
  return new AppError(ErrorCode.VALIDATION_FAILED, msg('phoneChange.noProof'), {
    fields: { code: msg('phoneChange.noProof.field') },
  });
}
