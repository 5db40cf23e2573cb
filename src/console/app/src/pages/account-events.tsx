import type { ConsoleAccountQuery } from '../../generated/graphql';
import { to } from '../router';
import { When, words } from '../ui/format';
import { Pager } from '../ui/pager';
import { Loading } from '../ui/status';

type Events = ConsoleAccountQuery['adminUser']['securityEvents'];

/**
 * The account's security events, newest first, as its owner sees them: a page of them comes with the
 * account (ConsoleAccount), the next by `?events=<cursor>`.
 */
export function AccountEvents({ id, events, after, loading }: { id: string; events: Events; after?: string; loading: boolean }) {
  const rows = events.edges.map((edge) => edge.node);
  const here = `/users/${id}`;
  return (
    <section aria-labelledby="events">
      <h2 id="events">Security events</h2>
      {loading ? <Loading>Loading the security events…</Loading> : null}
      {rows.length === 0 ? <p>No security event.</p> : null}
      {rows.length > 0 ? (
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
            {rows.map((event) => (
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
        next={events.pageInfo.hasNextPage ? to(here, { events: events.pageInfo.endCursor }) : undefined}
      />
    </section>
  );
}
