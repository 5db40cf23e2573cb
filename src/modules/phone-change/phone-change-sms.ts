import { randomInt } from 'node:crypto';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { Locale } from '../../shared/i18n/locale.js';
import type { Logger } from '../../shared/logger.js';
import type { Phone } from '../../shared/phone.js';
import type { RateLimiter, Rule } from '../../shared/rate-limit/rate-limiter.js';
import type { CodePurpose } from '../auth/code-purpose.js';
import type { SmsFraudGuard } from '../auth/sms-fraud-guard.js';
import type { SmsProvider } from '../auth/sms/index.js';
import { ownReader, smsLocale, type SmsReader } from '../auth/sms/sms-locale.js';
import { PHONE_CHANGE_NOTICE, SmsDeliveryError, type PhoneChangeNotice, type SmsMessage } from '../auth/sms/sms-provider.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';

export interface PhoneChangeSmsSettings {
  /** The last source of an SMS's language. */
  defaultLocale: Locale;
  codeLength: number;
  codeTtlSeconds: number;
  sendCode: { intervalSeconds: number; perPhoneHourly: number; perPhoneDaily: number; perIpHourly: number };
}

const HOUR = 3600;
const DAY = 86400;

/**
 * The SMS of a phone change (its codes, and the notices to the account's number) through the limits
 * and pumping defences of send-code, with the same counters: per address, per phone (one per
 * interval, hourly, daily), the regions an address asks for, and the region's budget and breaker.
 * A notice skips the per-phone interval only: it follows a code by seconds, and must still go out.
 */
export class PhoneChangeSms {
  constructor(
    private readonly deps: { limiter: RateLimiter; smsGuard: SmsFraudGuard; sms: SmsProvider; events: SecurityEventService; logger: Logger },
    private readonly settings: PhoneChangeSmsSettings,
  ) {}

  /**
   * Sends a new code of `purpose` to `phone` once the limits pass; `store` keeps its hash first (a
   * code issued is never withdrawn: after a timeout the SMS may have arrived).
   */
  async sendCode(phone: Phone, purpose: CodePurpose, account: { id: string; locale: Locale | null }, client: ClientInfo, store: (code: string) => Promise<void>): Promise<void> {
    const perPhone = await this.admit(phone, client, true);
    const { codeLength, codeTtlSeconds } = this.settings;
    const code = randomInt(0, 10 ** codeLength).toString().padStart(codeLength, '0');
    await store(code);
    await this.deliver(phone, perPhone, { phone: phone.e164, code, purpose, ttlSeconds: codeTtlSeconds, locale: smsLocale(ownReader(account.locale, client), phone, this.settings.defaultLocale) });
    await this.deps.events.recordUnlocked({ type: SecurityEventType.CODE_SENT, userId: account.id, phone: phone.e164, client });
  }

  /**
   * A notice to the account's number, in `reader`'s language; RATE_LIMITED, SERVICE_UNAVAILABLE or
   * SMS_DELIVERY_FAILED when it cannot go out. `client` is the request that causes it, for the limits.
   */
  async sendNotice(phone: Phone, notice: PhoneChangeNotice, reader: SmsReader, client: ClientInfo | undefined): Promise<void> {
    const perPhone = await this.admit(phone, client, false);
    await this.deliver(phone, perPhone, { phone: phone.e164, code: '', purpose: PHONE_CHANGE_NOTICE, ttlSeconds: 0, notice, locale: smsLocale(reader, phone, this.settings.defaultLocale) });
  }

  /** `sendNotice` after the change committed: a notice that cannot go out is logged, the change stands. */
  async sendNoticeAfterCommit(phone: Phone, notice: PhoneChangeNotice, reader: SmsReader, client: ClientInfo | undefined): Promise<void> {
    await this.sendNotice(phone, notice, reader, client).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, country: phone.country }, 'the notice of an applied phone change could not be sent to the old number');
    });
  }

  /** The rules of send-code in its order; returns the per-phone rules taken, to give back if nothing went out. */
  private async admit(phone: Phone, client: ClientInfo | undefined, withInterval: boolean): Promise<Rule[]> {
    const { limiter, smsGuard } = this.deps;
    const limits = this.settings.sendCode;
    smsGuard.assertServed(phone);
    if (client) {
      await limiter.consume(
        [{ name: 'send-code-per-ip-hourly', key: `send-code:ip:${client.ip ?? 'unknown'}`, limit: limits.perIpHourly, windowSeconds: HOUR }],
        msg('code.tooManyFromAddress'),
      );
      await smsGuard.admitCountry(client.ip, phone.country);
    }
    await smsGuard.assertOpen(phone.country);
    const perPhone: Rule[] = [
      ...(withInterval ? [{ name: 'send-code-interval', key: `send-code:phone:${phone.e164}:interval`, limit: 1, windowSeconds: limits.intervalSeconds }] : []),
      { name: 'send-code-per-phone-hourly', key: `send-code:phone:${phone.e164}:hour`, limit: limits.perPhoneHourly, windowSeconds: HOUR },
      { name: 'send-code-per-phone-daily', key: `send-code:phone:${phone.e164}:day`, limit: limits.perPhoneDaily, windowSeconds: DAY },
    ].filter((rule) => rule.windowSeconds > 0);
    await limiter.consume(perPhone, msg('sms.tooManyForPhone'));
    return perPhone;
  }

  /** Through the region's budget; a send that surely reached no one gives the phone's allowance back. */
  private async deliver(phone: Phone, perPhone: Rule[], message: SmsMessage): Promise<void> {
    const { smsGuard, sms, limiter } = this.deps;
    try {
      await smsGuard.send(phone.country, async () => {
        try {
          await sms.send(message);
        } catch (error) {
          if (error instanceof SmsDeliveryError) throw error;
          throw new SmsDeliveryError(`${sms.name}: failed`, { definite: false, cause: error });
        }
      });
    } catch (error) {
      if (!(error instanceof SmsDeliveryError) || error.definite) await limiter.undo(perPhone);
      if (error instanceof SmsDeliveryError) {
        throw new AppError(ErrorCode.SMS_DELIVERY_FAILED, msg('sms.deliveryFailed'), { cause: error });
      }
      throw error;
    }
  }
}
