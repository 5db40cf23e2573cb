import { useMessages } from '../i18n/messages';

/** A timestamp of the API, in the operator's time zone and the console's language; the exact instant in its `dateTime`. */
export function When({ at, none }: { at: string | null | undefined; none?: string }) {
  const { dateTime } = useMessages();
  if (!at) return <>{none ?? '—'}</>;
  return <time dateTime={at}>{dateTime(at)}</time>;
}
