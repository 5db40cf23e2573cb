import { OptionalProps } from '@mikro-orm/core';
import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Role } from './role.js';

/** Table `users`; its columns and constraints mirror the migrations, which test/schema-drift.test.ts checks. */
@Entity({ tableName: 'users' })
export class User {
  [OptionalProps]?: 'passwordHash' | 'avatarKey' | 'createdAt' | 'updatedAt' | 'lastLoginAt' | 'loginCount' | 'role' | 'blockedAt' | 'blockedReason';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  /** E.164. */
  @Property({ type: 'string', length: 20, unique: 'users_phone_unique' })
  phone!: string;

  /** 32 graphemes; one emoji can be several code points, hence the 256. */
  @Property({ type: 'string', length: 256 })
  nickname!: string;

  @Property({ type: 'string', length: 100, nullable: true, hidden: true })
  passwordHash: string | null = null;

  /** Key of the current avatar in the avatar store. */
  @Property({ type: 'string', length: 64, nullable: true })
  avatarKey: string | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  lastLoginAt: Date | null = null;

  @Property({ type: 'integer', default: 0 })
  loginCount!: number;

  @Enum({ items: () => Role, default: Role.USER })
  role: Role = Role.USER;

  /** Set while the account is blocked: it has no sessions and cannot get one. */
  @Property({ type: 'datetime', nullable: true })
  blockedAt: Date | null = null;

  /** The operator's reason, 1-500 characters, while blocked. */
  @Property({ type: 'string', length: 500, nullable: true })
  blockedReason: string | null = null;
}
