import { OptionalProps, PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { Entity, OneToOne, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/**
 * Table `totp_factors`: at most one TOTP factor per account, pending (`confirmed_at` null) until its
 * first code is confirmed. The secret is sealed (see SecretBox), never stored in clear or in base32.
 */
@Entity({ tableName: 'totp_factors' })
export class TotpFactor {
  [PrimaryKeyProp]?: 'user';
  [OptionalProps]?: 'createdAt' | 'confirmedAt' | 'lastUsedStep';

  @OneToOne(() => User, { ref: true, primary: true, owner: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'totp_factors_user_id_fkey' })
  user!: Ref<User>;

  /** `v1.` + base64url(IV, ciphertext, tag): AES-256-GCM with the account's id as additional data. */
  @Property({ type: 'text' })
  secretSealed!: string;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  confirmedAt: Date | null = null;

  /** The last 30-second step whose code was accepted: a code of this step or an earlier one is refused. */
  @Property({ type: 'integer', nullable: true })
  lastUsedStep: number | null = null;
}
