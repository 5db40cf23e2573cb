import { OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Session } from './session.entity.js';

/** Table `refresh_tokens`: single-use tokens of a session, stored as SHA-256 only. */
@Entity({ tableName: 'refresh_tokens' })
export class RefreshToken {
  [OptionalProps]?: 'createdAt' | 'usedAt';

  /** Hex SHA-256 of the token; the token itself is never stored. */
  @PrimaryKey({ type: 'character', length: 64 })
  tokenHash!: string;

  @ManyToOne(() => Session, { ref: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'refresh_tokens_session_id_fkey' })
  @Index({ name: 'refresh_tokens_session_id_idx' })
  session!: Ref<Session>;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime' })
  expiresAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  usedAt: Date | null = null;
}
