const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A timestamp of the API, in the operator's time zone; the exact instant in its `dateTime`. */
export function When({ at, none = '—' }: { at: string | null | undefined; none?: string }) {
  if (!at) return <>{none}</>;
  return <time dateTime={at}>{dateTime.format(new Date(at))}</time>;
}

/** ACCOUNT_VIEWED_BY_OPERATOR -> Account viewed by operator. */
export function words(constant: string): string {
  const text = constant.toLowerCase().replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
