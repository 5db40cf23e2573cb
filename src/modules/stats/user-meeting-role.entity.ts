import { PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';
import type { MeetingRole } from './meeting-usage.entity.js';

/** Table `user_meeting_roles`: a meeting counts once per user and role (hosted, joined). */
@Entity({ tableName: 'user_meeting_roles' })
export class UserMeetingRole {
  [PrimaryKeyProp]?: ['user', 'meetingId', 'role'];

  @ManyToOne(() => User, { ref: true, primary: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'user_meeting_roles_user_id_fkey' })
  user!: Ref<User>;

  @PrimaryKey({ type: 'string', length: 128 })
  meetingId!: string;

  @PrimaryKey({ type: 'string', length: 16 })
  role!: MeetingRole;
}
