import type { Database } from '../../db/database.js';
import type { ExternalSignIn } from '../auth/second-factor.js';
import { MfaChallenge, type ChallengePurpose } from './mfa-challenge.entity.js';
import { RecoveryCode } from './recovery-code.entity.js';
import { TotpFactor } from './totp-factor.entity.js';

export interface StoredFactor {
  secretSealed: string;
  confirmed: boolean;
}

/** A sign-in's mfaToken: the account, its first factor and that factor's methods. */
export interface SignInChallenge {
  userId: string;
  method: string;
  amr: string[];
  /** Of a sign-in through an external provider (see ExternalSignIn). */
  external?: ExternalSignIn;
  /** An mfaToken (the default) or a dormant account's proofToken. */
  purpose?: ChallengePurpose;
}

/** A step-up's mfaToken: the account, the session to upgrade and the methods its token named. */
export interface StepUpChallenge {
  userId: string;
  sessionId: string;
  amr: string[];
}

/** What a live mfaToken is for: a sign-in (`method`, no session) or a step-up (`sessionId`, no method). */
interface LiveChallenge {
  userId: string;
  method: string | null;
  amr: string[];
  sessionId: string | null;
  external: ExternalSignIn | null;
}

/** The mfaToken a code is spent on: its hash, and the attempts after which it is dead. */
export interface SpentToken {
  hash: string;
  maxAttempts: number;
}

/** A live challenge and its account's TOTP factor (none once TOTP went off), read together. */
export interface ChallengeWithFactor extends LiveChallenge {
  factor?: StoredFactor;
}

/** Pending enrolments are swept a day after they were started. */
const PENDING_DAYS = 1;

/** The `totp_factors`, `recovery_codes` and `mfa_challenges` tables. */
export class MfaRepository {
  private readonly sql: Record<
    | 'factor'
    | 'savePending'
    | 'confirm'
    | 'useStep'
    | 'useRecoveryCode'
    | 'useStepSpendingToken'
    | 'useRecoveryCodeSpendingToken'
    | 'status'
    | 'createChallenge'
    | 'createStepUp'
    | 'lockChallenge'
    | 'useChallenge'
    | 'challengeWithFactor'
    | 'countWrong',
    string
  >;

  /**
   * `passkeysOf`: the number of passkeys of a user id (an SQL expression) as a scalar subquery, from
   * the passkey module (passkeyCountOf), which this module does not import: the arrows point from
   * passkeys to the second factor.
   */
  constructor(
    private readonly db: Database,
    passkeysOf: (userId: string) => string,
  ) {
    const f = db.names(TotpFactor);
    const r = db.names(RecoveryCode);
    const c = db.names(MfaChallenge);
    const live = `${c.tokenHash} = $1 and ${c.usedAt} is null and ${c.expiresAt} > now() and ${c.attempts} < $2`;
    // Conditional update: a step is accepted once, and only after every step accepted before it,
    // however many instances judge the same code at once; of the secret the code was judged by ($3),
    // not one enrolled since it was read.
    const step = {
      set: `${f.lastUsedStep} = $2`,
      where: `${f.user} = $1 and ${f.confirmedAt} is not null and ${f.secretSealed} = $3 and (${f.lastUsedStep} is null or ${f.lastUsedStep} < $2)`,
    };
    // Conditional update: of concurrent uses of one recovery code, exactly one gets its row back.
    const recovery = { set: `${r.usedAt} = now()`, where: `${r.user} = $1 and ${r.codeHash} = $2 and ${r.usedAt} is null` };
    this.sql = {
      factor: `select ${f.secretSealed} as "secretSealed", ${f.confirmedAt} is not null as confirmed from ${f.table} where ${f.user} = $1`,
      // A new start replaces a pending factor, never a confirmed one (then no row comes back).
      savePending: `insert into ${f.table} (${f.user}, ${f.secretSealed}) values ($1, $2)
                    on conflict (${f.user}) do update set ${f.secretSealed} = excluded.${f.secretSealed}, ${f.createdAt} = now(), ${f.lastUsedStep} = null
                    where ${f.table}.${f.confirmedAt} is null returning 1 as ok`,
      // The confirming code's step counts as used: it cannot be replayed at the next sign-in.
      confirm: `update ${f.table} set ${f.confirmedAt} = now(), ${f.lastUsedStep} = $2
                 where ${f.user} = $1 and ${f.confirmedAt} is null and ${f.secretSealed} = $3 returning 1 as ok`,
      useStep: `update ${f.table} set ${step.set} where ${step.where} returning 1 as ok`,
      useRecoveryCode: `update ${r.table} set ${recovery.set} where ${recovery.where} returning 1 as ok`,
      // What an account's second-factor status shows, in one statement (a first screen asks it), the
      // passkeys counted by their owner's source.
      status: `select exists (select 1 from ${f.table} where ${f.user} = $1 and ${f.confirmedAt} is not null) as totp,
                      (select count(*)::int from ${r.table} where ${r.user} = $1 and ${r.usedAt} is null) as "recoveryCodesLeft",
                      ${passkeysOf('$1')} as passkeys`,
      createChallenge: `insert into ${c.table} (${c.tokenHash}, ${c.user}, ${c.method}, ${c.amr}, ${c.expiresAt}, ${c.externalSignIn}, ${c.purpose})
                        values ($1, $2, $3, $4::text[], now() + make_interval(secs => $5), $6::jsonb, $7)`,
      // One statement: a session's new step-up token replaces its earlier ones, so that asking again
      // and again keeps one row per session (each needs only the session's access token).
      createStepUp: `with replaced as (delete from ${c.table} where ${c.session} = $3)
                     insert into ${c.table} (${c.tokenHash}, ${c.user}, ${c.session}, ${c.amr}, ${c.expiresAt})
                     values ($1, $2, $3, $4::text[], now() + make_interval(secs => $5))`,
      // Locked when asked inside a transaction, so that the verifies of one token run one at a time.
      lockChallenge: `select 1 as ok from ${c.table} where ${live} for update`,
      // Conditional update: of concurrent uses of one live token, exactly one gets its row back.
      useChallenge: `update ${c.table} set ${c.usedAt} = now() where ${live} returning 1 as ok`,
      // The first look at a token: its challenge and the factor to judge the code by, in one round trip.
      challengeWithFactor: `select c.${c.user} as "userId", c.${c.method} as method, c.${c.amr} as amr, c.${c.session} as "sessionId", c.${c.externalSignIn} as external,
                                   f.${f.secretSealed} as "secretSealed", f.${f.confirmedAt} is not null as confirmed
                              from ${c.table} c left join ${f.table} f on f.${f.user} = c.${c.user}
                             where c.${c.tokenHash} = $1 and c.${c.usedAt} is null and c.${c.expiresAt} > now() and c.${c.attempts} < $2 and c.${c.purpose} = $3`,
      // Atomic: every wrong code counts, however many arrive at once.
      countWrong: `update ${c.table} set ${c.attempts} = ${c.attempts} + 1 where ${c.tokenHash} = $1 returning ${c.attempts} as attempts`,
      useStepSpendingToken: '',
      useRecoveryCodeSpendingToken: '',
    };
    // A code's use and its mfaToken's in one statement: the code is used only while the token is
    // live ($n+1: its hash, $n+2: its attempts' limit), and the token is spent only when the code is.
    const spending = (table: string, use: { set: string; where: string }, n: number) =>
      `with live as (select 1 from ${c.table} where ${c.tokenHash} = $${n + 1} and ${c.usedAt} is null and ${c.expiresAt} > now() and ${c.attempts} < $${n + 2}),
            spent as (update ${table} set ${use.set} where ${use.where} and exists (select 1 from live) returning 1)
       update ${c.table} set ${c.usedAt} = now() where ${c.tokenHash} = $${n + 1} and exists (select 1 from spent) returning 1 as ok`;
    this.sql.useStepSpendingToken = spending(f.table, step, 3);
    this.sql.useRecoveryCodeSpendingToken = spending(r.table, recovery, 2);
  }

  async factor(userId: string): Promise<StoredFactor | undefined> {
    return this.db.one<{ secretSealed: string; confirmed: boolean }>(this.sql.factor, [userId], 'mfa_factor');
  }

  /** False when the account's factor is confirmed already. */
  async savePending(userId: string, secretSealed: string): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.savePending, [userId, secretSealed]));
  }

  /** Confirms the pending factor whose secret is `secretSealed` (not one replaced meanwhile). */
  async confirm(userId: string, step: number, secretSealed: string): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.confirm, [userId, step, secretSealed]));
  }

  /** Records `step` as the factor's last used one; with `token`, spends that mfaToken in the same statement. */
  async useStep(userId: string, step: number, secretSealed: string, token?: SpentToken): Promise<boolean> {
    const values = [userId, step, secretSealed];
    if (!token) return Boolean(await this.db.one(this.sql.useStep, values, 'mfa_use_step'));
    return Boolean(await this.db.one(this.sql.useStepSpendingToken, [...values, token.hash, token.maxAttempts], 'mfa_use_step_spending_token'));
  }

  /** Switches TOTP off: the factor and every recovery code go. */
  async removeAll(userId: string): Promise<void> {
    await this.db.em().nativeDelete(TotpFactor, { user: userId });
    await this.db.em().nativeDelete(RecoveryCode, { user: userId });
  }

  /** The account's recovery codes become these (the old ones stop working). */
  async replaceRecoveryCodes(userId: string, codeHashes: string[]): Promise<void> {
    await this.db.transaction(async () => {
      const em = this.db.em();
      await em.nativeDelete(RecoveryCode, { user: userId });
      await em.insertMany(RecoveryCode, codeHashes.map((codeHash) => ({ user: userId, codeHash })));
    });
  }

  /** Uses an unused recovery code; with `token`, spends that mfaToken in the same statement. */
  async useRecoveryCode(userId: string, codeHash: string, token?: SpentToken): Promise<boolean> {
    const values = [userId, codeHash];
    if (!token) return Boolean(await this.db.one(this.sql.useRecoveryCode, values, 'mfa_use_recovery_code'));
    return Boolean(
      await this.db.one(this.sql.useRecoveryCodeSpendingToken, [...values, token.hash, token.maxAttempts], 'mfa_use_recovery_code_spending_token'),
    );
  }

  /** Those of `userIds` whose TOTP is on (confirmed). */
  async confirmedOf(userIds: string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.db.em().find(TotpFactor, { user: { $in: userIds }, confirmedAt: { $ne: null } }, { fields: ['user'] });
    return new Set(rows.map((row) => row.user.id));
  }

  /** Whether TOTP is on, how many unused recovery codes are left, how many passkeys the account has. */
  async status(userId: string): Promise<{ totp: boolean; recoveryCodesLeft: number; passkeys: number }> {
    return (await this.db.one<{ totp: boolean; recoveryCodesLeft: number; passkeys: number }>(this.sql.status, [userId], 'mfa_status'))!;
  }

  async createChallenge(tokenHash: string, challenge: SignInChallenge, ttlSeconds: number): Promise<void> {
    const external = challenge.external ? JSON.stringify(challenge.external) : null;
    const purpose = challenge.purpose ?? 'second-factor';
    await this.db.rows(this.sql.createChallenge, [tokenHash, challenge.userId, challenge.method, challenge.amr, ttlSeconds, external, purpose], 'mfa_create_challenge');
  }

  /** A step-up's token, replacing any earlier one of the same session. */
  async createStepUp(tokenHash: string, challenge: StepUpChallenge, ttlSeconds: number): Promise<void> {
    await this.db.rows(this.sql.createStepUp, [tokenHash, challenge.userId, challenge.sessionId, challenge.amr, ttlSeconds], 'mfa_create_step_up');
  }

  /** The challenge of a token of `purpose` that is unused, unexpired and has attempts left, with its account's factor. */
  async challengeWithFactor(tokenHash: string, maxAttempts: number, purpose: ChallengePurpose = 'second-factor'): Promise<ChallengeWithFactor | undefined> {
    const row = await this.db.one<LiveChallenge & { secretSealed: string | null; confirmed: boolean }>(
      this.sql.challengeWithFactor,
      [tokenHash, maxAttempts, purpose],
      'mfa_challenge_with_factor',
    );
    if (!row) return undefined;
    const { secretSealed, confirmed, ...challenge } = row;
    return { ...challenge, ...(secretSealed !== null && { factor: { secretSealed, confirmed } }) };
  }

  /** Holds a live token's row until the commit (the verifies of one token run one at a time); false when it is no longer live. */
  async lockChallenge(tokenHash: string, maxAttempts: number): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.lockChallenge, [tokenHash, maxAttempts], 'mfa_lock_challenge'));
  }

  /** Spends a live token; false when it is no longer live (spent, expired or dead meanwhile). */
  async useChallenge(tokenHash: string, maxAttempts: number): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.useChallenge, [tokenHash, maxAttempts], 'mfa_use_challenge'));
  }

  async countWrong(tokenHash: string): Promise<void> {
    await this.db.rows(this.sql.countWrong, [tokenHash]);
  }

  /** Every mfaToken of the account, live or not. */
  async deleteChallengesOf(userId: string): Promise<void> {
    await this.db.em().nativeDelete(MfaChallenge, { user: userId });
  }

  /** Expired challenges, and enrolments left pending for a day. */
  async sweepExpired(): Promise<Record<string, number>> {
    const em = this.db.em();
    const now = new Date();
    return {
      mfaChallenges: await em.nativeDelete(MfaChallenge, { expiresAt: { $lt: now } }),
      pendingTotpFactors: await em.nativeDelete(TotpFactor, { confirmedAt: null, createdAt: { $lt: new Date(now.getTime() - PENDING_DAYS * 86400_000) } }),
    };
  }
}
