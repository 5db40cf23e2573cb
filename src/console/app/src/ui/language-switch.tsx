import { useId } from 'react';
import { isLocale, LOCALES } from '../i18n/locale';
import { useMessages } from '../i18n/messages';
import { localeStore } from '../i18n/store';

/**
 * The console's language, chosen by the operator: labelled in both languages (“语言 · Language”),
 * each language named in itself, so that it is found whatever language the page is in. The choice is
 * remembered in this browser; until one is made, the console follows the browser's language.
 */
export function LanguageSwitch() {
  const { t, locale } = useMessages();
  const id = useId();
  return (
    <div className="language">
      <label htmlFor={id}>{t('language.label')}</label>
      <select
        id={id}
        value={locale}
        onChange={(event) => {
          if (isLocale(event.target.value)) localeStore.choose(event.target.value);
        }}
      >
        {LOCALES.map((option) => (
          <option key={option} value={option} lang={option}>
            {t(`language.${option}`)}
          </option>
        ))}
      </select>
    </div>
  );
}
