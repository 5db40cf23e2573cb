import { randomInt, type KeyObject } from 'node:crypto';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';
import { equalHex, hmacHex } from '../../shared/tokens/secrets.js';
import type { CodePurpose } from './code-purpose.js';
import type { VerificationCodeRepository } from './verification-code.repository.js';

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
export class VerificationCodeService {
  constructor(
    private readonly codes: VerificationCodeRepository,
    private readonly key: KeyObject,
    private readonly settings: CodeSettings,
    /** Told of every code used: the SMS conversion of its region (SmsFraudGuard). */
    private readonly conversion: { verified(phone: string): Promise<void> },
  ) {}

  /** Creates a fresh code for (phone, purpose), replacing any earlier one; returns it in clear for sending. */
  async issue(phone: string, purpose: CodePurpose): Promise<string> {
    const code = randomInt(0, 10 ** this.settings.length).toString().padStart(this.settings.length, '0');
    await this.codes.replace(phone, purpose, this.hash(phone, purpose, code), this.settings.ttlSeconds);
    return code;
  }

  /** Uses up the code or throws INVALID_CODE: wrong, expired, already used, burned or other purpose. */
  async consume(phone: string, purpose: CodePurpose, code: string): Promise<void> {
    const storedHash = await this.codes.reserveAttempt(phone, purpose, this.settings.maxAttempts);
    const candidate = this.hash(phone, purpose, code);
    if (!storedHash || !equalHex(storedHash, candidate)) throw invalidCode();
    if (!(await this.codes.consume(phone, purpose, candidate))) throw invalidCode();
    await this.conversion.verified(phone);
  }

  /** Forgets every code of the phone (its account is being deleted). */
  discardAll(phone: string): Promise<void> {
    return this.codes.deleteAllFor(phone);
  }

  sweepExpired(): Promise<Record<string, number>> {
    return this.codes.sweepExpired();
  }

  private hash(phone: string, purpose: CodePurpose, code: string): string {
    return hmacHex(this.key, `${phone}\u0000${purpose}\u0000${code}`);
  }
}

function invalidCode(): AppError {
  return new AppError(ErrorCode.INVALID_CODE, 'The code is wrong, expired or already used; request a new one');
}
