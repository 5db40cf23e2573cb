import { BigIntType, OptionalProps, PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { Entity, OneToOne, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/** Table `user_meeting_totals`: all-time figures per user, kept up to date with each report. */
@Entity({ tableName: 'user_meeting_totals' })
export class UserMeetingTotals {
  [PrimaryKeyProp]?: 'user';
  [OptionalProps]?: 'meetings' | 'meetingsHosted' | 'meetingsJoined' | 'totalMinutes' | 'hostedMinutes' | 'lastMeetingAt';

  @OneToOne(() => User, { ref: true, primary: true, owner: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'user_meeting_totals_user_id_fkey' })
  user!: Ref<User>;

  @Property({ type: 'integer', default: 0 })
  meetings!: number;

  @Property({ type: 'integer', default: 0 })
  meetingsHosted!: number;

  @Property({ type: 'integer', default: 0 })
  meetingsJoined!: number;

  /** Minutes fit a double exactly far beyond any real total, so they are read as numbers. */
  @Property({ type: new BigIntType('number'), defaultRaw: '0' })
  totalMinutes!: number;

  @Property({ type: new BigIntType('number'), defaultRaw: '0' })
  hostedMinutes!: number;

  @Property({ type: 'datetime', nullable: true })
  lastMeetingAt: Date | null = null;
}
