import { Webhook } from 'standardwebhooks';
import type { Logger } from '../../shared/logger.js';
import { redactUserinfo } from '../../shared/url.js';
import { webhookBody } from './webhook-event.js';
import type { TryOutcome } from './webhook.repository.js';
import type { ClaimedDelivery, WebhookService } from './webhook.service.js';

/** How a try ended, for a metric: delivered, failed (to be retried), or failed for the last time. */
type DeliveryOutcome = 'delivered' | 'failed' | 'dead';

export interface DispatcherOptions {
  /** `whsec_` + base64: the Standard Webhooks signing secret. */
  secret: string;
  timeoutMs: number;
  /** Waits before the 2nd, 3rd, ... try; past the last, DEAD. */
  retryScheduleMs: readonly number[];
  logger: Logger;
  /** Tries in flight at once, each for a different user (one user's events go one at a time). */
  concurrency?: number;
  /** How often an idle dispatcher looks for due rows (another instance's, a retry's). */
  pollMs?: number;
  /** Called after every try; must not throw (what it throws is ignored). */
  onDelivery?: (eventType: string, outcome: DeliveryOutcome) => void;
}

/** Time a claimed row stays leased beyond its try's timeout: the claim-to-send delay and the outcome's update. */
const LEASE_MARGIN_MS = 10_000;

/**
 * Sends the outbox's rows, off every request's path. A small loop claims due rows (a short
 * statement with SKIP LOCKED and a lease, so that instances never send one row at once and a crashed
 * instance's rows come back after the lease), posts each outside any transaction, signed by the
 * Standard Webhooks library, and records the outcome: DELIVERED on 2xx, else one more attempt,
 * due again after the schedule's next wait, or DEAD after the last. At least once: a row whose
 * outcome was not recorded (a crash) is sent again, with the same `webhook-id`.
 */
export class WebhookDispatcher {
  private readonly signer: Webhook;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly sending = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  /** Tries cut short by stop(): their leases are given back. */
  private readonly interrupted: string[] = [];
  /** Whether the last claim took fewer rows than it asked for: then a finished try may have made the next one due. */
  private drained = true;
  private wake: (() => void) | undefined;
  /** A wake-up that came while the loop was not paused (claiming): the next pause is skipped. */
  private woken = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly service: WebhookService,
    private readonly options: DispatcherOptions,
  ) {
    this.signer = new Webhook(options.secret);
    this.concurrency = options.concurrency ?? 64;
    this.pollMs = options.pollMs ?? 250;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Looks for due rows now (this instance enqueued some and committed). */
  nudge(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  /** Stops claiming, cuts the tries in flight short and gives their rows back; resolves when done. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.nudge();
    await this.loop;
    await Promise.all(this.sending);
    await this.service.release(this.interrupted).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not release interrupted webhook deliveries; they are sent again after their lease');
    });
  }

  private async run(): Promise<void> {
    const lowWater = Math.max(1, Math.floor(this.concurrency / 2));
    const leaseMs = this.options.timeoutMs + LEASE_MARGIN_MS;
    while (!this.stopping.signal.aborted) {
      const free = this.concurrency - this.sending.size;
      if (free >= lowWater || this.drained) {
        try {
          const claimed = free > 0 ? await this.service.claim(free, leaseMs) : [];
          this.drained = claimed.length < free;
          for (const delivery of claimed) this.track(delivery);
          // More may be due: claim again as soon as slots are free.
          if (!this.drained && this.sending.size < this.concurrency) continue;
        } catch (error) {
          this.options.logger.warn({ err: error }, 'claiming webhook deliveries failed; will retry');
        }
      }
      await this.pause();
    }
  }

  /** Until the poll interval passes or something wakes the loop. */
  private pause(): Promise<void> {
    if (this.stopping.signal.aborted || this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  private track(delivery: ClaimedDelivery): void {
    const sent = this.send(delivery)
      .catch((error: unknown) => this.options.logger.warn({ err: error, webhookId: delivery.id }, 'a webhook try failed unexpectedly; it is made again after its lease'))
      .finally(() => {
        this.sending.delete(sent);
        if (this.drained || this.sending.size <= this.concurrency / 2) this.nudge();
      });
    this.sending.add(sent);
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    const { logger, timeoutMs, retryScheduleMs } = this.options;
    const outcome = await this.post(delivery);
    if (outcome === 'interrupted') {
      this.interrupted.push(delivery.id);
      return;
    }
    const tries = delivery.attempts + 1;
    const recorded: TryOutcome = outcome.ok
      ? { delivered: true, status: outcome.status! }
      : { delivered: false, status: outcome.status, error: outcome.error, retryInMs: retryScheduleMs[delivery.attempts] };
    try {
      await this.service.record(delivery.id, recorded);
    } catch (error) {
      logger.warn({ err: error, webhookId: delivery.id }, 'could not record a webhook try; it is made again after its lease');
      return;
    }
    if (!recorded.delivered) {
      const dead = recorded.retryInMs === undefined;
      logger.warn(
        { webhookId: delivery.id, eventType: delivery.eventType, url: redactUserinfo(delivery.url), attempt: tries, status: recorded.status, error: recorded.error, retryInMs: recorded.retryInMs, timeoutMs },
        dead ? 'webhook delivery failed for the last time: DEAD' : 'webhook delivery failed; will retry',
      );
    }
    try {
      this.options.onDelivery?.(delivery.eventType, recorded.delivered ? 'delivered' : recorded.retryInMs === undefined ? 'dead' : 'failed');
    } catch {
      // a metric's failure is not the delivery's
    }
  }

  /** One signed POST; its answer, or why there was none. */
  private async post(delivery: ClaimedDelivery): Promise<{ ok: boolean; status: number | null; error: string } | 'interrupted'> {
    const body = webhookBody(delivery.eventType, delivery.createdAt, delivery.data);
    const now = new Date();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': this.signer.sign(delivery.id, now, body),
    };
    // fetch refuses a URL with credentials: they go as Basic authentication, as a browser would send them.
    const url = new URL(delivery.url);
    if (url.username || url.password) {
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), this.stopping.signal]),
      });
      await response.body?.cancel().catch(() => undefined);
      return { ok: response.ok, status: response.status, error: response.ok ? '' : `HTTP ${response.status}` };
    } catch (error) {
      if (this.stopping.signal.aborted) return 'interrupted';
      return { ok: false, status: null, error: describe(error, this.options.timeoutMs) };
    }
  }
}

/** Why a try got no answer, in words for the delivery's lastError. */
function describe(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}
