import { IntlMessageFormat } from 'intl-messageformat';
import type { SmsAutofill } from '../../../config/config.js';
import type { SmsTemplates } from '../../../config/sms-templates.js';
import type { Locale } from '../../../shared/i18n/locale.js';
import type { PhoneChangeNotice, SmsMessage } from './sms-provider.js';

/** `2026-11-28 09:30 UTC`: when a requested phone change applies, the same in every language. */
function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The notice's arguments: only the last digits of the new number, as the old number may no longer be the owner's. */
function noticeArguments(notice: PhoneChangeNotice): Record<string, string> {
  return { kind: notice.kind, ending: notice.newPhone.slice(-4), time: notice.kind === 'requested' ? utcMinute(notice.appliesAt) : '' };
}

/**
 * The text of an SMS for the text providers: the template of its purpose in its locale (checked at
 * start, see config/sms-templates.ts), then, for a code, the autofill lines: Android's SMS Retriever
 * hash, and WebOTP's `@domain #code` last, where the WebOTP format wants it.
 */
export class SmsWriter {
  private readonly formats = new Map<string, IntlMessageFormat>();

  constructor(
    private readonly templates: SmsTemplates,
    private readonly autofill: SmsAutofill,
  ) {}

  text(message: SmsMessage): string {
    const format = this.format(message.purpose, message.locale);
    if (message.notice) return String(format.format(noticeArguments(message.notice)));
    const text = String(format.format({ code: message.code, minutes: Math.round(message.ttlSeconds / 60) }));
    const { appHash, webOtpDomain } = this.autofill;
    const lines = [appHash, webOtpDomain && `@${webOtpDomain} #${message.code}`].filter(Boolean);
    return lines.length === 0 ? text : `${text}\n\n${lines.join('\n')}`;
  }

  private format(purpose: SmsMessage['purpose'], locale: Locale): IntlMessageFormat {
    const key = `${purpose} ${locale}`;
    let format = this.formats.get(key);
    if (!format) {
      format = new IntlMessageFormat(this.templates[purpose][locale], locale);
      this.formats.set(key, format);
    }
    return format;
  }
}
