import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import { bigintCursor, toPage, type Page, type Paged } from '../../shared/pagination.js';
import { redactUrl } from '../../shared/url.js';
import type { Uuid } from '../../shared/ids.js';
import type { WebhookDeliveryStatus } from './webhook-delivery-status.js';
import { userOf, type WebhookEvent } from './webhook-event.js';
import type { DeliveryRow, TryOutcome, WebhookRepository } from './webhook.repository.js';

export const webhookCursor = bigintCursor('webhook');

/** A delivery as operators see it; the URL with its credentials redacted. */
export interface WebhookDeliveryView {
  id: string;
  eventType: string;
  url: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A claimed delivery, for the dispatcher to send. */
export interface ClaimedDelivery {
  id: string;
  eventType: string;
  url: string;
  /** Tries made before this one. */
  attempts: number;
  createdAt: Date;
  data: unknown;
}

/**
 * The webhook outbox. Other modules hand it an event inside the transaction of the change it tells
 * of (`enqueue`), so that neither commits without the other; the dispatcher claims and sends the
 * rows afterwards, off every request's path. With no URL configured nothing is written.
 */
export class WebhookService {
  private enqueued = false;

  constructor(
    private readonly deliveries: WebhookRepository,
    private readonly urls: readonly string[],
    private readonly retentionDays: number,
  ) {}

  get enabled(): boolean {
    return this.urls.length > 0;
  }

  /** One outbox row per URL, in the caller's transaction (the caller must be in one). */
  async enqueue(event: WebhookEvent): Promise<void> {
    if (!this.enabled) return;
    const userKey = userOf(event);
    await this.deliveries.insert(this.urls.map((url) => ({ id: randomUUID(), eventType: event.type, userKey, payload: event.data, url })));
    this.enqueued = true;
  }

  /** Whether something was enqueued since the last call: the dispatcher's cue to look after a commit. */
  takeEnqueued(): boolean {
    const was = this.enqueued;
    this.enqueued = false;
    return was;
  }

  /** Due deliveries, leased for `leaseMs`: none to a URL of `skip`; only to `only` when given. */
  async claim(limit: number, leaseMs: number, skip: readonly string[] = [], only?: string): Promise<ClaimedDelivery[]> {
    return (await this.deliveries.claim(limit, leaseMs, skip, only)).map((row) => ({
      id: row.id,
      eventType: row.eventType,
      url: row.url,
      attempts: row.attempts,
      createdAt: new Date(row.createdAt),
      data: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
    }));
  }

  record(id: string, outcome: TryOutcome): Promise<void> {
    return this.deliveries.record(id, outcome);
  }

  release(ids: string[]): Promise<void> {
    return this.deliveries.release(ids);
  }

  /** Deliveries not yet delivered nor DEAD (for a gauge). */
  pendingCount(): Promise<number> {
    return this.deliveries.pendingCount();
  }

  /** DELIVERED and DEAD deliveries older than the retention period (the janitor's); PENDING ones are kept. */
  async sweepExpired(): Promise<Record<string, number>> {
    return { webhookDeliveries: await this.deliveries.deleteFinishedBefore(new Date(Date.now() - this.retentionDays * 86400_000)) };
  }

  /** Newest first, a page at a time, of one status when given. */
  async list(status: WebhookDeliveryStatus | undefined, page: Page<string>): Promise<Paged<WebhookDeliveryView>> {
    const rows = await this.deliveries.list(status, page.after, page.limit + 1);
    return toPage(rows, page.limit, (row) => webhookCursor.encode(row.seq), toView);
  }

  /** Makes a delivery PENDING and due now (one more try); NOT_FOUND without it. */
  async retry(id: Uuid): Promise<WebhookDeliveryView> {
    const row = await this.deliveries.retry(id);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, msg('webhook.deliveryNotFound'));
    return toView(row);
  }
}

function toView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventType: row.eventType,
    url: redactUrl(row.url, { username: true }),
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    nextAttemptAt: new Date(row.nextAttemptAt),
    createdAt: new Date(row.createdAt),
    deliveredAt: row.deliveredAt === null ? null : new Date(row.deliveredAt),
  };
}
