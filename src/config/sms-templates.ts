import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES, type Locale } from '../shared/i18n/locale.js';

/** What an SMS template is for: the code purposes, and the notice of a phone change to the old number. */
export const SMS_TEMPLATE_PURPOSES = [
  'login',
  'register',
  'reset-password',
  'delete-account',
  'phone-change',
  'phone-change-current',
  'phone-change-notice',
] as const;
export type SmsTemplatePurpose = (typeof SMS_TEMPLATE_PURPOSES)[number];

/** Per purpose, per locale, an ICU message. */
export type SmsTemplates = Record<SmsTemplatePurpose, Record<Locale, string>>;

const NOTICE = 'phone-change-notice';

/**
 * The arguments each template may use. A code's: `{code}` (required) and `{minutes}`, its lifetime.
 * The notice's: `{kind}` (`requested` or `changed`, for a `select`), `{ending}` (required: the last
 * four digits of the new number; never the whole number, which the old number's holder may not own)
 * and `{time}` (when a requested change applies, `YYYY-MM-DD HH:mm UTC`).
 */
const ARGUMENTS: Record<'code' | 'notice', { allowed: readonly string[]; required: string }> = {
  code: { allowed: ['code', 'minutes'], required: 'code' },
  notice: { allowed: ['kind', 'ending', 'time'], required: 'ending' },
};

/** The templates that ship; `SMS_TEMPLATES` replaces any of them. */
export const DEFAULT_SMS_TEMPLATES: SmsTemplates = {
  login: {
    'zh-CN': '您的登录验证码是 {code}，{minutes} 分钟内有效。请勿告诉他人。',
    en: 'Your verification code is {code}. It expires in {minutes} minutes. Do not share it.',
  },
  register: {
    'zh-CN': '您的注册验证码是 {code}，{minutes} 分钟内有效。请勿告诉他人。',
    en: 'Your verification code is {code}. It expires in {minutes} minutes. Do not share it.',
  },
  'reset-password': {
    'zh-CN': '您正在重置密码，验证码是 {code}，{minutes} 分钟内有效。如非本人操作，请勿告诉他人。',
    en: 'Your verification code is {code}. It expires in {minutes} minutes. Do not share it.',
  },
  'delete-account': {
    'zh-CN': '您正在注销账号，验证码是 {code}，{minutes} 分钟内有效。如非本人操作，请勿告诉他人。',
    en: 'Your verification code is {code}. It expires in {minutes} minutes. Do not share it.',
  },
  'phone-change': {
    'zh-CN': '您正在将此号码设为账号的手机号，验证码是 {code}，{minutes} 分钟内有效。请勿告诉他人。',
    en: "Your code to make this number your account's phone number is {code}. It expires in {minutes} minutes. Do not share it.",
  },
  'phone-change-current': {
    'zh-CN': '您正在将账号换绑到其他手机号，验证码是 {code}，{minutes} 分钟内有效。如非本人操作，请勿告诉他人，并登录检查账号。',
    en: 'Your code to move your account to another phone number is {code}. It expires in {minutes} minutes. If you did not ask for it, do not share it and sign in to check your account.',
  },
  [NOTICE]: {
    'zh-CN':
      '{kind, select, requested {您账号的手机号将于 {time} 更换为尾号 {ending} 的号码。如非本人操作，请用本号码登录并取消。} other {您账号的手机号已更换为尾号 {ending} 的号码。如非本人操作，请联系客服。}}',
    en: "{kind, select, requested {Your account's phone number will be changed to a number ending in {ending} on {time}. If this was not you, sign in with this number to cancel it.} other {Your account's phone number was changed to a number ending in {ending}. If this was not you, contact support.}}",
  },
};

/** The argument names of an ICU message, at any depth (inside `select` and `plural` branches too). */
export function argumentsOf(template: string, locale: Locale): Set<string> {
  const names = new Set<string>();
  const walk = (elements: readonly unknown[]): void => {
    for (const element of elements as { type: number; value?: unknown; options?: Record<string, { value: unknown[] }>; children?: unknown[] }[]) {
      // Literal (0) and pound (7) name nothing; tags (8) hold children.
      if (element.type !== 0 && element.type !== 7 && typeof element.value === 'string') names.add(element.value);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
      if (element.children) walk(element.children);
    }
  };
  walk(new IntlMessageFormat(template, locale).getAst());
  return names;
}

/** Problems of one template, as lines naming it; none when it is fine. */
function checkTemplate(purpose: SmsTemplatePurpose, locale: Locale, template: unknown): string[] {
  const where = `SMS_TEMPLATES: ${purpose}.${locale}`;
  if (typeof template !== 'string' || template.trim() === '') return [`${where}: must be a non-empty string`];
  let names: Set<string>;
  try {
    names = argumentsOf(template, locale);
  } catch (error) {
    return [`${where}: not an ICU message (${(error as Error).message})`];
  }
  const { allowed, required } = ARGUMENTS[purpose === NOTICE ? 'notice' : 'code'];
  const problems: string[] = [];
  if (!names.has(required)) problems.push(`${where}: must contain {${required}}`);
  const unknown = [...names].filter((name) => !allowed.includes(name));
  if (unknown.length > 0) problems.push(`${where}: unknown placeholder ${unknown.map((n) => `{${n}}`).join(', ')} (it may use ${allowed.map((n) => `{${n}}`).join(', ')})`);
  return problems;
}

/**
 * The templates of `SMS_TEMPLATES` (a JSON file: `{ "<purpose>": { "<locale>": "<ICU message>" } }`,
 * any subset of purposes and locales) over the defaults; every problem of the file is added to
 * `problems`, so that a bad one refuses to start rather than sending broken SMS.
 */
export function parseSmsTemplates(file: string | undefined, problems: string[]): SmsTemplates {
  const templates = structuredClone(DEFAULT_SMS_TEMPLATES);
  if (file === undefined) return templates;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    problems.push(`SMS_TEMPLATES: cannot read ${file} as JSON (${(error as Error).message})`);
    return templates;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    problems.push('SMS_TEMPLATES: must be a JSON object of purposes');
    return templates;
  }
  for (const [purpose, perLocale] of Object.entries(json)) {
    if (!(SMS_TEMPLATE_PURPOSES as readonly string[]).includes(purpose)) {
      problems.push(`SMS_TEMPLATES: unknown purpose ${JSON.stringify(purpose)} (one of ${SMS_TEMPLATE_PURPOSES.join(', ')})`);
      continue;
    }
    if (!perLocale || typeof perLocale !== 'object' || Array.isArray(perLocale)) {
      problems.push(`SMS_TEMPLATES: ${purpose}: must be an object of locales (${LOCALES.join(', ')})`);
      continue;
    }
    for (const [locale, template] of Object.entries(perLocale)) {
      if (!(LOCALES as readonly string[]).includes(locale)) {
        problems.push(`SMS_TEMPLATES: ${purpose}: unknown locale ${JSON.stringify(locale)} (one of ${LOCALES.join(', ')})`);
        continue;
      }
      const found = checkTemplate(purpose as SmsTemplatePurpose, locale as Locale, template);
      problems.push(...found);
      if (found.length === 0) templates[purpose as SmsTemplatePurpose][locale as Locale] = template as string;
    }
  }
  return templates;
}

/** A host name for WebOTP's `@domain #code` line: lower-case labels, no scheme, port or path. */
export function isWebOtpDomain(value: string): boolean {
  return value.length <= 253 && /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(value);
}
