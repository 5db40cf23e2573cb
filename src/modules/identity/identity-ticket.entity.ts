import { OptionalProps, type Ref } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/**
 * Table `identity_tickets`: an identity a provider proved, waiting to be used, found by the SHA-256
 * of its one-time token and taken once: the `result` a web flow's callback hands the browser (60 s),
 * and the `linkToken` of an identity no account has yet (10 minutes). A result of a link flow
 * belongs to the account that started it.
 */
@Entity({ tableName: 'identity_tickets' })
@Index({ name: 'identity_tickets_expires_at_idx', properties: ['expiresAt'] })
@Check({ name: 'identity_tickets_kind_check', expression: `"kind" in ('result', 'link')` })
export class IdentityTicket {
  [OptionalProps]?: 'user' | 'email' | 'name' | 'clientChallenge' | 'createdAt';

  @PrimaryKey({ type: 'character', length: 64 })
  tokenHash!: string;

  @Property({ type: 'string', length: 8 })
  kind!: 'result' | 'link';

  @Property({ type: 'string', length: 32 })
  provider!: string;

  @Property({ type: 'string', length: 255 })
  issuer!: string;

  @Property({ type: 'string', length: 255 })
  subject!: string;

  @Property({ type: 'string', length: 320, nullable: true })
  email: string | null = null;

  @Property({ type: 'string', length: 200, nullable: true })
  name: string | null = null;

  /** A result's: the challenge of the frontend that started its flow, if it gave one. */
  @Property({ type: 'string', length: 64, nullable: true })
  clientChallenge: string | null = null;

  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'identity_tickets_user_id_fkey' })
  @Index({ name: 'identity_tickets_user_id_idx' })
  user: Ref<User> | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime' })
  expiresAt!: Date;
}
