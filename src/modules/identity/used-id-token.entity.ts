import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * Table `used_id_tokens`: the SHA-256 of every ID token the native flow accepted, until the token
 * expires: a second use of one is refused on every instance.
 */
@Entity({ tableName: 'used_id_tokens' })
@Index({ name: 'used_id_tokens_expires_at_idx', properties: ['expiresAt'] })
export class UsedIdToken {
  @PrimaryKey({ type: 'character', length: 64 })
  tokenHash!: string;

  @Property({ type: 'datetime' })
  expiresAt!: Date;
}
