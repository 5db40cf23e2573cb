import { CombinedGraphQLErrors } from '@apollo/client';
import { useQuery } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { ConsoleAuditEntriesDocument, ConsoleAuditLogDocument, type ConsoleAuditLogQuery } from '../../generated/graphql';
import { useMessages } from '../i18n/messages';
import type { LiveStatus } from '../live';
import { Link, to } from '../router';
import { When } from '../ui/format';
import { Pager } from '../ui/pager';
import { ErrorNotice, Loading, PageTitle } from '../ui/status';
import { useLive, useLiveStatus } from '../use-live';

const PAGE_SIZE = 50;

type Entry = ConsoleAuditLogQuery['adminAuditLog']['edges'][number]['node'];

/**
 * The audit log (ADMIN), newest first, paged by the API's cursor (`/console/audit?after=`). Its first
 * page grows as operators act: new entries arrive over the live socket and go on top; after the
 * socket was down, the page is read again for what it missed.
 */
export function AuditPage({ params }: { params: URLSearchParams }) {
  const { t } = useMessages();
  const after = params.get('after') ?? undefined;
  const { data, loading, error, refetch } = useQuery(ConsoleAuditLogDocument, { variables: { first: PAGE_SIZE, after } });
  const { arrived, refusal } = useArrivals(!after, refetch);
  const log = data?.adminAuditLog;
  const read = log?.edges.map((edge) => edge.node) ?? [];
  const known = new Set(read.map((entry) => entry.id));
  const entries = [...arrived.filter((entry) => !known.has(entry.id)), ...read];
  return (
    <>
      <PageTitle title={t('audit.title')}>{t('audit.title')}</PageTitle>
      <p>{t('audit.text')}</p>
      {after ? null : <LiveIndicator />}
      {refusal ? <ErrorNotice error={refusal} /> : null}
      {loading ? <Loading>{t('audit.loading')}</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {log && entries.length === 0 ? <p>{t('audit.empty')}</p> : null}
      {entries.length > 0 ? <AuditRows caption={t('audit.caption')} entries={entries} /> : null}
      <Pager label={t('audit.pager')} first={after ? to('/audit') : undefined} next={log?.pageInfo.hasNextPage ? to('/audit', { after: log.pageInfo.endCursor }) : undefined} />
    </>
  );
}

/**
 * New entries from the live socket while `live` (the first page), newest first, or the API's refusal
 * of the subscription (a role taken away); `refetch` once the socket is back after it was down, for
 * the entries it missed meanwhile.
 */
function useArrivals(live: boolean, refetch: () => unknown): { arrived: Entry[]; refusal?: CombinedGraphQLErrors } {
  const socket = useLive();
  const status = useLiveStatus();
  const [arrived, setArrived] = useState<Entry[]>([]);
  const [refusal, setRefusal] = useState<CombinedGraphQLErrors>();
  useEffect(() => {
    if (!live) return;
    return socket.hold(
      ConsoleAuditEntriesDocument,
      ({ adminAuditEntries: entry }) => setArrived((earlier) => [entry, ...earlier.filter((e) => e.id !== entry.id)]),
      (errors) => setRefusal(new CombinedGraphQLErrors({ errors })),
    );
  }, [live, socket]);
  const was = useRef<LiveStatus>(status);
  useEffect(() => {
    if (live && status === 'live' && was.current === 'reconnecting') void refetch();
    was.current = status;
  }, [live, status, refetch]);
  return live ? { arrived, refusal } : { arrived: [] };
}

/** Whether new entries come by themselves: live, or the socket connecting again. */
function LiveIndicator() {
  const { t } = useMessages();
  const status = useLiveStatus();
  return (
    <p role="status" className={`live-status ${status}`}>
      {t('live.status', { status })}
    </p>
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
  const { t } = useMessages();
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{t('col.when')}</th>
          <th scope="col">{t('col.action')}</th>
          <th scope="col">{t('col.operator')}</th>
          <th scope="col">{t('col.account')}</th>
          <th scope="col">{t('col.detail')}</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>
              <When at={entry.at} />
            </td>
            <td>{t('enum.auditAction', { action: entry.action })}</td>
            <td>{entry.actorId ? <Link href={to(`/users/${entry.actorId}`)}>{entry.actorId.slice(0, 8)}</Link> : t('audit.commandLine')}</td>
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
