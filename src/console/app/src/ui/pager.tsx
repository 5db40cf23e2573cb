import { useMessages } from '../i18n/messages';
import { Link } from '../router';

/**
 * Paging by the API's cursors (forward only): the first page, and the next one when there is one.
 * Each page has its own address, so the browser's Back button goes to the page before.
 */
export function Pager({ label, first, next }: { label: string; first?: string; next?: string }) {
  const { t } = useMessages();
  if (!first && !next) return null;
  return (
    <nav aria-label={label} className="pager">
      {first ? <Link href={first}>{t('pager.first')}</Link> : null}
      {next ? <Link href={next}>{t('pager.next')}</Link> : null}
    </nav>
  );
}
