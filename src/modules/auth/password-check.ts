import { msg } from '../../shared/errors/app-error.js';
import type { PasswordHasher } from '../../shared/password/password-hasher.js';
import type { RateLimiter, Rule } from '../../shared/rate-limit/rate-limiter.js';

export interface FailureLimits {
  perPhoneIp: number;
  perIpDaily: number;
}

/**
 * Every password check of the service (sign-in, password change) goes through here and shares one
 * set of failure limits. An attempt is admitted to the slow comparison only while the failures so
 * far and the attempts still being compared leave room for it (RateLimiter.attempt), so
 * parallel guesses cannot exceed the limit; only a wrong password counts as a failure, and a right
 * one that finds no room is told to retry in a moment, not that attempts failed. A missing hash
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
      { name: 'login-failures-per-phone-ip', key: `login-fail:phone-ip:${phone}:${client}`, limit: this.limits.perPhoneIp, windowSeconds: 15 * 60 },
      { name: 'login-failures-per-ip-daily', key: `login-fail:ip:${client}`, limit: this.limits.perIpDaily, windowSeconds: 86400 },
    ];
    const messages = { locked: msg('password.locked'), busy: msg('password.busy') };
    return (await this.limiter.attempt(rules, messages, () => (hash ? this.hasher.compare(password, hash) : this.hasher.compareDummy(password)))) === true;
  }
}
