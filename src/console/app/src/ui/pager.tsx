import { Link } from '../router';

/**
 * Paging by the API's cursors (forward only): the first page, and the next one when there is one.
 * Each page has its own address, so the browser's Back button goes to the page before.
 */
export function Pager({ label, first, next }: { label: string; first?: string; next?: string }) {
  if (!first && !next) return null;
  return (
    <nav aria-label={label} className="pager">
      {first ? <Link href={first}>First page</Link> : null}
      {next ? <Link href={next}>Next page</Link> : null}
    </nav>
  );
}
