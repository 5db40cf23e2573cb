import { OptionalProps, PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';

/** Table `recovery_codes`: the account's single-use recovery codes, as SHA-256 of their normalised form. */
@Entity({ tableName: 'recovery_codes' })
export class RecoveryCode {
  [PrimaryKeyProp]?: ['user', 'codeHash'];
  [OptionalProps]?: 'createdAt' | 'usedAt';

  @ManyToOne(() => User, { ref: true, primary: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'recovery_codes_user_id_fkey' })
  user!: Ref<User>;

  @PrimaryKey({ type: 'character', length: 64 })
  codeHash!: string;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  usedAt: Date | null = null;
}
