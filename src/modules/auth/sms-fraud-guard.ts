import type { SmsFraudConfig } from '../../config/sms-fraud.js';
import { AppError, ErrorCode, msg, type Message } from '../../shared/errors/app-error.js';
import type { Logger } from '../../shared/logger.js';
import { countryOf, type Phone } from '../../shared/phone.js';
import type { RateLimiter } from '../../shared/rate-limit/rate-limiter.js';
import { NO_AUTH_METRICS, type AuthMetrics } from './auth-metrics.js';
import { surelyNotSent } from './sms/sms-provider.js';

const DAY_SECONDS = 86400;
/** The conversion window is an hour of buckets this long, summed: it slides by one bucket at a time. */
const BUCKET_SECONDS = 300;
const BUCKETS = 3600 / BUCKET_SECONDS;

/**
 * Defences of send-code against SMS pumping (toll fraud: many numbers, many addresses, codes never
 * used, paid per message): regions served and blocked ranges, distinct regions per address, a daily
 * budget per region and a conversion breaker per region. Every count lives in the shared counter
 * store (PostgreSQL or Redis), so the rules hold across instances. Nothing here adds an error code:
 * INVALID_PHONE, RATE_LIMITED and SERVICE_UNAVAILABLE say in their detail which rule refused.
 */
export class SmsFraudGuard {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly settings: SmsFraudConfig,
    private readonly logger: Logger,
    private readonly metrics: Pick<AuthMetrics, 'sms'> = NO_AUTH_METRICS,
  ) {}

  /** INVALID_PHONE for a number of a region not served or in a blocked range; counts nothing. */
  assertServed(phone: Phone): void {
    const { allowedCountries, blockedPrefixes } = this.settings;
    if (allowedCountries !== '*' && !allowedCountries.includes(phone.country)) {
      throw notServed(msg('sms.regionNotServed', { country: phone.country }));
    }
    if (blockedPrefixes.some((prefix) => phone.e164.startsWith(prefix))) {
      throw notServed(msg('sms.rangeNotServed'));
    }
  }

  /** RATE_LIMITED once an address has asked codes for `countriesPerIpDaily` other regions within a day. */
  async admitCountry(ip: string | undefined, country: string): Promise<void> {
    // With no more regions served than an address may ask for (the default: one), it cannot refuse.
    const { allowedCountries, countriesPerIpDaily } = this.settings;
    if (allowedCountries !== '*' && allowedCountries.length <= countriesPerIpDaily) return;
    await this.limiter.admitMember(
      { name: 'send-code-countries-per-ip-daily', key: `send-code:countries:ip:${ip ?? 'unknown'}`, limit: this.settings.countriesPerIpDaily, windowSeconds: DAY_SECONDS },
      country,
      msg('sms.tooManyRegions', { count: String(this.settings.countriesPerIpDaily) }),
    );
  }

  /**
   * SERVICE_UNAVAILABLE while the region's SMS budget for today is spent, or while too few of the
   * codes sent there in the last hour were used. Counts nothing, so it can be asked for phones that
   * get no SMS (reset for an unknown phone) and answer as for the others.
   */
  async assertOpen(country: string, now = Date.now()): Promise<void> {
    const budget = this.budgetOf(country);
    const breaker = this.settings.minConversion > 0;
    if (budget === undefined && !breaker) return;
    const bucket = Math.floor(now / 1000 / BUCKET_SECONDS);
    const buckets = breaker ? Array.from({ length: BUCKETS }, (_, i) => bucket - i) : [];
    const counts = await this.limiter.counts([
      budgetKey(country, now),
      ...buckets.map((b) => `sms:sent:${country}:${b}`),
      ...buckets.map((b) => `sms:verified:${country}:${b}`),
    ]);
    if (budget !== undefined && counts[0]! >= budget) {
      this.metrics.sms(country, 'budget_spent');
      throw budgetSpent(country, now);
    }
    const sent = counts.slice(1, 1 + BUCKETS).reduce((a, b) => a + b, 0);
    const verified = counts.slice(1 + BUCKETS).reduce((a, b) => a + b, 0);
    if (breaker && sent >= this.settings.conversionMinSends && verified / sent < this.settings.minConversion) {
      this.metrics.sms(country, 'breaker_open');
      const retryAfter = (bucket + 1) * BUCKET_SECONDS - Math.floor(now / 1000);
      // Logged once per region and bucket across instances: the first refusal of the bucket counts 1.
      const logged = await this.limiter.add(`sms:breaker-logged:${country}:${bucket}`, BUCKET_SECONDS);
      if (logged.count === 1) {
        // Warn, not error: clients' traffic tripped a rule (a refusal by policy, not a fault of the service).
        this.logger.warn({ country, sent, verified, minConversion: this.settings.minConversion }, 'SMS codes to a region paused: too few of the codes sent there in the last hour were used (SMS pumping?)');
      }
      throw paused(msg('sms.paused', { country }), retryAfter);
    }
  }

  /**
   * Sends one SMS to `country` through `deliver`: takes it from the region's budget first
   * (SERVICE_UNAVAILABLE if concurrent sends took the last of it), gives it back only if delivery
   * surely sent nothing (a timeout may have sent it: it stays spent), and counts it in the conversion
   * window once it may have gone out.
   */
  async send(country: string, deliver: () => Promise<void>, now = Date.now()): Promise<void> {
    const budget = this.budgetOf(country);
    const key = budgetKey(country, now);
    if (budget !== undefined) {
      const taken = await this.limiter.add(key, 2 * DAY_SECONDS);
      if (taken.count === budget) {
        // Warn, not error: a limit reached by clients' traffic, not a fault of the service.
        this.logger.warn({ country, budget }, 'the daily SMS budget of a region is spent: send-code to it answers 503 until midnight UTC');
      }
      if (taken.count > budget) {
        this.metrics.sms(country, 'budget_spent');
        throw budgetSpent(country, now);
      }
    }
    try {
      await deliver();
    } catch (error) {
      const notSent = surelyNotSent(error);
      this.metrics.sms(country, notSent ? 'failed' : 'uncertain');
      if (notSent) {
        if (budget !== undefined) await this.limiter.remove(key);
      } else if (this.settings.minConversion > 0) {
        await this.count('sent', country, now);
      }
      throw error;
    }
    this.metrics.sms(country, 'sent');
    if (this.settings.minConversion > 0) await this.count('sent', country, now);
  }

  /** A code sent to `e164` was used: it counts towards its region's conversion. */
  async verified(e164: string, now = Date.now()): Promise<void> {
    const country = countryOf(e164);
    if (country && this.settings.minConversion > 0) await this.count('verified', country, now);
  }

  /**
   * Best effort: the SMS went out or the code was used whatever happens here, so a counter store
   * that fails is logged, not answered to the user (the breaker then sees a little less).
   */
  private async count(what: 'sent' | 'verified', country: string, now: number): Promise<void> {
    // A bucket is read for an hour after it ends.
    await this.limiter.add(`sms:${what}:${country}:${Math.floor(now / 1000 / BUCKET_SECONDS)}`, 3600 + BUCKET_SECONDS).catch((error: unknown) => {
      this.logger.warn({ err: error, country }, `could not count an SMS ${what} for the conversion breaker`);
    });
  }

  private budgetOf(country: string): number | undefined {
    return this.settings.dailyBudget[country] ?? this.settings.dailyBudget['*'];
  }
}

function budgetKey(country: string, now: number): string {
  return `sms:budget:${country}:${new Date(now).toISOString().slice(0, 10)}`;
}

function secondsToMidnight(now: number): number {
  const midnight = new Date(now);
  midnight.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((midnight.getTime() - now) / 1000));
}

function budgetSpent(country: string, now: number): AppError {
  return paused(msg('sms.budgetSpent', { country }), secondsToMidnight(now));
}

function notServed(message: Message): AppError {
  return new AppError(ErrorCode.INVALID_PHONE, message, { fields: { phone: msg('sms.regionNotServed.field') } });
}

function paused(message: Message, retryAfter: number): AppError {
  return new AppError(ErrorCode.SERVICE_UNAVAILABLE, message, { retryAfter: Math.max(1, retryAfter), byPolicy: true });
}
