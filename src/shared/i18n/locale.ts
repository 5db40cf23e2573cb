import Negotiator from 'negotiator';

/** The languages the service speaks: its messages, SMS and console (API.md 10.3). */
export const LOCALES = ['zh-CN', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The locale of one language tag, by its primary subtag (case-insensitive): every Chinese tag
 * (`zh`, `zh-CN`, `zh-Hans-SG`, `zh-TW`) is `zh-CN`, the only Chinese the service writes, and every
 * English one is `en`; anything else (and `*`) is none.
 */
function localeOfTag(tag: string): Locale | undefined {
  const primary = tag.split('-', 1)[0]!.toLowerCase();
  if (primary === 'zh') return 'zh-CN';
  if (primary === 'en') return 'en';
  return undefined;
}

/**
 * The locale an `Accept-Language` header asks for: its languages in order of preference (q-values
 * parsed by Negotiator, `q=0` left out), the first that is one of ours. `undefined` when the header
 * is missing or names none of them: the caller then goes on to its next source.
 */
export function localeFromAcceptLanguage(header: string | string[] | undefined): Locale | undefined {
  if (header === undefined || header === '') return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  for (const tag of new Negotiator({ headers: { 'accept-language': value } }).languages()) {
    const locale = localeOfTag(tag);
    if (locale) return locale;
  }
  return undefined;
}

/** The locale of a phone number's region, for regions whose language the service writes (`CN` -> `zh-CN`). */
export function localeOfRegion(region: string | undefined): Locale | undefined {
  return region === 'CN' ? 'zh-CN' : undefined;
}
