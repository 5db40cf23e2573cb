import { ArrayType, OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/** Table `sessions`: one per sign-in; revoking it ends its refresh tokens and access tokens at once. */
@Entity({ tableName: 'sessions' })
// Partial: the per-request session check and "list my sessions" only ever look at live sessions.
@Index({ name: 'sessions_user_id_live_idx', properties: ['user'], where: '"revoked_at" is null' })
export class Session {
  [OptionalProps]?: 'createdAt' | 'lastUsedAt' | 'revokedAt' | 'userAgent' | 'ip' | 'amr' | 'authTime';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'sessions_user_id_fkey' })
  user!: Ref<User>;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  lastUsedAt!: Date;

  @Property({ type: 'datetime' })
  expiresAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'string', length: 512, nullable: true })
  userAgent: string | null = null;

  @Property({ type: 'string', length: 64, nullable: true })
  ip: string | null = null;

  /** How the session was signed in (RFC 8176 values): the `amr` claim of every access token it issues. */
  @Property({ type: ArrayType, columnType: 'text[]', defaultRaw: `'{}'` })
  amr: string[] = [];

  /**
   * When the methods of `amr` were last proven: the sign-in, or the latest step-up with a second
   * factor. The `auth_time` claim of every access token it issues; a refresh leaves it as it is.
   */
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  authTime!: Date;
}
