import { randomInt, type KeyObject } from 'node:crypto';
import type { Sql } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';
import { equalHex, hmacHex } from '../../shared/tokens/secrets.js';
import type { CodePurpose } from './code-purpose.js';

export interface CodeSettings {
  length: number;
  ttlSeconds: number;
  maxAttempts: number;
}

/**
 * One live code per (phone, purpose), stored only as an HMAC. Each guess first reserves an attempt
 * atomically, so no more than `maxAttempts` guesses are ever evaluated, however many arrive at once;
 * the winning guess then consumes the code with a conditional update, so exactly one succeeds.
 */
export class VerificationCodes {
  constructor(
    private readonly sql: Sql,
    private readonly key: KeyObject,
    private readonly settings: CodeSettings,
  ) {}

  /** Creates a fresh code for (phone, purpose), replacing any earlier one; returns it in clear for sending. */
  async issue(phone: string, purpose: CodePurpose): Promise<string> {
    const code = randomInt(0, 10 ** this.settings.length).toString().padStart(this.settings.length, '0');
    await this.sql.rows(
      `insert into verification_codes (phone, purpose, code_hash, attempts, created_at, expires_at, consumed_at)
       values ($1, $2, $3, 0, now(), now() + make_interval(secs => $4), null)
       on conflict (phone, purpose) do update set code_hash = excluded.code_hash, attempts = 0,
         created_at = excluded.created_at, expires_at = excluded.expires_at, consumed_at = null`,
      [phone, purpose, this.hash(phone, purpose, code), this.settings.ttlSeconds],
      'code_issue',
    );
    return code;
  }

  /** Uses up the code or throws INVALID_CODE: wrong, expired, already used, burned or other purpose. */
  async consume(phone: string, purpose: CodePurpose, code: string): Promise<void> {
    const reserved = await this.sql.one<{ code_hash: string }>(
      `update verification_codes set attempts = attempts + 1
        where phone = $1 and purpose = $2 and consumed_at is null and expires_at > now() and attempts < $3
        returning code_hash`,
      [phone, purpose, this.settings.maxAttempts],
      'code_reserve_attempt',
    );
    const candidate = this.hash(phone, purpose, code);
    if (!reserved || !equalHex(reserved.code_hash, candidate)) throw invalidCode();
    const consumed = await this.sql.one(
      `update verification_codes set consumed_at = now()
        where phone = $1 and purpose = $2 and code_hash = $3 and consumed_at is null
        returning 1 as ok`,
      [phone, purpose, candidate],
      'code_consume',
    );
    if (!consumed) throw invalidCode();
  }

  private hash(phone: string, purpose: CodePurpose, code: string): string {
    return hmacHex(this.key, `${phone}\u0000${purpose}\u0000${code}`);
  }
}

function invalidCode(): AppError {
  return new AppError(ErrorCode.INVALID_CODE, 'The code is wrong, expired or already used; request a new one');
}
