import type { PasswordHasher } from '../../shared/password/password-hasher.js';
import type { RateLimiter, Rule } from '../../shared/rate-limit/rate-limiter.js';

export interface FailureLimits {
  perPhoneIp: number;
  perIpDaily: number;
}

/**
 * Every password check of the service (sign-in, password change) goes through here and shares one
 * set of failure counters. Each attempt reserves a slot before the slow comparison and gives it
 * back when the password was right, so parallel guesses cannot exceed the limit. A missing hash
 * (unknown phone, code-only account) costs a comparison against a dummy hash, so all failures take
 * about the same time.
 */
export class PasswordCheck {
  constructor(
    private readonly hasher: PasswordHasher,
    private readonly limiter: RateLimiter,
    private readonly limits: FailureLimits,
  ) {}

  async verify(phone: string, ip: string | undefined, password: string, hash: string | null | undefined): Promise<boolean> {
    const client = ip ?? 'unknown';
    const rules: Rule[] = [
      { key: `login-fail:phone-ip:${phone}:${client}`, limit: this.limits.perPhoneIp, windowSeconds: 15 * 60 },
      { key: `login-fail:ip:${client}`, limit: this.limits.perIpDaily, windowSeconds: 86400 },
    ];
    await this.limiter.consume(rules, 'Too many failed password attempts; try again later');
    const ok = hash ? await this.hasher.compare(password, hash) : await this.hasher.compareDummy(password);
    if (ok) await this.limiter.undo(rules);
    return ok;
  }
}
