import { IntlMessageFormat } from 'intl-messageformat';
import type { Locale } from './locale.js';
import en from './messages/en.json' with { type: 'json' };
import zhCN from './messages/zh-CN.json' with { type: 'json' };

/**
 * The message catalogues, one file per locale (ICU message format). The English one names the ids:
 * a catalogue that lacks one of them does not compile, and test/i18n/catalogues.test.ts checks the
 * rest (no id of one catalogue missing from the other, the same arguments, every id in use).
 */
export const CATALOGUES: Readonly<Record<Locale, Readonly<Record<CatalogueKey, string>>>> = { en, 'zh-CN': zhCN };

type CatalogueKey = keyof typeof en;
/** The id of a message of the API (a problem `detail`, a GraphQL `message`, a `fields` entry). */
export type MessageId = Exclude<CatalogueKey, `title.${string}`>;

/** A value of a message's argument: a number (plurals), text taken as it is, or a message of its own, rendered in the same locale. */
export type MessageValue = string | number | Message;

/** What to say, in no language yet: the transports render it in the request's locale. */
export interface Message {
  readonly id: MessageId;
  readonly values?: Readonly<Record<string, MessageValue>>;
}

/** The message `id` with its arguments. */
export function msg(id: MessageId, values?: Record<string, MessageValue>): Message {
  return values ? { id, values } : { id };
}

/** Compiled formats, made on first use: one per (locale, key), so an error path parses a pattern once per process. */
const compiled = new Map<string, IntlMessageFormat>();

function formatOf(locale: Locale, key: CatalogueKey): IntlMessageFormat {
  const cacheKey = `${locale}\u0000${key}`;
  let format = compiled.get(cacheKey);
  if (!format) {
    // ignoreTag: the messages hold no markup, and `<` in one is text.
    format = new IntlMessageFormat(CATALOGUES[locale][key], locale, undefined, { ignoreTag: true });
    compiled.set(cacheKey, format);
  }
  return format;
}

/** `message` in `locale`. */
export function render(message: Message, locale: Locale): string {
  const values = message.values && renderValues(message.values, locale);
  return String(formatOf(locale, message.id).format(values));
}

function renderValues(values: Readonly<Record<string, MessageValue>>, locale: Locale): Record<string, string | number> {
  const rendered: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) rendered[name] = typeof value === 'object' ? render(value, locale) : value;
  return rendered;
}

/** The title of a catalogue entry (`title.<CODE>`) in `locale`. */
export function renderTitle(code: string, locale: Locale): string {
  return String(formatOf(locale, `title.${code}` as CatalogueKey).format());
}
