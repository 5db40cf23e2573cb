import { useQuery } from '@apollo/client/react';
import { ConsoleAuditLogDocument, type ConsoleAuditLogQuery } from '../../generated/graphql';
import { Link, to } from '../router';
import { When, words } from '../ui/format';
import { Pager } from '../ui/pager';
import { ErrorNotice, Loading, PageTitle } from '../ui/status';

const PAGE_SIZE = 50;

type Entry = ConsoleAuditLogQuery['adminAuditLog']['edges'][number]['node'];

/** The audit log (ADMIN), newest first, paged by the API's cursor (`/console/audit?after=`). */
export function AuditPage({ params }: { params: URLSearchParams }) {
  const after = params.get('after') ?? undefined;
  const { data, loading, error } = useQuery(ConsoleAuditLogDocument, { variables: { first: PAGE_SIZE, after } });
  const log = data?.adminAuditLog;
  const entries = log?.edges.map((edge) => edge.node) ?? [];
  return (
    <>
      <PageTitle title="Audit log">Audit log</PageTitle>
      <p>Every action of an operator, and every reading of an account, newest first.</p>
      {loading ? <Loading>Loading the audit log…</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {log && entries.length === 0 ? <p>The audit log is empty.</p> : null}
      {entries.length > 0 ? <AuditRows caption="Audit entries, newest first" entries={entries} /> : null}
      <Pager label="Pages of the audit log" first={after ? to('/audit') : undefined} next={log?.pageInfo.hasNextPage ? to('/audit', { after: log.pageInfo.endCursor }) : undefined} />
    </>
  );
}

/** The detail's own fields first; where the operator acted from last. */
const WHERE = ['ip', 'userAgent', 'requestId'];

function Detail({ detail }: { detail: Record<string, unknown> }) {
  const keys = Object.keys(detail).sort((a, b) => Number(WHERE.includes(a)) - Number(WHERE.includes(b)));
  if (keys.length === 0) return <>—</>;
  return (
    <dl className="detail">
      {keys.map((key) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof detail[key] === 'string' ? (detail[key] as string) : JSON.stringify(detail[key])}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Audit entries as a table: when, what, who acted, on which account, and the entry's detail. */
export function AuditRows({ caption, entries }: { caption: string; entries: Entry[] }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Action</th>
          <th scope="col">Operator</th>
          <th scope="col">Account</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>
              <When at={entry.at} />
            </td>
            <td>{words(entry.action)}</td>
            <td>{entry.actorId ? <Link href={to(`/users/${entry.actorId}`)}>{entry.actorId.slice(0, 8)}</Link> : 'command line'}</td>
            <td>{entry.targetUserId ? <Link href={to(`/users/${entry.targetUserId}`)}>{entry.targetUserId.slice(0, 8)}</Link> : '—'}</td>
            <td>
              <Detail detail={entry.detail} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
