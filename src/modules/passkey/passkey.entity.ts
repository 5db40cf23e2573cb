import { ArrayType, BigIntType, OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/** Table `passkeys`: the WebAuthn credentials of an account, found by credential id at sign-in. */
@Entity({ tableName: 'passkeys' })
// "My passkeys", the per-account limit and the registration's excludeCredentials.
@Index({ name: 'passkeys_user_id_idx', properties: ['user'] })
export class Passkey {
  [OptionalProps]?: 'counter' | 'transports' | 'backedUp' | 'createdAt' | 'lastUsedAt';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'passkeys_user_id_fkey' })
  user!: Ref<User>;

  /** base64url, as the browser's `id` carries it; WebAuthn caps the raw id at 1023 bytes. */
  @Property({ type: 'string', length: 1400, unique: 'passkeys_credential_id_unique' })
  credentialId!: string;

  /** The COSE public key. */
  @Property({ type: 'blob' })
  publicKey!: Buffer;

  /** The authenticator's signature counter (32 bits unsigned); 0 for authenticators that keep none. */
  @Property({ type: new BigIntType('number'), defaultRaw: '0' })
  counter!: number;

  @Property({ type: ArrayType, columnType: 'text[]', defaultRaw: `'{}'` })
  transports: string[] = [];

  /** `singleDevice` or `multiDevice` (synced). */
  @Property({ type: 'string', length: 16 })
  deviceType!: string;

  @Property({ type: 'boolean', default: false })
  backedUp!: boolean;

  @Property({ type: 'string', length: 64 })
  name!: string;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  lastUsedAt: Date | null = null;
}
