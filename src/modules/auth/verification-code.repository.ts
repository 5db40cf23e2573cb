import type { Database } from '../../db/database.js';
import type { CodePurpose } from './code-purpose.js';
import { VerificationCode } from './verification-code.entity.js';

const DAY_MS = 86400_000;

/** The `verification_codes` table: at most one live code per (phone, purpose). */
export class VerificationCodeRepository {
  private readonly sql: { replace: string; reserve: string; consume: string };

  constructor(private readonly db: Database) {
    const c = db.names(VerificationCode);
    this.sql = {
      // Prepared: every send-code writes one (the EntityManager's upsert cost send-code a third of its rate).
      replace: `insert into ${c.table} (${c.phone}, ${c.purpose}, ${c.codeHash}, ${c.attempts}, ${c.createdAt}, ${c.expiresAt}, ${c.consumedAt})
                values ($1, $2, $3, 0, now(), now() + make_interval(secs => $4), null)
                on conflict (${c.phone}, ${c.purpose}) do update set ${c.codeHash} = excluded.${c.codeHash}, ${c.attempts} = 0,
                  ${c.createdAt} = excluded.${c.createdAt}, ${c.expiresAt} = excluded.${c.expiresAt}, ${c.consumedAt} = null`,
      // Conditional update: at most `maxAttempts` guesses are ever evaluated, however many arrive at once.
      reserve: `update ${c.table} set ${c.attempts} = ${c.attempts} + 1
                 where ${c.phone} = $1 and ${c.purpose} = $2 and ${c.consumedAt} is null and ${c.expiresAt} > now() and ${c.attempts} < $3
                 returning ${c.codeHash} as "codeHash"`,
      // Conditional update: of concurrent right guesses, exactly one uses the code.
      consume: `update ${c.table} set ${c.consumedAt} = now()
                 where ${c.phone} = $1 and ${c.purpose} = $2 and ${c.codeHash} = $3 and ${c.consumedAt} is null
                 returning 1 as ok`,
    };
  }

  /** Stores a fresh code for (phone, purpose), replacing any earlier one. */
  async replace(phone: string, purpose: CodePurpose, codeHash: string, ttlSeconds: number): Promise<void> {
    await this.db.rows(this.sql.replace, [phone, purpose, codeHash, ttlSeconds], 'code_replace');
  }

  /** Counts one guess against the live code and returns its hash; `undefined` when there is none left to guess. */
  async reserveAttempt(phone: string, purpose: CodePurpose, maxAttempts: number): Promise<string | undefined> {
    const row = await this.db.one<{ codeHash: string }>(this.sql.reserve, [phone, purpose, maxAttempts], 'code_reserve_attempt');
    return row?.codeHash;
  }

  async consume(phone: string, purpose: CodePurpose, codeHash: string): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.consume, [phone, purpose, codeHash], 'code_consume'));
  }

  async deleteAllFor(phone: string): Promise<void> {
    await this.db.em().nativeDelete(VerificationCode, { phone });
  }

  /** Codes a day past their expiry. */
  async sweepExpired(): Promise<Record<string, number>> {
    return { codes: await this.db.em().nativeDelete(VerificationCode, { expiresAt: { $lt: new Date(Date.now() - DAY_MS) } }) };
  }
}
