import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuthMetrics, SignInMetricMethod, SmsOutcome } from '../../modules/auth/auth-metrics.js';
import type { SmsProviderMetrics, SmsProviderOutcome } from '../../modules/auth/sms/template-sms.js';

/**
 * Seconds; from a fast cached answer (a few hundred microseconds) to the bcrypt of a sign-in under
 * load (hundreds of milliseconds) and the slowest uploads.
 */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's Prometheus series, in a registry of its own (never prom-client's global one: the
 * tests run many servers in one process), with Node's process metrics. Every label value comes from a
 * closed set (route templates, error codes, operation names of the schema, ISO regions, limit names):
 * no phone, id, token, address or raw path becomes a label. Domain services see only the few methods
 * they call (AuthMetrics, SmsMetrics, the limiter's `refused`), never prom-client.
 */
export class Metrics implements AuthMetrics, SmsProviderMetrics {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly graphqlOperations: Counter<'operation' | 'type' | 'outcome'>;
  private readonly signIns: Counter<'method' | 'outcome'>;
  private readonly smsSent: Counter<'country' | 'outcome'>;
  private readonly smsProviderAnswers: Counter<'provider' | 'outcome'>;
  private readonly rateLimits: Counter<'limit'>;
  private readonly webhookDeliveries: Counter<'event' | 'outcome'>;
  private readonly liveEvents: Counter<'type'>;
  private readonly liveLatency: Histogram;
  private readonly liveSockets: Gauge;
  private hashQueueDepth: () => number = () => 0;
  private webhookPending?: () => Promise<number>;

  constructor(private readonly onCollectError: (series: string, error: unknown) => void = () => undefined) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requestDuration = new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Time from the request reaching the service to its response finishing, by route template (probes excluded)',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.graphqlOperations = new Counter({
      name: 'graphql_operations_total',
      help: 'GraphQL operations by root field (the client-chosen operation name is not kept), type and outcome (success or the error code)',
      labelNames: ['operation', 'type', 'outcome'],
      registers,
    });
    this.signIns = new Counter({
      name: 'auth_sign_ins_total',
      help: 'Sign-ins by method (code, password, passkey, oidc, refresh, mfa, second-proof) and outcome (success or the error code)',
      labelNames: ['method', 'outcome'],
      registers,
    });
    this.smsSent = new Counter({
      name: 'sms_sent_total',
      help: 'SMS codes handed to the provider, by region of the phone and outcome (sent, failed, uncertain, budget_spent, breaker_open)',
      labelNames: ['country', 'outcome'],
      registers,
    });
    this.smsProviderAnswers = new Counter({
      name: 'sms_provider_answers_total',
      help: 'Sends to a template SMS provider (aliyun, tencent) by provider and outcome (sent, rejected_number, throttled, out_of_balance, misconfigured, error, unreachable, timeout, connection_lost, unknown)',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.rateLimits = new Counter({
      name: 'rate_limited_total',
      help: 'Requests refused by a rate or failure limit, by the name of the limit',
      labelNames: ['limit'],
      registers,
    });
    const self = this;
    new Gauge({
      name: 'password_hash_queue_depth',
      help: 'Password hashes and comparisons waiting for a worker thread',
      registers,
      collect() {
        this.set(self.hashQueueDepth());
      },
    });
    this.webhookDeliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by event type and outcome',
      labelNames: ['event', 'outcome'],
      registers,
    });
    this.liveSockets = new Gauge({
      name: 'live_sockets_open',
      help: 'GraphQL WebSocket connections open on this instance',
      registers,
    });
    this.liveEvents = new Counter({
      name: 'live_events_delivered_total',
      help: 'Live events sent to subscribers, by type (the account event types, AUDIT_ENTRY)',
      labelNames: ['type'],
      registers,
    });
    this.liveLatency = new Histogram({
      name: 'live_event_delivery_seconds',
      help: 'Time from a live event being published (in the transaction of its change) to its delivery to a subscriber on this instance',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5],
      registers,
    });
    new Gauge({
      name: 'webhook_outbox_pending',
      help: 'Webhook deliveries waiting to be sent or retried',
      registers,
      async collect() {
        if (!self.webhookPending) return;
        // A store that does not answer leaves the last value: the rest of the scrape still goes out.
        try {
          this.set(await self.webhookPending());
        } catch (error) {
          self.onCollectError('webhook_outbox_pending', error);
        }
      },
    });
  }

  /** One finished HTTP response; `route` is a template or HttpMetrics' `(unmatched)`, never a raw path. */
  requestFinished(method: string, route: string, status: string, seconds: number): void {
    this.requestDuration.observe({ method, route, status }, seconds);
  }

  graphqlOperation(operation: string, type: string, outcome: string): void {
    this.graphqlOperations.inc({ operation, type, outcome });
  }

  signIn(method: SignInMetricMethod, outcome: string): void {
    this.signIns.inc({ method, outcome });
  }

  sms(country: string, outcome: SmsOutcome): void {
    this.smsSent.inc({ country, outcome });
  }

  /** For the template SMS providers: what one send came to. */
  smsProviderAnswer(provider: string, outcome: SmsProviderOutcome): void {
    this.smsProviderAnswers.inc({ provider, outcome });
  }

  rateLimited(limit: string): void {
    this.rateLimits.inc({ limit });
  }

  /** For the webhook dispatcher: one delivery attempt of an event of type `event` ended with `outcome`. */
  webhookDelivered(event: string, outcome: string): void {
    this.webhookDeliveries.inc({ event, outcome });
  }

  /** One live event sent to one subscriber, `seconds` after its publication. */
  liveEventDelivered(type: string, seconds: number): void {
    this.liveEvents.inc({ type });
    this.liveLatency.observe(seconds);
  }

  liveSocketsOpen(open: number): void {
    this.liveSockets.set(open);
  }

  /** For the webhook outbox: how many deliveries wait, asked at each scrape. */
  setWebhookPendingCollector(count: () => Promise<number>): void {
    this.webhookPending = count;
  }

  /** For the password hasher: how many jobs wait for a worker, read at each scrape. */
  setPasswordHashQueueCollector(depth: () => number): void {
    this.hashQueueDepth = depth;
  }
}
