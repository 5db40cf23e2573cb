import { PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/** Table `user_meetings`: a meeting counts once per user, however many stays were reported. */
@Entity({ tableName: 'user_meetings' })
export class UserMeeting {
  [PrimaryKeyProp]?: ['user', 'meetingId'];

  @ManyToOne(() => User, { ref: true, primary: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'user_meetings_user_id_fkey' })
  user!: Ref<User>;

  @PrimaryKey({ type: 'string', length: 128 })
  meetingId!: string;
}
