import { OptionalProps } from '@mikro-orm/core';
import { Check, Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { Locale } from '../../shared/i18n/locale.js';
import { Role } from './role.js';

/** Table `users`; its columns and constraints mirror the migrations, which test/schema-drift.test.ts checks. */
@Entity({ tableName: 'users' })
@Check({ name: 'users_locale_check', expression: `"locale" in ('zh-CN', 'en')` })
// The operators' search (AccountRepository.search), newest first: the listing and the status and role
// filters read (created_at, id) backwards, the rare blocked accounts and operators from their own
// partial indexes; a phone's leading digits are a prefix range of the pattern index (whatever the
// database's collation); a nickname substring is looked up by trigrams (pg_trgm), one of one or two
// characters by the nickname's own pieces of that length (nickname_grams, Migration20261125040000).
@Index({ name: 'users_created_at_id_idx', properties: ['createdAt', 'id'] })
@Index({ name: 'users_blocked_created_at_idx', expression: 'create index "users_blocked_created_at_idx" on "users" ("created_at", "id") where "blocked_at" is not null' })
@Index({ name: 'users_operators_created_at_idx', expression: `create index "users_operators_created_at_idx" on "users" ("created_at", "id") where "role" <> 'USER'` })
@Index({ name: 'users_phone_pattern_idx', expression: 'create index "users_phone_pattern_idx" on "users" ("phone" text_pattern_ops)' })
@Index({ name: 'users_nickname_grams_idx', expression: 'create index "users_nickname_grams_idx" on "users" using gin ("nickname_grams"("nickname"))' })
@Index({ name: 'users_nickname_trgm_idx', expression: 'create index "users_nickname_trgm_idx" on "users" using gin ("nickname" gin_trgm_ops)' })
export class User {
  [OptionalProps]?: 'passwordHash' | 'avatarKey' | 'createdAt' | 'updatedAt' | 'lastLoginAt' | 'loginCount' | 'role' | 'blockedAt' | 'blockedReason' | 'locale';

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

  /** The language the account chose for its SMS; null until chosen. */
  @Property({ type: 'string', length: 8, nullable: true })
  locale: Locale | null = null;
}
