import { OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/**
 * Table `oidc_flows`: a web flow between its redirect to the provider and the provider's return to
 * the callback, found by the SHA-256 of its `state` and taken once. It holds the PKCE verifier and
 * the nonce the callback checks the answer by, and where to send the browser back. A link flow
 * belongs to the signed-in account that started it (and goes with it).
 */
@Entity({ tableName: 'oidc_flows' })
@Index({ name: 'oidc_flows_expires_at_idx', properties: ['expiresAt'] })
export class OidcFlow {
  [OptionalProps]?: 'user' | 'clientChallenge' | 'createdAt';

  @PrimaryKey({ type: 'character', length: 64 })
  stateHash!: string;

  @Property({ type: 'string', length: 32 })
  provider!: string;

  @Property({ type: 'string', length: 128 })
  codeVerifier!: string;

  @Property({ type: 'string', length: 128 })
  nonce!: string;

  @Property({ type: 'text' })
  returnTo!: string;

  /** The S256 challenge of the frontend that started the flow: its result is exchanged with the verifier only. */
  @Property({ type: 'string', length: 64, nullable: true })
  clientChallenge: string | null = null;

  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'oidc_flows_user_id_fkey' })
  @Index({ name: 'oidc_flows_user_id_idx' })
  user: Ref<User> | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime' })
  expiresAt!: Date;
}
