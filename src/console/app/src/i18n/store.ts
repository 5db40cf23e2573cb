import { browserLocale, isLocale, type Locale } from './locale';

/** Where the operator's own choice of language is kept; nothing is stored until they choose. */
const STORAGE_KEY = 'console:locale';

function stored(): Locale | undefined {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isLocale(value) ? value : undefined;
  } catch {
    // Storage refused (a private window's policy): the browser's language then.
    return undefined;
  }
}

/**
 * The console's language: the operator's choice (the switch), remembered in localStorage, else the
 * browser's. It is `<html lang>` too; the GraphQL requests ask for it (client.ts, Accept-Language).
 */
class LocaleStore {
  private locale: Locale = stored() ?? browserLocale(navigator.languages?.length ? navigator.languages : [navigator.language]);
  private readonly listeners = new Set<() => void>();

  constructor() {
    document.documentElement.lang = this.locale;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly current = (): Locale => this.locale;

  /** The operator's choice: kept for the next visit, the page redrawn in it. */
  choose(locale: Locale): void {
    try {
      localStorage.setItem(STORAGE_KEY, locale);
    } catch {
      // Not kept: it still holds until the page is reloaded.
    }
    if (locale === this.locale) return;
    this.locale = locale;
    document.documentElement.lang = locale;
    for (const listener of this.listeners) listener();
  }
}

export const localeStore = new LocaleStore();
