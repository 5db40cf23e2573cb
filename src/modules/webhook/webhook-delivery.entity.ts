import { BigIntType, OptionalProps } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { WebhookDeliveryStatus } from './webhook-delivery-status.js';

/**
 * Table `webhook_deliveries`, the outbox: one row per (event, receiver URL), inserted in the
 * transaction of the change it tells of, then delivered by the dispatcher and kept as the delivery's
 * record. `seq` orders the events (the per-user order of delivery and the admin list); `id` is the
 * `webhook-id` a receiver sees on every try. No foreign key: `user.deleted` outlives its user.
 */
@Entity({ tableName: 'webhook_deliveries' })
// The dispatcher's claim reads the pending rows in order, and asks of each whether an earlier one of
// the same user and URL is still pending; both from partial indexes that hold the pending rows only.
@Index({ name: 'webhook_deliveries_pending_idx', expression: `create index "webhook_deliveries_pending_idx" on "webhook_deliveries" ("seq") where "status" = 'PENDING'` })
@Index({
  name: 'webhook_deliveries_pending_user_idx',
  expression: `create index "webhook_deliveries_pending_user_idx" on "webhook_deliveries" ("user_key", "url", "seq") where "status" = 'PENDING'`,
})
// The operators' list by status, newest first.
@Index({ name: 'webhook_deliveries_status_seq_idx', properties: ['status', 'seq'] })
// The retention sweep deletes by age.
@Index({ name: 'webhook_deliveries_created_at_idx', properties: ['createdAt'] })
export class WebhookDelivery {
  [OptionalProps]?: 'seq' | 'status' | 'attempts' | 'lastStatus' | 'lastError' | 'nextAttemptAt' | 'lockedUntil' | 'createdAt' | 'deliveredAt';

  @PrimaryKey({ type: new BigIntType('string'), autoincrement: true })
  seq!: string;

  /** The `webhook-id` header: the same on every try. */
  @Property({ type: 'uuid', unique: 'webhook_deliveries_id_unique' })
  id!: string;

  @Property({ type: 'string', length: 32 })
  eventType!: string;

  /** The user the event is about: events of one user reach one URL in `seq` order. */
  @Property({ type: 'uuid' })
  userKey!: string;

  /** The event's `data`, as the body carries it. */
  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  /** The receiver, as configured (credentials included: shown redacted). */
  @Property({ type: 'text' })
  url!: string;

  @Property({ type: 'string', length: 16, default: 'PENDING' })
  status!: WebhookDeliveryStatus;

  @Property({ type: 'integer', default: 0 })
  attempts!: number;

  /** The HTTP status of the last try; null when it got none (timeout, refused connection). */
  @Property({ type: 'integer', nullable: true })
  lastStatus: number | null = null;

  @Property({ type: 'string', length: 500, nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  nextAttemptAt!: Date;

  /** The lease of the instance sending it; past it, another instance may claim the row again. */
  @Property({ type: 'datetime', nullable: true })
  lockedUntil: Date | null = null;

  /** Also the body's `timestamp`: when the change happened. */
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  deliveredAt: Date | null = null;
}
