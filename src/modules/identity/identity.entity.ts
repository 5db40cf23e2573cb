import { OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/**
 * Table `identities`: an account's identities at external OpenID Connect providers. An identity is
 * (provider, issuer, subject): one account each, and one per provider per account. The email and
 * name are the provider's, kept to show; nothing links or signs in by them.
 */
@Entity({ tableName: 'identities' })
@Unique({ name: 'identities_provider_issuer_subject_unique', properties: ['provider', 'issuer', 'subject'] })
@Unique({ name: 'identities_user_id_provider_unique', properties: ['user', 'provider'] })
export class ExternalIdentity {
  [OptionalProps]?: 'email' | 'name' | 'linkedAt' | 'lastUsedAt';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'identities_user_id_fkey' })
  @Index({ name: 'identities_user_id_idx' })
  user!: Ref<User>;

  /** The provider's id in IDENTITY_PROVIDERS (`google`). */
  @Property({ type: 'string', length: 32 })
  provider!: string;

  @Property({ type: 'string', length: 255 })
  issuer!: string;

  /** The provider's `sub`: never reassigned by the provider, unlike an email address. */
  @Property({ type: 'string', length: 255 })
  subject!: string;

  @Property({ type: 'string', length: 320, nullable: true })
  email: string | null = null;

  @Property({ type: 'string', length: 200, nullable: true })
  name: string | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  linkedAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  lastUsedAt: Date | null = null;
}
