import { useState } from 'react';
import { AccountPage } from './pages/account';
import { AuditPage } from './pages/audit';
import { SearchPage } from './pages/search';
import { SignInPage } from './pages/sign-in';
import { WebhooksPage } from './pages/webhooks';
import { may } from './permissions';
import { Link, to, usePlace, type Place } from './router';
import type { Operator } from './session';
import { PageTitle } from './ui/status';
import { useSessionObject, useSessionState } from './use-session';

/** The sign-in form until an operator is signed in, then the page the address names. */
export function App() {
  const { operator, notice } = useSessionState();
  return operator ? <Console operator={operator} /> : <SignInPage notice={notice} />;
}

function Console({ operator }: { operator: Operator }) {
  const place = usePlace();
  const session = useSessionObject();
  const [leaving, setLeaving] = useState(false);
  const current = (path: string) => (place.path === path ? ('page' as const) : undefined);
  return (
    <>
      <a className="skip" href="#main">
        Skip to the page
      </a>
      <header className="top">
        <p className="brand">meeting-accounts · Operator console</p>
        <nav aria-label="Console">
          <ul>
            <li>
              <Link href={to('/')} aria-current={current('/')}>
                Accounts
              </Link>
            </li>
            {may.readAudit(operator) ? (
              <li>
                <Link href={to('/audit')} aria-current={current('/audit')}>
                  Audit log
                </Link>
              </li>
            ) : null}
            {may.manageWebhooks(operator) ? (
              <li>
                <Link href={to('/webhooks')} aria-current={current('/webhooks')}>
                  Webhook deliveries
                </Link>
              </li>
            ) : null}
          </ul>
        </nav>
        <p className="who">
          <span>
            {operator.nickname || operator.phone} · {operator.phone} · <strong>{operator.role}</strong>
          </span>
          <button
            type="button"
            disabled={leaving}
            onClick={() => {
              setLeaving(true);
              void session.signOut();
            }}
          >
            {leaving ? 'Signing out…' : 'Sign out'}
          </button>
        </p>
      </header>
      <main id="main" tabIndex={-1}>
        <Page key={place.path} place={place} operator={operator} />
      </main>
    </>
  );
}

function Page({ place, operator }: { place: Place; operator: Operator }) {
  const account = /^\/users\/([^/]+)$/.exec(place.path);
  if (place.path === '/') return <SearchPage params={place.params} />;
  if (account) return <AccountPage id={decodeURIComponent(account[1]!)} params={place.params} />;
  if (place.path === '/audit') return may.readAudit(operator) ? <AuditPage params={place.params} /> : <AdminOnly title="Audit log" />;
  if (place.path === '/webhooks') return may.manageWebhooks(operator) ? <WebhooksPage params={place.params} /> : <AdminOnly title="Webhook deliveries" />;
  return (
    <>
      <PageTitle title="Not found">No such page</PageTitle>
      <p>
        The console has no page at this address. <Link href={to('/')}>Find an account</Link>.
      </p>
    </>
  );
}

function AdminOnly({ title }: { title: string }) {
  return (
    <>
      <PageTitle title={title}>{title}</PageTitle>
      <p>This page is for ADMIN operators.</p>
    </>
  );
}
