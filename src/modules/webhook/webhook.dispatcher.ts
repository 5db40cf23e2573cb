import { Webhook } from 'standardwebhooks';
import type { Logger } from '../../shared/logger.js';
import { redactUrl } from '../../shared/url.js';
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
 * Failed tries in a row after which a receiver is held back: its deliveries then wait, and one of
 * them is tried as a probe after HELD_FIRST_PROBE_MS, then after twice as long, up to HELD_MAX_PROBE_MS.
 */
const HELD_AFTER_FAILURES = 20;
const HELD_FIRST_PROBE_MS = 500;
const HELD_MAX_PROBE_MS = 30_000;

/** A receiver's failed tries in a row, and when it is held back, when its next probe may go. */
interface ReceiverHealth {
  failures: number;
  probeInMs: number;
  nextProbeAt: number;
  probing: boolean;
}

/**
 * Sends the outbox's rows, off every request's path. A small loop claims due rows (a short
 * statement with SKIP LOCKED and a lease, so that instances never send one row at once and a crashed
 * instance's rows come back after the lease), posts each outside any transaction, signed by the
 * Standard Webhooks library, and records the outcome: DELIVERED on 2xx, else one more attempt,
 * due again after the schedule's next wait, or DEAD after the last. At least once: a row whose
 * outcome was not recorded (a crash) is sent again, with the same `webhook-id`.
 *
 * A receiver that failed HELD_AFTER_FAILURES tries in a row (down, refusing, answering 5xx) is held
 * back: its deliveries are claimed no more, except one at a time as a probe, at growing intervals;
 * the first probe that succeeds lets them all go again. Without this, a dead receiver with thousands
 * of deliveries waiting would have each of them tried on its schedule, a failed request, an update
 * and a log line apiece, on the CPU of the instance's requests. A held delivery is tried later than
 * its schedule says, and only the probes count tries towards DEAD.
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
  /** The receivers whose last tries failed, by URL; a receiver leaves it with its first success. */
  private readonly failing = new Map<string, ReceiverHealth>();

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
          const held = this.heldReceivers();
          const claimed = free > 0 ? await this.service.claim(free, leaseMs, held) : [];
          this.drained = claimed.length < free;
          for (const delivery of claimed) this.track(delivery);
          await this.probe(held, leaseMs);
          // More may be due: claim again as soon as slots are free.
          if (!this.drained && this.sending.size < this.concurrency) continue;
        } catch (error) {
          this.options.logger.warn({ err: error }, 'claiming webhook deliveries failed; will retry');
        }
      }
      await this.pause();
    }
  }

  /** The URLs held back: failed HELD_AFTER_FAILURES tries in a row and not answered since. */
  private heldReceivers(): string[] {
    const held: string[] = [];
    for (const [url, health] of this.failing) if (health.failures >= HELD_AFTER_FAILURES) held.push(url);
    return held;
  }

  /** Claims one delivery of each held receiver whose next probe is due and has none in flight. */
  private async probe(held: readonly string[], leaseMs: number): Promise<void> {
    const now = Date.now();
    for (const url of held) {
      const health = this.failing.get(url)!;
      if (health.probing || now < health.nextProbeAt || this.stopping.signal.aborted) continue;
      const [delivery] = await this.service.claim(1, leaseMs, [], url);
      if (!delivery) continue;
      health.probing = true;
      this.track(delivery, health);
    }
  }

  /** Keeps count of a receiver's failures in a row; holds it back at HELD_AFTER_FAILURES, lets it go on a success. */
  private tried(url: string, delivered: boolean): void {
    const health = this.failing.get(url);
    if (delivered) {
      if (health && health.failures >= HELD_AFTER_FAILURES) {
        this.options.logger.info({ url: redactUrl(url, { username: true }) }, 'webhook receiver answers again: its deliveries are sent');
      }
      this.failing.delete(url);
      return;
    }
    if (!health) {
      this.failing.set(url, { failures: 1, probeInMs: HELD_FIRST_PROBE_MS, nextProbeAt: 0, probing: false });
      return;
    }
    health.failures++;
    if (health.failures < HELD_AFTER_FAILURES) return;
    if (health.failures === HELD_AFTER_FAILURES) {
      this.options.logger.warn(
        { url: redactUrl(url, { username: true }), failures: health.failures },
        'webhook receiver keeps failing: its deliveries are held back, one probe at a time, until it answers',
      );
    } else if (health.probing) {
      health.probeInMs = Math.min(health.probeInMs * 2, HELD_MAX_PROBE_MS);
    }
    health.probing = false;
    health.nextProbeAt = Date.now() + health.probeInMs;
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

  /** `probe`: the health of the held receiver this try probes, whose next probe waits for its end. */
  private track(delivery: ClaimedDelivery, probe?: ReceiverHealth): void {
    const sent = this.send(delivery)
      .catch((error: unknown) => this.options.logger.warn({ err: error, webhookId: delivery.id }, 'a webhook try failed unexpectedly; it is made again after its lease'))
      .finally(() => {
        // A probe that ended without an outcome (the instance stopping, an unexpected failure): the next one is due later.
        if (probe?.probing) {
          probe.probing = false;
          probe.nextProbeAt = Date.now() + probe.probeInMs;
        }
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
    this.tried(delivery.url, outcome.ok);
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
        { webhookId: delivery.id, eventType: delivery.eventType, url: redactUrl(delivery.url, { username: true }), attempt: tries, status: recorded.status, error: recorded.error, retryInMs: recorded.retryInMs, timeoutMs },
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
