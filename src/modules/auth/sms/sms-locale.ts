import type { ClientInfo } from '../../../shared/http/request-context.js';
import { localeOfRegion, type Locale } from '../../../shared/i18n/locale.js';
import type { Phone } from '../../../shared/phone.js';

/**
 * The language of an SMS (API.md 10.3): the account's choice, else the request's `Accept-Language`,
 * else the phone's region (`+86` -> `zh-CN`), else the configured default. A notice sent with no
 * request (a change the janitor applied) skips the second source.
 */
export function smsLocale(account: Locale | null | undefined, client: ClientInfo | undefined, phone: Phone, fallback: Locale): Locale {
  return account ?? client?.locale ?? localeOfRegion(phone.country) ?? fallback;
}
