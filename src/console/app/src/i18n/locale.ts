/** The console's languages: Simplified Chinese and English (API.md 10.3), as BCP 47 tags. */
export const LOCALES = ['zh-CN', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

export const isLocale = (value: unknown): value is Locale => LOCALES.includes(value as Locale);

/**
 * The browser's language as the console speaks it: the first of `navigator.languages` that is
 * Chinese (any `zh` tag: zh-CN, zh-TW, zh-Hans…) or English; English when none is.
 */
export function browserLocale(languages: readonly string[]): Locale {
  for (const tag of languages) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'zh') return 'zh-CN';
    if (primary === 'en') return 'en';
  }
  return 'en';
}
