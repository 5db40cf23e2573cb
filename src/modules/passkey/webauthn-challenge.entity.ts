import { OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/**
 * Table `webauthn_challenges`: a challenge lives until it is used once or expires. A registration's
 * belongs to its account; a sign-in's to nobody (the passkey says who signs in).
 */
@Entity({ tableName: 'webauthn_challenges' })
@Index({ name: 'webauthn_challenges_user_id_idx', properties: ['user'] })
// The janitor deletes by expiry.
@Index({ name: 'webauthn_challenges_expires_at_idx', properties: ['expiresAt'] })
export class WebAuthnChallenge {
  [OptionalProps]?: 'user' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'webauthn_challenges_user_id_fkey' })
  user: Ref<User> | null = null;

  /** `registration` or `authentication`: a challenge answers only the ceremony it was given for. */
  @Property({ type: 'string', length: 16 })
  purpose!: string;

  /** base64url of 32 random bytes, as the options carry it. */
  @Property({ type: 'string', length: 128 })
  challenge!: string;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime' })
  expiresAt!: Date;
}
