import { BigIntType, OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { RETENTION_SWEEP_SETTING } from '../../db/retention.js';
import { User } from '../account/user.entity.js';
import type { SecurityEventType, SignInMethod } from './security-event-type.js';


/**
 * Table `security_events`: who signed in, from where, and what changed on an account. Appended to
 * and swept after the retention period, never updated: an account's deletion nulls `user_id` (the
 * foreign key does it), the phone was masked from the start. Never a password, code, token or hash.
 *
 * The database holds the table to that too: a trigger refuses every UPDATE but the foreign key's
 * nulling of the user (every other column unchanged), and another every DELETE but the retention
 * sweep's, whoever runs it; a statement trigger refuses TRUNCATE (in Migration20261125030000 only:
 * MikroORM cannot read TRUNCATE triggers back).
 */
@Entity({
  tableName: 'security_events',
  triggers: [
    {
      name: 'security_events_append_only',
      timing: 'before',
      events: ['update'],
      body: ({ user }) =>
        `if new.${user} is null and old.${user} is not null and (to_jsonb(new) - '${user}') = (to_jsonb(old) - '${user}') then return new; end if; ` +
        `raise exception 'security_events is append-only: event % cannot be changed', old.id using errcode = 'integrity_constraint_violation'`,
    },
    {
      // Only the retention sweep deletes, inside a transaction that says so (RETENTION_SWEEP_SETTING).
      name: 'security_events_no_delete',
      timing: 'before',
      events: ['delete'],
      body: () =>
        `if current_setting('${RETENTION_SWEEP_SETTING}', true) = 'on' then return old; end if; ` +
        `raise exception 'security_events is append-only: event % cannot be deleted', old.id using errcode = 'integrity_constraint_violation'`,
    },
  ],
})
// "My events, newest first", page by page: the list reads this index backwards from a cursor.
@Index({ name: 'security_events_user_id_id_idx', properties: ['user', 'id'] })
export class SecurityEvent {
  [OptionalProps]?: 'at' | 'method' | 'provider' | 'user' | 'phoneMasked' | 'ip' | 'userAgent' | 'sessionId' | 'requestId';

  @PrimaryKey({ type: new BigIntType('string'), autoincrement: true })
  id!: string;

  @Property({ type: 'string', length: 32 })
  type!: SecurityEventType;

  /** CODE, PASSWORD, PASSKEY or OIDC, on sign-ins. */
  @Property({ type: 'string', length: 16, nullable: true })
  method: SignInMethod | null = null;

  /** The external provider's id (IDENTITY_PROVIDERS), on OIDC sign-ins and on identities linked or unlinked. */
  @Property({ type: 'string', length: 32, nullable: true })
  provider: string | null = null;

  /** The retention sweep deletes by this column. */
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  @Index({ name: 'security_events_at_idx' })
  at!: Date;

  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'set null', updateRule: 'no action', foreignKeyName: 'security_events_user_id_fkey' })
  user: Ref<User> | null = null;

  /** E.164 with every digit but the last four masked. */
  @Property({ type: 'string', length: 20, nullable: true })
  phoneMasked: string | null = null;

  @Property({ type: 'string', length: 64, nullable: true })
  ip: string | null = null;

  @Property({ type: 'string', length: 512, nullable: true })
  userAgent: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  sessionId: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  requestId: string | null = null;
}
