import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { ConsoleAccountDocument, type ConsoleAccountQuery } from '../../generated/graphql';
import { may } from '../permissions';
import { Link, to } from '../router';
import { isLocale } from '../i18n/locale';
import { useMessages } from '../i18n/messages';
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
  const { t } = useMessages();
  const operator = useOperator();
  const eventsAfter = params.get('events') ?? undefined;
  const { data, previousData, loading, error } = useQuery(ConsoleAccountDocument, { variables: { id, eventsFirst: EVENTS_PAGE, eventsAfter } });
  // Bumped after every action, so that the audit entries are read again.
  const [version, setVersion] = useState(0);
  // While another page of events loads, the account stays on the page as it was.
  const account = (data ?? previousData)?.adminUser;
  return (
    <>
      <PageTitle title={account ? account.phone : t('account.title')}>{account ? t('account.heading', { phone: account.phone }) : t('account.title')}</PageTitle>
      <p>
        <Link href={to('/')}>{t('account.back')}</Link>
      </p>
      {loading && !account ? <Loading>{t('account.loading')}</Loading> : null}
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
  const { t, rich } = useMessages();
  return (
    <section aria-labelledby="profile">
      <h2 id="profile">{t('profile.heading')}</h2>
      <dl className="facts">
        <dt>{t('col.status')}</dt>
        <dd>
          <span className={`badge ${account.status.toLowerCase()}`}>{t('enum.accountStatus', { status: account.status })}</span>
          {account.status === 'BLOCKED' ? (
            <>
              {' '}
              {rich('profile.blocked', { at: <When key="at" at={account.blockedAt} />, reason: account.blockedReason ?? '' })}
            </>
          ) : null}
        </dd>
        <dt>{t('col.role')}</dt>
        <dd>{t('enum.role', { role: account.role })}</dd>
        <dt>{t('col.phone')}</dt>
        <dd>{account.phone}</dd>
        <dt>{t('profile.phoneChange')}</dt>
        <dd>
          <PendingPhoneChange account={account} />
        </dd>
        <dt>{t('col.nickname')}</dt>
        <dd>{account.nickname}</dd>
        <dt>{t('profile.id')}</dt>
        <dd>
          <code>{account.id}</code>
        </dd>
        <dt>{t('col.created')}</dt>
        <dd>
          <When at={account.createdAt} />
        </dd>
        <dt>{t('col.lastSignIn')}</dt>
        <dd>
          <When at={account.lastLoginAt} none={t('value.never')} />
        </dd>
        <dt>{t('signIn.password.label')}</dt>
        <dd>{account.hasPassword ? t('profile.password.set') : t('profile.password.none')}</dd>
        <dt>{t('profile.avatar')}</dt>
        <dd>{account.avatarUrl ? <a href={account.avatarUrl}>{t('profile.avatar.open')}</a> : t('value.none')}</dd>
        <dt>{t('profile.language')}</dt>
        <dd>{isLocale(account.locale) ? t(`profile.language.${account.locale}`) : t('profile.language.none')}</dd>
      </dl>
    </section>
  );
}

function Sessions({ account }: { account: Account }) {
  const { t } = useMessages();
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">{t('sessions.heading', { count: account.sessions.length })}</h2>
      {account.sessions.length === 0 ? (
        <p>{t('sessions.none')}</p>
      ) : (
        <table>
          <caption>{t('sessions.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.signedIn')}</th>
              <th scope="col">{t('col.lastUsed')}</th>
              <th scope="col">{t('col.address')}</th>
              <th scope="col">{t('col.device')}</th>
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
  const { t, rich } = useMessages();
  return (
    <section aria-labelledby="factors">
      <h2 id="factors">{t('factors.heading')}</h2>
      <dl className="facts">
        <dt>{t('factors.totp')}</dt>
        <dd>{account.mfaEnabled ? t('factors.totp.on') : t('factors.totp.off')}</dd>
        <dt>{t('factors.passkeys')}</dt>
        <dd>{account.passkeys}</dd>
        <dt>{t('factors.identities')}</dt>
        <dd>
          {account.identities.length === 0 ? (
            t('value.none')
          ) : (
            <ul className="plain">
              {account.identities.map((identity) => (
                <li key={identity.provider}>
                  {rich(identity.email ? 'factors.identity.email' : 'factors.identity', {
                    provider: identity.provider,
                    email: identity.email ?? '',
                    linkedAt: <When key="linked" at={identity.linkedAt} />,
                    lastUsedAt: <When key="used" at={identity.lastUsedAt} none={t('value.never')} />,
                  })}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}
