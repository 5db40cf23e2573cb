import { ArrayType, OptionalProps, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../account/user.entity.js';
import { Session } from '../session/session.entity.js';
import type { ExternalSignIn } from '../auth/second-factor.js';

/** What a challenge's token finishes (see MfaChallenge.purpose). */
export type ChallengePurpose = 'second-factor' | 'second-proof';

/**
 * Table `mfa_challenges`: the mfaTokens of sign-ins waiting for a second factor, and of signed-in
 * sessions asked to step up, stored as SHA-256 only. Single use, bound to the account, and to the
 * first factor that passed (a sign-in) or to the session to upgrade (a step-up).
 */
@Entity({ tableName: 'mfa_challenges' })
export class MfaChallenge {
  [OptionalProps]?: 'createdAt' | 'attempts' | 'usedAt' | 'method' | 'session' | 'externalSignIn' | 'purpose';

  @PrimaryKey({ type: 'character', length: 64 })
  tokenHash!: string;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'mfa_challenges_user_id_fkey' })
  @Index({ name: 'mfa_challenges_user_id_idx' })
  user!: Ref<User>;

  /** The first factor's sign-in method (SignInMethod); null for a step-up, which has no first factor of its own. */
  @Property({ type: 'string', length: 16, nullable: true })
  method: string | null = null;

  /** A step-up's session, upgraded when the second factor passes; null for a sign-in. */
  @ManyToOne(() => Session, { ref: true, nullable: true, deleteRule: 'cascade', updateRule: 'no action', foreignKeyName: 'mfa_challenges_session_id_fkey' })
  @Index({ name: 'mfa_challenges_session_id_idx' })
  session: Ref<Session> | null = null;

  /**
   * The first factor's methods (RFC 8176), completed with `otp` and `mfa` when the second passes; for
   * a step-up, the methods the session's token named when it was asked (the session's own are completed).
   */
  @Property({ type: ArrayType, columnType: 'text[]' })
  amr!: string[];

  /**
   * Of a sign-in through an external provider: the provider, and the identity the sign-in links to
   * the account once the second factor passes (one that proved a phone for an identity no account
   * had); null otherwise.
   */
  @Property({ type: 'json', nullable: true })
  externalSignIn: ExternalSignIn | null = null;

  /**
   * `second-factor`: an mfaToken (MFA_REQUIRED, finished by verifyMfa); `second-proof`: a dormant
   * account's proofToken (SECOND_PROOF_REQUIRED, finished by completeSecondProof). Each is taken only
   * where its own kind is asked.
   */
  @Property({ type: 'string', length: 16, default: 'second-factor' })
  purpose!: ChallengePurpose;

  /** Wrong codes so far; at MAX_ATTEMPTS the token is dead. */
  @Property({ type: 'integer', default: 0 })
  attempts!: number;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt!: Date;

  @Property({ type: 'datetime' })
  @Index({ name: 'mfa_challenges_expires_at_idx' })
  expiresAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  usedAt: Date | null = null;
}
