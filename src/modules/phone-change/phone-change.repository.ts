import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { PhoneChange, PhoneChangeStatus } from './phone-change.entity.js';

/** A change as the service sees it (timestamps parsed). */
export interface PhoneChangeRow {
  id: string;
  userId: string;
  phone: string;
  status: PhoneChangeStatus;
  newPhoneProvenAt: Date | null;
  accountProvenAt: Date | null;
  appliesAt: Date | null;
  sessionId: string | null;
  operatorId: string | null;
  createdAt: Date;
}

/** Which of a change's two codes: to the new phone, or to the current one. */
export type CodeSlot = 'new' | 'current';

export interface NewPhoneChange {
  id?: string;
  userId: string;
  phone: string;
  status: PhoneChangeStatus;
  sessionId: string | null;
  operatorId?: string;
  reason?: string;
  appliesAt?: Date;
  newCode?: { hash: string; ttlSeconds: number };
}

const OPEN = `status in ('PENDING', 'WAITING')`;

/**
 * The `phone_changes` table. Explicit SQL throughout: each step of a change (a code's attempt, its
 * use, a move of status) is one conditional statement, so concurrent requests and instances agree.
 */
export class PhoneChangeRepository {
  /** The table's name, from the entity's metadata (its columns are this file's own). */
  private readonly table: string;

  constructor(private readonly db: Database) {
    this.table = db.names(PhoneChange).table;
  }

  /** The open change of each of the accounts that has one (the operators' pages of accounts). */
  async openOf(userIds: readonly string[]): Promise<PhoneChangeRow[]> {
    if (userIds.length === 0) return [];
    const rows = await this.db.rows(`select ${COLUMNS} from ${this.table} where user_id = any($1::uuid[]) and ${OPEN}`, [[...userIds]]);
    return rows.map((row) => parse(row)!);
  }

  async open(userId: string): Promise<PhoneChangeRow | undefined> {
    return parse(await this.db.one(`select ${COLUMNS} from ${this.table} where user_id = $1 and ${OPEN}`, [userId]));
  }

  /** Ends the account's open change, if any, as CANCELLED; returns it. */
  async cancelOpen(userId: string, only?: PhoneChangeStatus.WAITING): Promise<PhoneChangeRow | undefined> {
    const where = only ? `status = 'WAITING'` : OPEN;
    return parse(await this.db.one(`update ${this.table} set status = 'CANCELLED', ended_at = now() where user_id = $1 and ${where} returning ${COLUMNS}`, [userId]));
  }

  /** Inserts a change; the caller cancelled the account's open one in the same transaction. */
  async insert(change: NewPhoneChange): Promise<PhoneChangeRow> {
    const row = await this.db.one(
      `insert into ${this.table} (id, user_id, phone, status, session_id, operator_id, reason, applies_at, new_code_hash, new_code_expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10)) returning ${COLUMNS}`,
      [change.id ?? randomUUID(), change.userId, change.phone, change.status, change.sessionId, change.operatorId ?? null, change.reason ?? null,
        change.appliesAt ?? null, change.newCode?.hash ?? null, change.newCode?.ttlSeconds ?? 0],
    );
    return parse(row)!;
  }

  /** A fresh code in `slot` of the open change `id` (its attempts start again); false when the change is no longer open. */
  async setCode(id: string, slot: CodeSlot, hash: string, ttlSeconds: number): Promise<boolean> {
    const rows = await this.db.rows(
      `update ${this.table} set ${slot}_code_hash = $2, ${slot}_code_attempts = 0, ${slot}_code_expires_at = now() + make_interval(secs => $3)
        where id = $1 and ${OPEN} returning id`,
      [id, hash, ttlSeconds],
    );
    return rows.length > 0;
  }

  /** Takes one attempt at the live code in `slot`; its hash, or undefined when there is none left to guess. */
  async reserveAttempt(id: string, slot: CodeSlot, maxAttempts: number): Promise<string | undefined> {
    const row = await this.db.one<{ hash: string }>(
      `update ${this.table} set ${slot}_code_attempts = ${slot}_code_attempts + 1
        where id = $1 and ${OPEN} and ${slot}_code_hash is not null and ${slot}_code_expires_at > now() and ${slot}_code_attempts < $2
        returning ${slot}_code_hash as hash`,
      [id, maxAttempts],
    );
    return row?.hash;
  }

  /** Uses the code in `slot` if it is still `hash`, and marks what it proves; the change, or undefined when another use won. */
  async useCode(id: string, slot: CodeSlot, hash: string): Promise<PhoneChangeRow | undefined> {
    const proven = slot === 'new' ? 'new_phone_proven_at' : 'account_proven_at';
    return parse(await this.db.one(
      `update ${this.table} set ${slot}_code_hash = null, ${proven} = now() where id = $1 and ${OPEN} and ${slot}_code_hash = $2 returning ${COLUMNS}`,
      [id, hash],
    ));
  }

  async markAccountProven(id: string): Promise<PhoneChangeRow | undefined> {
    return parse(await this.db.one(`update ${this.table} set account_proven_at = now() where id = $1 and ${OPEN} returning ${COLUMNS}`, [id]));
  }

  /** PENDING -> WAITING until `delaySeconds` from now, for `sessionId`'s account; undefined when it was not PENDING. */
  async startWaiting(id: string, delaySeconds: number, sessionId: string): Promise<PhoneChangeRow | undefined> {
    return parse(await this.db.one(
      `update ${this.table} set status = 'WAITING', applies_at = now() + make_interval(secs => $2), session_id = $3
        where id = $1 and status = 'PENDING' returning ${COLUMNS}`,
      [id, delaySeconds, sessionId],
    ));
  }

  /** Locks the open change `id` until the transaction ends; undefined when it is no longer open. */
  async lockOpen(id: string): Promise<PhoneChangeRow | undefined> {
    return parse(await this.db.one(`select ${COLUMNS} from ${this.table} where id = $1 and ${OPEN} for update`, [id]));
  }

  async markApplied(id: string): Promise<void> {
    await this.db.rows(`update ${this.table} set status = 'APPLIED', ended_at = now(), new_code_hash = null, current_code_hash = null where id = $1`, [id]);
  }

  async markCancelled(id: string): Promise<PhoneChangeRow | undefined> {
    return parse(await this.db.one(`update ${this.table} set status = 'CANCELLED', ended_at = now() where id = $1 and ${OPEN} returning ${COLUMNS}`, [id]));
  }

  /** Up to `limit` WAITING changes whose time has come, but those of `skip`, oldest first (read without a lock). */
  dueIds(limit: number, skip: readonly string[]): Promise<{ id: string; userId: string }[]> {
    return this.db.rows(
      `select id, user_id as "userId" from ${this.table} where status = 'WAITING' and applies_at <= now() and id <> all($2::uuid[])
        order by applies_at limit $1`,
      [limit, [...skip]],
    );
  }

  /**
   * Locks the change `id` if it is still WAITING and due; the caller holds its account's row first,
   * so an instance that comes second finds it applied (or cancelled) and leaves it.
   */
  async lockDue(id: string): Promise<PhoneChangeRow | undefined> {
    return parse(await this.db.one(`select ${COLUMNS} from ${this.table} where id = $1 and status = 'WAITING' and applies_at <= now() for update`, [id]));
  }

  /** Changes applied to the account within the last `days` days, and when the oldest of them was. */
  async appliedSince(userId: string, days: number): Promise<{ count: number; oldest: Date | null }> {
    const row = await this.db.one<{ count: number; oldest: Date | string | null }>(
      `select count(*)::int as count, min(ended_at) as oldest from ${this.table}
        where user_id = $1 and status = 'APPLIED' and ended_at > now() - make_interval(days => $2)`,
      [userId, days],
    );
    return { count: row?.count ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
  }

  /** Ended changes past the window of the limit per 30 days: nothing reads them any more. */
  async sweepExpired(): Promise<Record<string, number>> {
    const rows = await this.db.rows(`delete from ${this.table} where status in ('APPLIED', 'CANCELLED') and ended_at < now() - interval '31 days' returning id`);
    return { phoneChanges: rows.length };
  }
}

const COLUMNS = `id, user_id as "userId", phone, status, new_phone_proven_at as "newPhoneProvenAt", account_proven_at as "accountProvenAt",
  applies_at as "appliesAt", session_id as "sessionId", operator_id as "operatorId", created_at as "createdAt"`;

type Raw = Record<string, unknown> | undefined;

function parse(row: Raw): PhoneChangeRow | undefined {
  if (!row) return undefined;
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string));
  return {
    id: row.id as string,
    userId: row.userId as string,
    phone: row.phone as string,
    status: row.status as PhoneChangeStatus,
    newPhoneProvenAt: date(row.newPhoneProvenAt),
    accountProvenAt: date(row.accountProvenAt),
    appliesAt: date(row.appliesAt),
    sessionId: (row.sessionId as string | null) ?? null,
    operatorId: (row.operatorId as string | null) ?? null,
    createdAt: date(row.createdAt)!,
  };
}
