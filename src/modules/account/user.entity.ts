import { OptionalProps } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

@Entity({ tableName: 'users' })
export class User {
  [OptionalProps]?: 'passwordHash' | 'avatarKey' | 'createdAt' | 'updatedAt' | 'lastLoginAt';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  /** E.164. */
  @Property({ type: 'string', length: 20, unique: 'users_phone_unique' })
  phone!: string;

  @Property({ type: 'string', length: 256 })
  nickname!: string;

  @Property({ type: 'string', length: 100, nullable: true, hidden: true })
  passwordHash: string | null = null;

  /** Key of the current avatar in the avatar store. */
  @Property({ type: 'string', length: 64, nullable: true })
  avatarKey: string | null = null;

  @Property({ type: 'datetime' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', onUpdate: () => new Date() })
  updatedAt: Date = new Date();

  @Property({ type: 'datetime', nullable: true })
  lastLoginAt: Date | null = null;
}
