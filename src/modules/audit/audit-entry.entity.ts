import { BigIntType, OptionalProps } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { RETENTION_SWEEP_SETTING } from '../../db/retention.js';
import type { AuditAction } from './audit-action.js';

/**
 * Table `audit_log`: what operators did, to whom, when. Appended to in the transaction of the action
 * it records and swept after its retention period; nothing else changes it, and the database holds
 * the table to that: a trigger refuses every UPDATE, another every DELETE but the retention sweep's,
 * and a statement trigger TRUNCATE (in Migration20261125030000 only: MikroORM cannot read TRUNCATE
 * triggers back).
 *
 * No foreign keys: an entry outlives the accounts it names (the deletion of a user is an entry
 * about that user; an operator's account may go, their actions stay).
 */
@Entity({
  tableName: 'audit_log',
  triggers: [
    {
      name: 'audit_log_append_only',
      timing: 'before',
      events: ['update'],
      body: () => `raise exception 'audit_log is append-only: entry % cannot be changed', old.id using errcode = 'integrity_constraint_violation'`,
    },
    {
      name: 'audit_log_no_delete',
      timing: 'before',
      events: ['delete'],
      body: () =>
        `if current_setting('${RETENTION_SWEEP_SETTING}', true) = 'on' then return old; end if; ` +
        `raise exception 'audit_log is append-only: entry % cannot be deleted', old.id using errcode = 'integrity_constraint_violation'`,
    },
  ],
})
export class AuditEntry {
  [OptionalProps]?: 'at' | 'actorId' | 'targetUserId' | 'ip' | 'userAgent' | 'requestId';

  @PrimaryKey({ type: new BigIntType('string'), autoincrement: true })
  id!: string;

  /** The retention sweep deletes by this column. */
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  @Index({ name: 'audit_log_at_idx' })
  at!: Date;

  /** The operator; null for the command-line tool, which acts with database access rather than a role. */
  @Property({ type: 'uuid', nullable: true })
  actorId: string | null = null;

  @Property({ type: 'string', length: 32 })
  action!: AuditAction;

  /** The account acted on (gone, for USER_DELETED); null for an action on no account. */
  @Property({ type: 'uuid', nullable: true })
  targetUserId: string | null = null;

  /** What the action needs said besides: the reason of a block, the roles of a change, what was read. */
  @Property({ type: 'json' })
  detail!: Record<string, unknown>;

  /** Where the operator acted from. */
  @Property({ type: 'string', length: 64, nullable: true })
  ip: string | null = null;

  @Property({ type: 'string', length: 512, nullable: true })
  userAgent: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  requestId: string | null = null;
}
