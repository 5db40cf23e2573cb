import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * Table `used_id_tokens`: the replay key of every ID token the native flow accepted (the SHA-256 of
 * its signing input, idTokenReplayKey: the same for any signature of the same content), until the
 * token expires: a second use of one is refused on every instance.
 */
@Entity({ tableName: 'used_id_tokens' })
@Index({ name: 'used_id_tokens_expires_at_idx', properties: ['expiresAt'] })
export class UsedIdToken {
  @PrimaryKey({ type: 'character', length: 64 })
  tokenHash!: string;

  @Property({ type: 'datetime' })
  expiresAt!: Date;
}
