import { useMutation, useQuery } from '@apollo/client/react';
import { useEffect, useState, type FormEvent } from 'react';
import {
  ConsoleRetryWebhookDeliveryDocument,
  ConsoleWebhookDeliveriesDocument,
  type ConsoleWebhookDeliveryFragment,
  type WebhookDeliveryStatus,
} from '../../generated/graphql';
import { useMessages } from '../i18n/messages';
import { navigate, to } from '../router';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { When } from '../ui/format';
import { Pager } from '../ui/pager';
import { ErrorNotice, Loading, PageTitle } from '../ui/status';

const PAGE_SIZE = 50;
const STATUSES: WebhookDeliveryStatus[] = ['PENDING', 'DELIVERED', 'DEAD'];

/** Webhook deliveries (ADMIN), newest first, of one status when asked (`?status=DEAD`), each retried on demand. */
export function WebhooksPage({ params }: { params: URLSearchParams }) {
  const { t, rich } = useMessages();
  const status = STATUSES.find((s) => s === params.get('status'));
  const after = params.get('after') ?? undefined;
  const [chosen, choose] = useState<string>(status ?? '');
  useEffect(() => choose(status ?? ''), [status]);
  const [retrying, setRetrying] = useState<ConsoleWebhookDeliveryFragment>();
  const { data, loading, error } = useQuery(ConsoleWebhookDeliveriesDocument, { variables: { status, first: PAGE_SIZE, after } });
  const list = data?.adminWebhookDeliveries;
  const deliveries = list?.edges.map((edge) => edge.node) ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(to('/webhooks', { status: chosen }));
  };
  return (
    <>
      <PageTitle title={t('webhooks.title')}>{t('webhooks.title')}</PageTitle>
      <form onSubmit={submit} className="filters" aria-label={t('webhooks.form')}>
        <div className="field">
          <label htmlFor="delivery-status">{t('col.status')}</label>
          <select id="delivery-status" value={chosen} onChange={(e) => choose(e.target.value)}>
            <option value="">{t('search.any')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t('enum.deliveryStatus', { status: s })}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary">
          {t('webhooks.show')}
        </button>
      </form>
      {loading ? <Loading>{t('webhooks.loading')}</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {list && deliveries.length === 0 ? <p>{status ? t('webhooks.none.status', { status: t('enum.deliveryStatus', { status }) }) : t('webhooks.none')}</p> : null}
      {deliveries.length > 0 ? (
        <table>
          <caption>{status ? t('webhooks.caption.status', { status: t('enum.deliveryStatus', { status }) }) : t('webhooks.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.event')}</th>
              <th scope="col">{t('col.receiver')}</th>
              <th scope="col">{t('col.status')}</th>
              <th scope="col">{t('col.tries')}</th>
              <th scope="col">{t('col.lastAnswer')}</th>
              <th scope="col">{t('col.created')}</th>
              <th scope="col">{t('col.next')}</th>
              <th scope="col">{t('col.retry')}</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td>{delivery.eventType}</td>
                <td className="agent">{delivery.url}</td>
                <td>
                  <span className={`badge ${delivery.status.toLowerCase()}`}>{t('enum.deliveryStatus', { status: delivery.status })}</span>
                </td>
                <td>{delivery.attempts}</td>
                <td>{lastAnswer(delivery)}</td>
                <td>
                  <When at={delivery.createdAt} />
                </td>
                <td>{delivery.status === 'PENDING' ? <When at={delivery.nextAttemptAt} /> : delivery.status === 'DELIVERED' ? <When at={delivery.deliveredAt} none={t('webhooks.delivered')} /> : '—'}</td>
                <td>
                  <button type="button" onClick={() => setRetrying(delivery)}>
                    {rich('webhooks.retry', {
                      event: delivery.eventType,
                      url: delivery.url,
                      hidden: (chunks) => (
                        <span key="hidden" className="visually-hidden">
                          {chunks}
                        </span>
                      ),
                    })}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager
        label={t('webhooks.pager')}
        first={after ? to('/webhooks', { status }) : undefined}
        next={list?.pageInfo.hasNextPage ? to('/webhooks', { status, after: list.pageInfo.endCursor }) : undefined}
      />
      {retrying ? <RetryDialog delivery={retrying} onClose={() => setRetrying(undefined)} /> : null}
    </>
  );
}

/** `HTTP 503`, the error when it says more (`HTTP 502: connect ECONNREFUSED`), or a dash before any answer. */
function lastAnswer({ lastStatus, lastError }: ConsoleWebhookDeliveryFragment): string {
  const status = lastStatus ? `HTTP ${lastStatus}` : '';
  const error = lastError && lastError !== status ? lastError : '';
  return [status, error].filter(Boolean).join(': ') || '—';
}

function RetryDialog({ delivery, onClose }: { delivery: ConsoleWebhookDeliveryFragment; onClose: () => void }) {
  const { t } = useMessages();
  const [retry] = useMutation(ConsoleRetryWebhookDeliveryDocument);
  return (
    <ConfirmDialog
      title={t('retry.title')}
      confirm={t('retry.confirm')}
      busy={t('retry.busy')}
      onClose={onClose}
      onConfirm={async () => {
        await retry({ variables: { id: delivery.id } });
      }}
    >
      <p>
        {t('retry.text', { event: delivery.eventType, url: delivery.url, status: t('enum.deliveryStatus', { status: delivery.status }), attempts: delivery.attempts })}
      </p>
    </ConfirmDialog>
  );
}
