import { useApolloClient } from '@apollo/client/react';
import { useCallback, useEffect, useState } from 'react';
import { ConsoleAuditLogDocument, type ConsoleAuditLogQuery } from '../../generated/graphql';
import { useMessages } from '../i18n/messages';
import { ErrorNotice, Loading } from '../ui/status';
import { AuditRows } from './audit';

type Entry = ConsoleAuditLogQuery['adminAuditLog']['edges'][number]['node'];

/** Entries read per request, the API's largest page, and requests per look further back. */
const PAGE_SIZE = 100;
const PAGES_PER_LOOK = 5;

interface Scan {
  entries: Entry[];
  /** Entries of the whole log read so far, newest first. */
  read: number;
  /** Where the next look starts; null once the oldest entry was read. */
  cursor: string | null | undefined;
}

/**
 * The audit entries about one account. The API's audit log has no per-account filter: the console
 * reads the log newest first, 500 entries at a time, and keeps the entries whose targetUserId is the
 * account; the operator can look further back. Readings of the account (USER_VIEWED, three per
 * opening of this page) are hidden unless asked for.
 */
export function AccountAudit({ id }: { id: string }) {
  const { t } = useMessages();
  const client = useApolloClient();
  const [scan, setScan] = useState<Scan>({ entries: [], read: 0, cursor: undefined });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [readings, setReadings] = useState(false);

  const look = useCallback(
    async (from: Scan) => {
      setBusy(true);
      setError(undefined);
      let next = from;
      try {
        for (let page = 0; page < PAGES_PER_LOOK && next.cursor !== null; page++) {
          const { data } = await client.query({ query: ConsoleAuditLogDocument, variables: { first: PAGE_SIZE, after: next.cursor }, fetchPolicy: 'network-only' });
          const log = data!.adminAuditLog;
          const nodes = log.edges.map((edge) => edge.node);
          next = {
            entries: [...next.entries, ...nodes.filter((entry) => entry.targetUserId === id)],
            read: next.read + nodes.length,
            cursor: log.pageInfo.hasNextPage ? log.pageInfo.endCursor : null,
          };
        }
        setScan(next);
      } catch (failure) {
        setError(failure);
      } finally {
        setBusy(false);
      }
    },
    [client, id],
  );

  useEffect(() => {
    void look({ entries: [], read: 0, cursor: undefined });
  }, [look]);

  const shown = readings ? scan.entries : scan.entries.filter((entry) => entry.action !== 'USER_VIEWED');
  const hidden = scan.entries.length - shown.length;
  return (
    <section aria-labelledby="audit">
      <h2 id="audit">{t('accountAudit.heading')}</h2>
      <div className="field inline">
        <input id="audit-readings" type="checkbox" checked={readings} onChange={(e) => setReadings(e.target.checked)} />
        <label htmlFor="audit-readings">{t('accountAudit.readings')}</label>
      </div>
      {scan.read > 0 ? (
        <p>{t('accountAudit.summary', { shown: shown.length, hidden, read: scan.read, whole: scan.cursor === null ? 'yes' : 'no' })}</p>
      ) : null}
      {shown.length > 0 ? <AuditRows caption={t('accountAudit.caption')} entries={shown} /> : null}
      {busy ? <Loading>{t('accountAudit.loading')}</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {!busy && scan.cursor ? (
        <button type="button" onClick={() => void look(scan)}>
          {t('accountAudit.more')}
        </button>
      ) : null}
    </section>
  );
}
