import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { ConsoleAccountDocument, type ConsoleAccountQuery } from '../../generated/graphql';
import { may } from '../permissions';
import { Link, to } from '../router';
import { When } from '../ui/format';
import { ErrorNotice, Loading, PageTitle } from '../ui/status';
import { useOperator } from '../use-session';
import { AccountActions } from './account-actions';
import { AccountAudit } from './account-audit';
import { AccountEvents } from './account-events';
import { PendingPhoneChange } from './account-phone';

export type Account = ConsoleAccountQuery['adminUser'];

/** Security events per page. */
const EVENTS_PAGE = 20;

/**
 * One account (`/console/users/<id>`): profile, status and role, what the operator may do to it,
 * its live sessions, its factors, its security events (paged; `?events=<cursor>`) and, for an ADMIN,
 * the audit entries about it. Reading it is audited (USER_VIEWED), as the API records every reading:
 * one request per opening, so that each opening is read once.
 */
export function AccountPage({ id, params }: { id: string; params: URLSearchParams }) {
  const operator = useOperator();
  const eventsAfter = params.get('events') ?? undefined;
  const { data, previousData, loading, error } = useQuery(ConsoleAccountDocument, { variables: { id, eventsFirst: EVENTS_PAGE, eventsAfter } });
  // Bumped after every action, so that the audit entries are read again.
  const [version, setVersion] = useState(0);
  // While another page of events loads, the account stays on the page as it was.
  const account = (data ?? previousData)?.adminUser;
  return (
    <>
      <PageTitle title={account ? account.phone : 'Account'}>{account ? `Account ${account.phone}` : 'Account'}</PageTitle>
      <p>
        <Link href={to('/')}>Back to the accounts</Link>
      </p>
      {loading && !account ? <Loading>Loading the account…</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {account ? (
        <>
          <Profile account={account} />
          <AccountActions account={account} onChanged={() => setVersion((v) => v + 1)} />
          <Sessions account={account} />
          <Factors account={account} />
          <AccountEvents id={account.id} events={account.securityEvents} after={eventsAfter} loading={loading} />
          {may.readAudit(operator) ? <AccountAudit key={version} id={account.id} /> : null}
        </>
      ) : null}
    </>
  );
}

function Profile({ account }: { account: Account }) {
  return (
    <section aria-labelledby="profile">
      <h2 id="profile">Profile</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge ${account.status.toLowerCase()}`}>{account.status}</span>
          {account.status === 'BLOCKED' ? (
            <>
              {' '}
              since <When at={account.blockedAt} />: “{account.blockedReason}”
            </>
          ) : null}
        </dd>
        <dt>Role</dt>
        <dd>{account.role}</dd>
        <dt>Phone</dt>
        <dd>{account.phone}</dd>
        <dt>Phone change</dt>
        <dd>
          <PendingPhoneChange account={account} />
        </dd>
        <dt>Nickname</dt>
        <dd>{account.nickname}</dd>
        <dt>Id</dt>
        <dd>
          <code>{account.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <When at={account.createdAt} />
        </dd>
        <dt>Last sign-in</dt>
        <dd>
          <When at={account.lastLoginAt} none="never" />
        </dd>
        <dt>Password</dt>
        <dd>{account.hasPassword ? 'set' : 'none (signs in by SMS code)'}</dd>
        <dt>Avatar</dt>
        <dd>{account.avatarUrl ? <a href={account.avatarUrl}>open the picture</a> : 'none'}</dd>
      </dl>
    </section>
  );
}

function Sessions({ account }: { account: Account }) {
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">Active sessions ({account.sessions.length})</h2>
      {account.sessions.length === 0 ? (
        <p>No live session: the account is signed out everywhere.</p>
      ) : (
        <table>
          <caption>Live sessions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Signed in</th>
              <th scope="col">Last used</th>
              <th scope="col">Address</th>
              <th scope="col">Device</th>
            </tr>
          </thead>
          <tbody>
            {account.sessions.map((session) => (
              <tr key={session.id}>
                <td>
                  <When at={session.createdAt} />
                </td>
                <td>
                  <When at={session.lastUsedAt} />
                </td>
                <td>{session.ip ?? '—'}</td>
                <td className="agent">{session.userAgent ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Factors({ account }: { account: Account }) {
  return (
    <section aria-labelledby="factors">
      <h2 id="factors">Sign-in factors</h2>
      <dl className="facts">
        <dt>Authenticator app (TOTP)</dt>
        <dd>{account.mfaEnabled ? 'on: sign-ins ask for a second factor' : 'off'}</dd>
        <dt>Passkeys</dt>
        <dd>{account.passkeys}</dd>
        <dt>Linked identities</dt>
        <dd>
          {account.identities.length === 0 ? (
            'none'
          ) : (
            <ul className="plain">
              {account.identities.map((identity) => (
                <li key={identity.provider}>
                  {identity.provider}
                  {identity.email ? ` (${identity.email})` : ''}, linked <When at={identity.linkedAt} />, last used <When at={identity.lastUsedAt} none="never" />
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}
