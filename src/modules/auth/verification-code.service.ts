import { randomInt, type KeyObject } from 'node:crypto';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { RateLimiter, Rule } from '../../shared/rate-limit/rate-limiter.js';
import { equalHex, hmacHex } from '../../shared/tokens/secrets.js';
import type { CodePurpose } from './code-purpose.js';
import type { VerificationCodeRepository } from './verification-code.repository.js';

export interface CodeSettings {
  length: number;
  ttlSeconds: number;
  maxAttempts: number;
  /** Wrong codes per (phone, address) in 15 minutes and per address per day, any purpose. */
  failures: { perPhoneIp: number; perIpDaily: number };
}

const FAILURE_WINDOW_SECONDS = 15 * 60;

/**
 * One live code per (phone, purpose), stored only as an HMAC. Each guess first reserves an attempt
 * atomically, so no more than `maxAttempts` guesses are ever evaluated, however many arrive at once;
 * the winning guess then consumes the code with a conditional update, so exactly one succeeds.
 *
 * Every guess also passes the address's failure limits first (as password checks do, see
 * PasswordCheck): a code's attempts bound the guesses at one code, not the wrong codes sent when
 * there is none to guess (hundreds a second were answered, each a failed sign-in in its owner's log),
 * nor one address guessing at many phones.
 */
export class VerificationCodeService {
  constructor(
    private readonly codes: VerificationCodeRepository,
    private readonly key: KeyObject,
    private readonly settings: CodeSettings,
    /** Told of every code used: the SMS conversion of its region (SmsFraudGuard). */
    private readonly conversion: { verified(phone: string): Promise<void> },
    private readonly limiter: RateLimiter,
  ) {}

  /** Creates a fresh code for (phone, purpose), replacing any earlier one; returns it in clear for sending. */
  async issue(phone: string, purpose: CodePurpose): Promise<string> {
    const code = randomInt(0, 10 ** this.settings.length).toString().padStart(this.settings.length, '0');
    await this.codes.replace(phone, purpose, this.hash(phone, purpose, code), this.settings.ttlSeconds);
    return code;
  }

  /**
   * Uses up the code or throws INVALID_CODE: wrong, expired, already used, burned or other purpose.
   * RATE_LIMITED, before the code is looked at, once the address's wrong codes reached a limit.
   */
  async consume(phone: string, purpose: CodePurpose, code: string, ip: string | undefined): Promise<void> {
    const rules = this.failureRules(phone, ip);
    const messages = { locked: msg('code.locked'), busy: msg('code.busy') };
    const used = await this.limiter.attempt(rules, messages, () => this.use(phone, purpose, code));
    if (!used) throw invalidCode();
    await this.conversion.verified(phone);
  }

  /**
   * `consume` for a code kept elsewhere (a phone change keeps its codes on the change): the same
   * failure limits of the address and of (`phone`, address) first, then `use` (true: the code was
   * right and is used up), then the conversion of the phone's region. INVALID_CODE when `use` says no.
   */
  async consumeWith(phone: string, ip: string | undefined, use: () => Promise<boolean>): Promise<void> {
    const messages = { locked: msg('code.locked'), busy: msg('code.busy') };
    const used = await this.limiter.attempt(this.failureRules(phone, ip), messages, use);
    if (!used) throw invalidCode();
    await this.conversion.verified(phone);
  }

  /** Forgets every code of the phone (its account is being deleted). */
  discardAll(phone: string): Promise<void> {
    return this.codes.deleteAllFor(phone);
  }

  sweepExpired(): Promise<Record<string, number>> {
    return this.codes.sweepExpired();
  }

  private async use(phone: string, purpose: CodePurpose, code: string): Promise<boolean> {
    const storedHash = await this.codes.reserveAttempt(phone, purpose, this.settings.maxAttempts);
    const candidate = this.hash(phone, purpose, code);
    if (!storedHash || !equalHex(storedHash, candidate)) return false;
    return this.codes.consume(phone, purpose, candidate);
  }

  private failureRules(phone: string, ip: string | undefined): Rule[] {
    const client = ip ?? 'unknown';
    return [
      { name: 'code-failures-per-phone-ip', key: `code-fail:phone-ip:${phone}:${client}`, limit: this.settings.failures.perPhoneIp, windowSeconds: FAILURE_WINDOW_SECONDS },
      { name: 'code-failures-per-ip-daily', key: `code-fail:ip:${client}`, limit: this.settings.failures.perIpDaily, windowSeconds: 86400 },
    ];
  }

  private hash(phone: string, purpose: CodePurpose, code: string): string {
    return hmacHex(this.key, `${phone}\u0000${purpose}\u0000${code}`);
  }
}

function invalidCode(): AppError {
  return new AppError(ErrorCode.INVALID_CODE, msg('code.invalid'));
}
