import { isLocale, LOCALES, type Locale } from '../shared/i18n/locale.js';
import type { SmsPurpose } from '../modules/auth/sms/sms-provider.js';
import { SMS_TEMPLATE_PURPOSES as SMS_PURPOSES } from './sms-templates.js';

/** A purpose as it is written in the JSON. */
type PurposeName = `${SmsPurpose}`;

// Every SMS the service sends needs a template: this fails to compile when a purpose is added to
// SmsPurpose and not to SMS_TEMPLATE_PURPOSES, or the list names one that is none.
const listed: readonly PurposeName[] = SMS_PURPOSES;
void listed;
type Missing = Exclude<PurposeName, (typeof SMS_PURPOSES)[number]>;
const complete: Missing extends never ? true : never = true;
void complete;

/** A template id per purpose and locale (the same id in both locales when one was given for all). */
export type TemplateTable = Readonly<Record<PurposeName, Readonly<Record<Locale, string>>>>;

export interface TemplateIdRule {
  /** How a valid id looks: `SMS_123` (Alibaba Cloud), `1110` (Tencent Cloud). */
  pattern: RegExp;
  /** Said when an id does not match. */
  example: string;
  /** Tencent Cloud's ids are numbers: `1110` in the JSON is taken as `"1110"`. */
  numbers?: boolean;
}

/**
 * `ALIYUN_SMS_TEMPLATES` / `TENCENT_SMS_TEMPLATES`: a JSON object, purpose -> template id, or
 * purpose -> `{ "zh-CN": id, "en": id }` when the operator registered the template in both languages.
 * Every purpose must be there, and nothing else; each problem is added to `problems` naming `name`.
 */
export function parseTemplateTable(name: string, raw: string | undefined, rule: TemplateIdRule, problems: string[]): TemplateTable | undefined {
  if (raw === undefined) {
    problems.push(`${name}: required (a JSON object with a template for each of ${SMS_PURPOSES.join(', ')})`);
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    problems.push(`${name}: is not valid JSON (expected an object such as {"login": ${JSON.stringify(rule.example)}, …})`);
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${name}: must be a JSON object, purpose -> template`);
    return undefined;
  }
  const entries = value as Record<string, unknown>;
  const before = problems.length;
  const unknown = Object.keys(entries).filter((key) => !(SMS_PURPOSES as readonly string[]).includes(key));
  if (unknown.length > 0) problems.push(`${name}: unknown purpose ${unknown.join(', ')} (purposes: ${SMS_PURPOSES.join(', ')})`);
  const missing = SMS_PURPOSES.filter((purpose) => !Object.hasOwn(entries, purpose));
  if (missing.length > 0) problems.push(`${name}: no template for ${missing.join(', ')}`);
  const table: Partial<Record<PurposeName, Record<Locale, string>>> = {};
  for (const purpose of SMS_PURPOSES) {
    if (!Object.hasOwn(entries, purpose)) continue;
    const entry = entries[purpose];
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      const perLocale = entry as Record<string, unknown>;
      const extra = Object.keys(perLocale).filter((key) => !isLocale(key));
      if (extra.length > 0) problems.push(`${name}: ${purpose} has unknown locale ${extra.join(', ')} (locales: ${LOCALES.join(', ')})`);
      const ids: Partial<Record<Locale, string>> = {};
      for (const locale of LOCALES) {
        if (!Object.hasOwn(perLocale, locale)) {
          problems.push(`${name}: ${purpose} has no template for ${locale} (give both ${LOCALES.join(' and ')}, or one template for every locale)`);
          continue;
        }
        const id = templateId(perLocale[locale], rule);
        if (id === undefined) problems.push(`${name}: ${purpose}.${locale} is not a template id such as ${JSON.stringify(rule.example)}`);
        else ids[locale] = id;
      }
      table[purpose] = ids as Record<Locale, string>;
    } else {
      const id = templateId(entry, rule);
      if (id === undefined) problems.push(`${name}: ${purpose} is not a template id such as ${JSON.stringify(rule.example)} (or {"zh-CN": …, "en": …})`);
      else table[purpose] = { 'zh-CN': id, en: id };
    }
  }
  return problems.length > before ? undefined : (table as TemplateTable);
}

function templateId(value: unknown, rule: TemplateIdRule): string | undefined {
  const text = typeof value === 'string' ? value : rule.numbers && typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : undefined;
  return text !== undefined && rule.pattern.test(text) ? text : undefined;
}
