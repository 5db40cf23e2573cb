import { IntlMessageFormat } from 'intl-messageformat';
import { Fragment, isValidElement, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import en from './en.json';
import type { Locale } from './locale';
import { localeStore } from './store';
import zhCN from './zh-CN.json';

/** A message of the catalogues (i18n/en.json, i18n/zh-CN.json): ICU message format, one key each. */
type MessageKey = keyof typeof en;
type MessageValues = Record<string, string | number>;
/** A message to show later, in whatever language the console speaks then (a notice kept by the session). */
export interface Message {
  key: MessageKey;
  values?: MessageValues;
}

// Both catalogues have every key (the type says so for zh-CN; test/unit/console-i18n.test.ts checks
// that they have the same keys with the same arguments).
const catalogues: Record<Locale, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };

const compiled = new Map<string, IntlMessageFormat>();
function formatOf(locale: Locale, key: MessageKey): IntlMessageFormat {
  const id = `${locale}\0${key}`;
  let format = compiled.get(id);
  if (!format) {
    format = new IntlMessageFormat(catalogues[locale][key], locale);
    compiled.set(id, format);
  }
  return format;
}

type RichValue = ReactNode | ((chunks: ReactNode[]) => ReactNode);

export interface Messages {
  locale: Locale;
  /** The message `key` as text, with `values` in its arguments. */
  t(key: MessageKey, values?: MessageValues): string;
  /** The same with elements in its arguments (`{at}` a <When>), or tags (`<hidden>…</hidden>`) as functions. */
  rich(key: MessageKey, values: Record<string, RichValue>): ReactNode;
  /** A timestamp of the API, in the operator's time zone, written as the console's language writes it. */
  dateTime(at: string): string;
}

const dateTimes = new Map<Locale, Intl.DateTimeFormat>();

function messagesFor(locale: Locale): Messages {
  return {
    locale,
    t: (key, values) => String(formatOf(locale, key).format(values)),
    rich: (key, values) => {
      const parts = formatOf(locale, key).format<ReactNode>(values as Record<string, ReactNode>);
      if (!Array.isArray(parts)) return parts;
      return parts.map((part, index) => <Fragment key={isValidElement(part) && part.key !== null ? part.key : index}>{part}</Fragment>);
    },
    dateTime: (at) => {
      let format = dateTimes.get(locale);
      if (!format) {
        format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
        dateTimes.set(locale, format);
      }
      return format.format(new Date(at));
    },
  };
}

/** The console's language, as a hook: components redraw when the operator switches it. */
function useLocale(): Locale {
  return useSyncExternalStore(localeStore.subscribe, localeStore.current);
}

/** The messages in the console's language. */
export function useMessages(): Messages {
  const locale = useLocale();
  return useMemo(() => messagesFor(locale), [locale]);
}
