import { useState } from 'react';
import { useMessages } from './i18n/messages';
import { AccountPage } from './pages/account';
import { AuditPage } from './pages/audit';
import { SearchPage } from './pages/search';
import { SignInPage } from './pages/sign-in';
import { WebhooksPage } from './pages/webhooks';
import { may } from './permissions';
import { Link, to, usePlace, type Place } from './router';
import type { Operator } from './session';
import { LanguageSwitch } from './ui/language-switch';
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
  const { t } = useMessages();
  const [leaving, setLeaving] = useState(false);
  const current = (path: string) => (place.path === path ? ('page' as const) : undefined);
  return (
    <>
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="top">
        <p className="brand">{t('app.brand')}</p>
        <nav aria-label={t('app.nav')}>
          <ul>
            <li>
              <Link href={to('/')} aria-current={current('/')}>
                {t('app.nav.accounts')}
              </Link>
            </li>
            {may.readAudit(operator) ? (
              <li>
                <Link href={to('/audit')} aria-current={current('/audit')}>
                  {t('app.nav.audit')}
                </Link>
              </li>
            ) : null}
            {may.manageWebhooks(operator) ? (
              <li>
                <Link href={to('/webhooks')} aria-current={current('/webhooks')}>
                  {t('app.nav.webhooks')}
                </Link>
              </li>
            ) : null}
          </ul>
        </nav>
        <p className="who">
          <span>
            {operator.nickname || operator.phone} · {operator.phone} · <strong>{t('enum.role', { role: operator.role })}</strong>
          </span>
          <button
            type="button"
            disabled={leaving}
            onClick={() => {
              setLeaving(true);
              void session.signOut();
            }}
          >
            {leaving ? t('app.signingOut') : t('app.signOut')}
          </button>
        </p>
        <LanguageSwitch />
      </header>
      <main id="main" tabIndex={-1}>
        <Page key={place.path} place={place} operator={operator} />
      </main>
    </>
  );
}

function Page({ place, operator }: { place: Place; operator: Operator }) {
  const { t, rich } = useMessages();
  const account = /^\/users\/([^/]+)$/.exec(place.path);
  if (place.path === '/') return <SearchPage params={place.params} />;
  if (account) return <AccountPage id={decodeURIComponent(account[1]!)} params={place.params} />;
  if (place.path === '/audit') return may.readAudit(operator) ? <AuditPage params={place.params} /> : <AdminOnly title={t('app.nav.audit')} />;
  if (place.path === '/webhooks') return may.manageWebhooks(operator) ? <WebhooksPage params={place.params} /> : <AdminOnly title={t('app.nav.webhooks')} />;
  return (
    <>
      <PageTitle title={t('app.notFound.title')}>{t('app.notFound.heading')}</PageTitle>
      <p>
        {rich('app.notFound.text', {
          link: (
            <Link key="link" href={to('/')}>
              {t('app.notFound.link')}
            </Link>
          ),
        })}
      </p>
    </>
  );
}

function AdminOnly({ title }: { title: string }) {
  const { t } = useMessages();
  return (
    <>
      <PageTitle title={title}>{title}</PageTitle>
      <p>{t('app.adminOnly')}</p>
    </>
  );
}
