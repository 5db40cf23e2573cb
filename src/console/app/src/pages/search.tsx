import { useQuery } from '@apollo/client/react';
import { useEffect, useState, type FormEvent, type MouseEvent } from 'react';
import { ConsoleAccountsDocument, type AccountStatus, type Role } from '../../generated/graphql';
import { useMessages } from '../i18n/messages';
import { Link, navigate, pageNotice, to } from '../router';
import { When } from '../ui/format';
import { Pager } from '../ui/pager';
import { ErrorNotice, Loading, PageTitle } from '../ui/status';

const PAGE_SIZE = 25;
const STATUSES: AccountStatus[] = ['ACTIVE', 'BLOCKED'];
const ROLES: Role[] = ['USER', 'SUPPORT', 'ADMIN'];

/**
 * A click anywhere in a result's row opens its account, as its phone link does; the link stays the
 * row's one control (for the keyboard and screen readers). A click on the link itself, with a
 * modifier key or another button, or that ends a selection of the row's text, is left alone.
 */
function openRow(event: MouseEvent<HTMLTableRowElement>, href: string) {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (event.target instanceof Element && event.target.closest('a, button, input, select, textarea')) return;
  if (window.getSelection()?.toString()) return;
  navigate(href);
}

const pick = <T extends string>(value: string | null, allowed: T[]): T | undefined => allowed.find((v) => v === value);

/**
 * Accounts: one box (a phone in any form or its first digits, a nickname, an id), a status and a
 * role, all in the address (`/console?q=138&status=BLOCKED`), newest first, paged by the API's cursor.
 */
export function SearchPage({ params }: { params: URLSearchParams }) {
  const { t } = useMessages();
  const query = params.get('q') ?? '';
  const status = pick(params.get('status'), STATUSES);
  const role = pick(params.get('role'), ROLES);
  const after = params.get('after') ?? undefined;
  const notice = pageNotice();
  const [form, setForm] = useState({ q: query, status: status ?? '', role: role ?? '' });
  // Back and Forward change the address: the form shows the search on the page.
  useEffect(() => setForm({ q: query, status: status ?? '', role: role ?? '' }), [query, status, role]);
  const { data, loading, error } = useQuery(ConsoleAccountsDocument, {
    variables: { query: query.trim() || undefined, status, role, first: PAGE_SIZE, after },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(to('/', { q: form.q.trim(), status: form.status, role: form.role }));
  };
  const filters = { q: query, status, role };
  const accounts = data?.adminUsers.edges.map((edge) => edge.node) ?? [];
  const next = data?.adminUsers.pageInfo.hasNextPage ? data.adminUsers.pageInfo.endCursor : undefined;

  return (
    <>
      <PageTitle title={t('search.title')}>{t('search.title')}</PageTitle>
      {notice ? (
        <p role="status" className="notice">
          {t(notice.key, notice.values)}
        </p>
      ) : null}
      <form role="search" aria-label={t('search.title')} onSubmit={submit} className="filters">
        <div className="field wide">
          <label htmlFor="q">{t('search.query')}</label>
          <input id="q" type="search" value={form.q} maxLength={100} onChange={(e) => setForm({ ...form, q: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="status">{t('col.status')}</label>
          <select id="status" value={form.status} onChange={(e) => setForm({ ...form, status: e.target.value })}>
            <option value="">{t('search.any')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t('enum.accountStatus', { status: s })}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="role">{t('col.role')}</label>
          <select id="role" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
            <option value="">{t('search.any')}</option>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t('enum.role', { role: r })}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary">
          {t('search.submit')}
        </button>
      </form>
      {loading ? <Loading>{t('search.loading')}</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {data && accounts.length === 0 ? <p role="status">{t('search.none')}</p> : null}
      {accounts.length > 0 ? (
        <table>
          <caption>{query ? t('search.caption.matching', { query }) : t('search.caption.all')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.phone')}</th>
              <th scope="col">{t('col.nickname')}</th>
              <th scope="col">{t('col.role')}</th>
              <th scope="col">{t('col.status')}</th>
              <th scope="col">{t('col.sessions')}</th>
              <th scope="col">{t('col.created')}</th>
              <th scope="col">{t('col.lastSignIn')}</th>
            </tr>
          </thead>
          <tbody>
            {accounts.map((account) => (
              <tr key={account.id} className="opens" onClick={(event) => openRow(event, to(`/users/${account.id}`))}>
                <th scope="row">
                  <Link href={to(`/users/${account.id}`)}>{account.phone}</Link>
                </th>
                <td>{account.nickname}</td>
                <td>{t('enum.role', { role: account.role })}</td>
                <td>
                  <span className={`badge ${account.status.toLowerCase()}`}>{t('enum.accountStatus', { status: account.status })}</span>
                </td>
                <td>{account.activeSessions}</td>
                <td>
                  <When at={account.createdAt} />
                </td>
                <td>
                  <When at={account.lastLoginAt} none={t('value.never')} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager label={t('search.pager')} first={after ? to('/', filters) : undefined} next={next ? to('/', { ...filters, after: next }) : undefined} />
    </>
  );
}
