import { OptionalProps, PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

export type MeetingRole = 'host' | 'participant';

/**
 * Table `meeting_usage`: one row per stay in a meeting, as reported by the meeting service; the
 * primary key makes a repeated report of the same stay a no-op.
 */
@Entity({ tableName: 'meeting_usage' })
// Only the last 30 days are read from here; `include` answers that read from the index alone.
@Index({ name: 'meeting_usage_recent_idx', properties: ['user', 'joinedAt'], include: ['meetingId', 'minutes'] })
// PostgreSQL's own names for the migration's unnamed checks.
@Check({ name: 'meeting_usage_role_check', expression: `"role" in ('host', 'participant')` })
@Check({ name: 'meeting_usage_check', expression: '"left_at" >= "joined_at"' })
export class MeetingUsage {
  [PrimaryKeyProp]?: ['user', 'meetingId', 'joinedAt'];
  [OptionalProps]?: 'reportedAt';

  @ManyToOne(() => User, { ref: true, primary: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'meeting_usage_user_id_fkey' })
  user!: Ref<User>;

  @PrimaryKey({ type: 'string', length: 128 })
  meetingId!: string;

  @Property({ type: 'string', length: 16 })
  role!: MeetingRole;

  @PrimaryKey({ type: 'datetime' })
  joinedAt!: Date;

  @Property({ type: 'datetime' })
  leftAt!: Date;

  @Property({ type: 'integer' })
  minutes!: number;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  reportedAt!: Date;
}
