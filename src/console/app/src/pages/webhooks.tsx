import { useMutation, useQuery } from '@apollo/client/react';
import { useEffect, useState, type FormEvent } from 'react';
import {
  ConsoleRetryWebhookDeliveryDocument,
  ConsoleWebhookDeliveriesDocument,
  type ConsoleWebhookDeliveryFragment,
  type WebhookDeliveryStatus,
} from '../../generated/graphql';
import { navigate, to } from '../router';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { When } from '../ui/format';
import { Pager } from '../ui/pager';
import { ErrorNotice, Loading, PageTitle } from '../ui/status';

const PAGE_SIZE = 50;
const STATUSES: WebhookDeliveryStatus[] = ['PENDING', 'DELIVERED', 'DEAD'];

/** Webhook deliveries (ADMIN), newest first, of one status when asked (`?status=DEAD`), each retried on demand. */
export function WebhooksPage({ params }: { params: URLSearchParams }) {
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
      <PageTitle title="Webhook deliveries">Webhook deliveries</PageTitle>
      <form onSubmit={submit} className="filters" aria-label="Deliveries to show">
        <div className="field">
          <label htmlFor="delivery-status">Status</label>
          <select id="delivery-status" value={chosen} onChange={(e) => choose(e.target.value)}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary">
          Show
        </button>
      </form>
      {loading ? <Loading>Loading the deliveries…</Loading> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {list && deliveries.length === 0 ? <p>No delivery{status ? ` is ${status}` : ''}.</p> : null}
      {deliveries.length > 0 ? (
        <table>
          <caption>{status ? `${status} deliveries` : 'Deliveries'}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Receiver</th>
              <th scope="col">Status</th>
              <th scope="col">Tries</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              <th scope="col">Next try or delivered</th>
              <th scope="col">Retry</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td>{delivery.eventType}</td>
                <td className="agent">{delivery.url}</td>
                <td>
                  <span className={`badge ${delivery.status.toLowerCase()}`}>{delivery.status}</span>
                </td>
                <td>{delivery.attempts}</td>
                <td>{lastAnswer(delivery)}</td>
                <td>
                  <When at={delivery.createdAt} />
                </td>
                <td>{delivery.status === 'PENDING' ? <When at={delivery.nextAttemptAt} /> : delivery.status === 'DELIVERED' ? <When at={delivery.deliveredAt} none="delivered" /> : '—'}</td>
                <td>
                  <button type="button" onClick={() => setRetrying(delivery)}>
                    Retry<span className="visually-hidden"> the {delivery.eventType} delivery to {delivery.url}</span>…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager
        label="Pages of deliveries"
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
  const [retry] = useMutation(ConsoleRetryWebhookDeliveryDocument);
  return (
    <ConfirmDialog
      title="Retry a webhook delivery"
      confirm="Send it again now"
      busy="Retrying…"
      onClose={onClose}
      onConfirm={async () => {
        await retry({ variables: { id: delivery.id } });
      }}
    >
      <p>
        {delivery.eventType} to {delivery.url}, {delivery.status} after {delivery.attempts} tr{delivery.attempts === 1 ? 'y' : 'ies'}: it is sent once more, due now, with the
        same webhook-id.
      </p>
    </ConfirmDialog>
  );
}
