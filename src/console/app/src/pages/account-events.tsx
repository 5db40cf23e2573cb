import { useQuery } from '@apollo/client/react';
import { ConsoleAccountEventsDocument } from '../../generated/graphql';
import { to } from '../router';
import { When, words } from '../ui/format';
import { Pager } from '../ui/pager';
import { ErrorNotice, Loading } from '../ui/status';

const PAGE_SIZE = 20;

/** The account's security events, newest first, as its owner sees them; paged with `?events=<cursor>`. */
export function AccountEvents({ id, after }: { id: string; after?: string }) {
  const { data, loading, error } = useQuery(ConsoleAccountEventsDocument, { variables: { id, first: PAGE_SIZE, after } });
  const connection = data?.adminUser.securityEvents;
  const events = connection?.edges.map((edge) => edge.node) ?? [];
  const here = `/users/${id}`;
  return (
    <section aria-labelledby="events">
      <h2 id="events">Security events</h2>
      {loading ? <Loading>Loading the security events…</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {connection && events.length === 0 ? <p>No security event.</p> : null}
      {events.length > 0 ? (
        <table>
          <caption>Security events{after ? ' (an older page)' : ''}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">How</th>
              <th scope="col">Address</th>
              <th scope="col">Device</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                <td>
                  <When at={event.at} />
                </td>
                <td>{words(event.type)}</td>
                <td>{[event.method && words(event.method), event.provider].filter(Boolean).join(', ') || '—'}</td>
                <td>{event.ip ?? '—'}</td>
                <td className="agent">{event.userAgent ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager
        label="Pages of security events"
        first={after ? to(here) : undefined}
        next={connection?.pageInfo.hasNextPage ? to(here, { events: connection.pageInfo.endCursor }) : undefined}
      />
    </section>
  );
}
