import type { ClientInfo } from '../../../shared/http/request-context.js';
import { localeOfRegion, type Locale } from '../../../shared/i18n/locale.js';
import type { Phone } from '../../../shared/phone.js';

/**
 * Who an SMS is written for: the account's choice (none for a phone without an account), and the
 * language of the request that sends it when that request is the recipient's own. An operator's
 * request, or none (a change the janitor applied), says nothing of the recipient's language.
 */
export interface SmsReader {
  account: Locale | null | undefined;
  request: Locale | undefined;
}

/**
 * The language of an SMS (API.md 10.3): the account's choice, else the request's `Accept-Language`,
 * else the phone's region (`+86` -> `zh-CN`), else the configured default.
 */
export function smsLocale(reader: SmsReader, phone: Phone, fallback: Locale): Locale {
  return reader.account ?? reader.request ?? localeOfRegion(phone.country) ?? fallback;
}

/** The reader of an SMS sent by the recipient's own request. */
export function ownReader(account: Locale | null | undefined, client: ClientInfo | undefined): SmsReader {
  return { account, request: client?.locale };
}
