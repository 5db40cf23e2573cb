import { OptionalProps, PrimaryKeyProp } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** Table `verification_codes`: at most one live code per phone and purpose. */
@Entity({ tableName: 'verification_codes' })
export class VerificationCode {
  [PrimaryKeyProp]?: ['phone', 'purpose'];
  [OptionalProps]?: 'attempts' | 'createdAt' | 'consumedAt';

  @PrimaryKey({ type: 'string', length: 20 })
  phone!: string;

  @PrimaryKey({ type: 'string', length: 20 })
  purpose!: string;

  /** HMAC of the code; the code itself is never stored. */
  @Property({ type: 'character', length: 64 })
  codeHash!: string;

  @Property({ type: 'integer', default: 0 })
  attempts!: number;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime' })
  expiresAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  consumedAt: Date | null = null;
}
