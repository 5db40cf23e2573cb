import type { ConsoleAccountQuery } from '../../generated/graphql';
import { to } from '../router';
import { When } from '../ui/format';
import { Pager } from '../ui/pager';
import { Loading } from '../ui/status';
import { useMessages } from '../i18n/messages';

type Events = ConsoleAccountQuery['adminUser']['securityEvents'];

/**
 * The account's security events, newest first, as its owner sees them: a page of them comes with the
 * account (ConsoleAccount), the next by `?events=<cursor>`.
 */
export function AccountEvents({ id, events, after, loading }: { id: string; events: Events; after?: string; loading: boolean }) {
  const { t } = useMessages();
  const rows = events.edges.map((edge) => edge.node);
  const here = `/users/${id}`;
  return (
    <section aria-labelledby="events">
      <h2 id="events">{t('events.heading')}</h2>
      {loading ? <Loading>{t('events.loading')}</Loading> : null}
      {rows.length === 0 ? <p>{t('events.none')}</p> : null}
      {rows.length > 0 ? (
        <table>
          <caption>{after ? t('events.caption.older') : t('events.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.when')}</th>
              <th scope="col">{t('col.event')}</th>
              <th scope="col">{t('col.how')}</th>
              <th scope="col">{t('col.address')}</th>
              <th scope="col">{t('col.device')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((event) => (
              <tr key={event.id}>
                <td>
                  <When at={event.at} />
                </td>
                <td>{t('enum.securityEvent', { type: event.type })}</td>
                <td>{[event.method && t('enum.signInMethod', { method: event.method }), event.provider].filter(Boolean).join(', ') || '—'}</td>
                <td>{event.ip ?? '—'}</td>
                <td className="agent">{event.userAgent ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager
        label={t('events.pager')}
        first={after ? to(here) : undefined}
        next={events.pageInfo.hasNextPage ? to(here, { events: events.pageInfo.endCursor }) : undefined}
      />
    </section>
  );
}
