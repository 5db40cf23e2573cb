import { OptionalProps, type Ref } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/** Where a change of the account's phone number stands; public API (REST values and the GraphQL enum). */
export enum PhoneChangeStatus {
  PENDING = 'PENDING',
  WAITING = 'WAITING',
  APPLIED = 'APPLIED',
  CANCELLED = 'CANCELLED',
}

/**
 * Table `phone_changes`: the changes of an account's phone number, at most one PENDING or WAITING per
 * account (the partial unique index). Each change holds the codes sent for it (the new phone's and
 * the current phone's), as keyed hashes of the change, the purpose and the code: a code is looked up
 * by its change, never by a phone number, and works for its change and purpose only. The new number
 * is not reserved: `users.phone` decides when the change applies. It goes with its account.
 */
@Entity({ tableName: 'phone_changes' })
@Index({ name: 'phone_changes_pending_user_unique', expression: `create unique index "phone_changes_pending_user_unique" on "phone_changes" ("user_id") where "status" in ('PENDING', 'WAITING')` })
@Index({ name: 'phone_changes_waiting_idx', expression: `create index "phone_changes_waiting_idx" on "phone_changes" ("applies_at") where "status" = 'WAITING'` })
@Check({ name: 'phone_changes_status_check', expression: `"status" in ('PENDING', 'WAITING', 'APPLIED', 'CANCELLED')` })
export class PhoneChange {
  [OptionalProps]?: 'status' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'phone_changes_user_id_fkey' })
  @Index({ name: 'phone_changes_user_id_idx' })
  user!: Ref<User>;

  /** The new number, E.164. */
  @Property({ type: 'string', length: 16 })
  phone!: string;

  @Property({ type: 'string', length: 10, default: 'PENDING' })
  status!: PhoneChangeStatus;

  /** The code sent to the new phone (purpose `phone-change`). */
  @Property({ type: 'character', length: 64, nullable: true })
  newCodeHash: string | null = null;

  @Property({ type: 'integer', default: 0 })
  newCodeAttempts: number = 0;

  @Property({ type: 'datetime', nullable: true })
  newCodeExpiresAt: Date | null = null;

  /** The code sent to the current phone (purpose `phone-change-current`). */
  @Property({ type: 'character', length: 64, nullable: true })
  currentCodeHash: string | null = null;

  @Property({ type: 'integer', default: 0 })
  currentCodeAttempts: number = 0;

  @Property({ type: 'datetime', nullable: true })
  currentCodeExpiresAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  newPhoneProvenAt: Date | null = null;

  /** When the account was proven for this change; it counts for STEP_UP_MAX_AGE_SECONDS. */
  @Property({ type: 'datetime', nullable: true })
  accountProvenAt: Date | null = null;

  /** For WAITING: when it applies, unless cancelled. */
  @Property({ type: 'datetime', nullable: true })
  appliesAt: Date | null = null;

  /** The session that asked for it (its sessions but this one end when a waiting change applies); null for an operator's. */
  @Property({ type: 'uuid', nullable: true })
  sessionId: string | null = null;

  /** The operator who asked for it, with the reason; null when the user did. */
  @Property({ type: 'uuid', nullable: true })
  operatorId: string | null = null;

  @Property({ type: 'string', length: 500, nullable: true })
  reason: string | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  /** When it was applied or cancelled. */
  @Property({ type: 'datetime', nullable: true })
  endedAt: Date | null = null;
}
