import type { Database } from '../../db/database.js';
import { WebhookDeliveryStatus } from './webhook-delivery-status.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';

export interface NewDelivery {
  id: string;
  eventType: string;
  userKey: string;
  payload: Record<string, unknown>;
  url: string;
}

/** A row as explicit SQL returns it (timestamps as strings or dates, by the driver's parsers). */
export interface DeliveryRow {
  seq: string;
  id: string;
  eventType: string;
  payload: Record<string, unknown> | string;
  url: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date | string;
  createdAt: Date | string;
  deliveredAt: Date | string | null;
}

/** How one try ended: delivered, or failed and then due again after `retryInMs` (none: DEAD). */
export type TryOutcome =
  | { delivered: true; status: number }
  | { delivered: false; status: number | null; error: string; retryInMs: number | undefined };

/** The `webhook_deliveries` table, the outbox: written in the changes' transactions, claimed and updated by the dispatcher. */
export class WebhookRepository {
  private readonly sql: {
    lockUser: string;
    insert: string;
    claim: string;
    claimSkipping: string;
    claimOnly: string;
    delivered: string;
    failed: string;
    release: string;
    retry: string;
    pending: string;
  };

  constructor(private readonly db: Database) {
    const w = db.names(WebhookDelivery);
    const fields = ['seq', 'id', 'eventType', 'payload', 'url', 'status', 'attempts', 'lastStatus', 'lastError', 'nextAttemptAt', 'createdAt', 'deliveredAt'] as const;
    const columns = (alias = '') => fields.map((f) => `${alias}${w[f]} as "${f}"`).join(', ');
    const pending = `'${WebhookDeliveryStatus.PENDING}'`;
    const claim = (receivers: string) =>
      `with due as (
                select d.${w.seq} from ${w.table} d
                 where d.${w.status} = ${pending} and d.${w.nextAttemptAt} <= now()
                   and (d.${w.lockedUntil} is null or d.${w.lockedUntil} < now())
                   ${receivers}
                   and not exists (select 1 from ${w.table} e
                                    where e.${w.userKey} = d.${w.userKey} and e.${w.url} = d.${w.url}
                                      and e.${w.status} = ${pending} and e.${w.seq} < d.${w.seq})
                 order by d.${w.seq} limit $1
                 for update skip locked)
              update ${w.table} w set ${w.lockedUntil} = now() + make_interval(secs => $2)
                from due where w.${w.seq} = due.${w.seq}
              returning ${columns('w.')}`;
    this.sql = {
      // Held until the transaction ends: the user's events take their seq one transaction at a time,
      // so that for one user seq order is commit order and no claim passes an event still uncommitted.
      // (Every change locks its account's row before writing its event anyway; this holds without.)
      lockUser: `select pg_advisory_xact_lock(hashtextextended($1, 0))`,
      // One statement for the event's rows (one per URL).
      insert: `insert into ${w.table} (${w.id}, ${w.eventType}, ${w.userKey}, ${w.payload}, ${w.url})
               select * from unnest($1::uuid[], $2::varchar[], $3::uuid[], $4::jsonb[], $5::text[])`,
      // Due, not leased by another instance, and the first pending row of its user and URL (the
      // per-user order). SKIP LOCKED: concurrent claims of other instances take other rows; the
      // lease keeps a claimed row from them after this statement commits, until it runs out (a
      // crashed instance's rows come back then).
      claim: claim(''),
      // While a receiver is held back (the dispatcher's): without its rows, and a probe of its rows only.
      // Statements of their own: a condition on the receiver in the common one slowed its plan.
      claimSkipping: claim(`and d.${w.url} <> all($3::text[])`),
      claimOnly: claim(`and d.${w.url} = $3`),
      delivered: `update ${w.table} set ${w.status} = '${WebhookDeliveryStatus.DELIVERED}', ${w.attempts} = ${w.attempts} + 1,
                  ${w.lastStatus} = $2, ${w.lastError} = null, ${w.deliveredAt} = now(), ${w.lockedUntil} = null where ${w.id} = $1`,
      // $4 null: the last try failed, the delivery is DEAD.
      failed: `update ${w.table} set ${w.attempts} = ${w.attempts} + 1, ${w.lastStatus} = $2, ${w.lastError} = left($3, 500), ${w.lockedUntil} = null,
               ${w.status} = case when $4::float8 is null then '${WebhookDeliveryStatus.DEAD}' else ${w.status} end,
               ${w.nextAttemptAt} = case when $4::float8 is null then ${w.nextAttemptAt} else now() + make_interval(secs => $4::float8 / 1000) end
               where ${w.id} = $1`,
      // A try cut short by the instance stopping: due again at once, elsewhere or after the restart.
      release: `update ${w.table} set ${w.lockedUntil} = null where ${w.id} = any($1::uuid[])`,
      // The lease stays: a row being tried right now is not sent a second time at once.
      retry: `update ${w.table} set ${w.status} = ${pending}, ${w.nextAttemptAt} = now()
              where ${w.id} = $1 returning ${columns()}`,
      pending: `select count(*)::int as "count" from ${w.table} where ${w.status} = ${pending}`,
    };
  }

  /** Inside the caller's transaction: the rows commit with the change they tell of, or not at all. */
  async insert(rows: NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    for (const userKey of new Set(rows.map((r) => r.userKey))) await this.db.rows(this.sql.lockUser, [`webhook:${userKey}`], 'webhook_lock_user');
    await this.db.rows(
      this.sql.insert,
      [rows.map((r) => r.id), rows.map((r) => r.eventType), rows.map((r) => r.userKey), rows.map((r) => JSON.stringify(r.payload)), rows.map((r) => r.url)],
      'webhook_insert',
    );
  }

  /**
   * Up to `limit` due rows, leased for `leaseMs`, none for a URL of `skip`, and only for `only` when
   * given; one statement, so its own short transaction.
   */
  claim(limit: number, leaseMs: number, skip: readonly string[] = [], only?: string): Promise<DeliveryRow[]> {
    const args = [limit, leaseMs / 1000];
    if (only !== undefined) return this.db.rows<DeliveryRow & Record<string, unknown>>(this.sql.claimOnly, [...args, only], 'webhook_claim_only');
    if (skip.length > 0) return this.db.rows<DeliveryRow & Record<string, unknown>>(this.sql.claimSkipping, [...args, skip], 'webhook_claim_skipping');
    return this.db.rows<DeliveryRow & Record<string, unknown>>(this.sql.claim, args, 'webhook_claim');
  }

  async record(id: string, outcome: TryOutcome): Promise<void> {
    if (outcome.delivered) await this.db.rows(this.sql.delivered, [id, outcome.status], 'webhook_delivered');
    else await this.db.rows(this.sql.failed, [id, outcome.status, outcome.error, outcome.retryInMs ?? null], 'webhook_failed');
  }

  async release(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.db.rows(this.sql.release, [ids]);
  }

  /** PENDING and due now, whatever it was; `undefined` without such a row. */
  async retry(id: string): Promise<DeliveryRow | undefined> {
    return this.db.one<DeliveryRow & Record<string, unknown>>(this.sql.retry, [id]);
  }

  /** Delivered and DEAD rows created before `date`; PENDING ones stay, however old. */
  deleteFinishedBefore(date: Date): Promise<number> {
    return this.db.em().nativeDelete(WebhookDelivery, { status: { $ne: WebhookDeliveryStatus.PENDING }, createdAt: { $lt: date } });
  }

  async pendingCount(): Promise<number> {
    return (await this.db.one<{ count: number }>(this.sql.pending, [], 'webhook_pending'))!.count;
  }

  /** Newest first, before `beforeSeq` when given, of one status when given. */
  list(status: WebhookDeliveryStatus | undefined, beforeSeq: string | undefined, limit: number): Promise<WebhookDelivery[]> {
    return this.db.em().find(
      WebhookDelivery,
      { ...(status ? { status } : {}), ...(beforeSeq ? { seq: { $lt: beforeSeq } } : {}) },
      { orderBy: { seq: 'desc' }, limit },
    );
  }
}
