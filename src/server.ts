import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApolloServer } from '@apollo/server';
import type { Express } from 'express';
import { createApp } from './app.js';
import type { GraphQLContext } from './graphql/context.js';
import type { Config } from './config/config.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded.js';
import { startJanitor, startJobs } from './db/janitor.js';
import { openOrm, type MikroORM } from './db/orm.js';
import { Database } from './db/database.js';
import { assertMigratable, checkSessions, databasePlan, describePlan, migrateAsPlanned, PoolModeError } from './db/plan.js';
import type { SmsProvider } from './modules/auth/sms/index.js';
import { WebhookDispatcher, type DispatcherOptions } from './modules/webhook/webhook.dispatcher.js';
import { createServices, type Services } from './services.js';
import { liveTransport } from './modules/live/live-settings.js';
import { liveListener } from './modules/live/live-transport.js';
import type { Logger } from './shared/logger.js';
import { startMetricsListener, type MetricsListener } from './shared/metrics/metrics-listener.js';
import type { Metrics } from './shared/metrics/metrics.js';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** The Express application, for introspection by tests (the route list). */
  express: Express;
  /** Apollo Server, for tests that tell which requests it answered (see KnownQueries). */
  apollo: ApolloServer<GraphQLContext>;
  /** The service's database access, for operational scripts and tests. */
  db: Database;
  databaseMode: string;
  /** Where Prometheus scrapes (`GET /metrics` on METRICS_PORT); undefined when METRICS_PORT=off. */
  metricsUrl?: string;
  /** The service's Prometheus series, when METRICS_PORT is on (the webhook outbox reports there). */
  metrics?: Metrics;
  /** How live events travel between instances (postgres, redis, process). */
  liveTransport: string;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  sms?: SmsProvider;
  /** Told of every webhook try (for a metric): its event type and how it ended. */
  onWebhookDelivery?: DispatcherOptions['onDelivery'];
  /** False: every request through Express, POST /graphql included (see withGraphqlFastPath). */
  fastPaths?: boolean;
}

/** Start-up: database (embedded or DATABASE_URL) -> migrations -> services -> app -> listen. */
export async function startServer(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  let embedded: EmbeddedDatabase | undefined;
  let orm: MikroORM | undefined;
  let metricsListener: MetricsListener | undefined;
  try {
    if (!config.database.url) embedded = await startEmbeddedDatabase(config.dataDir);
    const plan = databasePlan(config, embedded?.url);
    if (config.migrateOnStart) assertMigratable(plan);
    // Session mode behind a transaction-mode pooler would fail some requests and not others: it is
    // refused here, saying what to set. A database that cannot be reached yet is not a refusal:
    // without migrations to run the service starts, answers 503 and reconnects by itself.
    await checkSessions(plan, { service: true, migrations: config.migrateOnStart }).catch((error: unknown) => {
      if (error instanceof PoolModeError || config.migrateOnStart) throw error;
      logger.warn({ err: error }, 'the database connections could not be checked at start');
    });
    orm = await openOrm({ url: plan.url, poolSize: plan.poolSize, limits: plan.limits });
    if (config.migrateOnStart) {
      const applied = await migrateAsPlanned(plan, orm);
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    }
    const db = await Database.open(orm, { prepare: plan.namedStatements });
    const metrics = config.metricsPort === undefined ? undefined : await newMetrics((series, error) => logger.warn({ err: error, series }, 'a metric could not be collected'));
    const live = liveTransport(config, plan, plan.connections === 'session' && !config.live.transport ? await db.serverVersion().catch(() => '') : '');
    if (live.warning) logger.warn(live.warning);
    const services = await createServices(config, db, logger, { sms: options.sms, metrics, live: live.settings });
    let stopping = false;
    const ready = async () => !stopping && (await db.ping()) && (await services.storesReady());
    const { express, listener, apollo, clientError, sockets } = await createApp({ config, services, logger, ready, metrics, fastPaths: options.fastPaths });
    // Live events from every instance (this one's included) to this instance's subscribers; when the
    // listener was away, every socket re-checks its session.
    const liveEvents = liveListener(live.settings, { message: (m) => services.live.dispatch(m), resumed: () => void services.live.recheckAll() }, logger);
    await liveEvents.start();
    const stopSweep = services.live.sweepEvery(LIVE_SWEEP_MS);
    const stopJanitor = startJanitor(services.sweepers, logger);
    const stopJobs = startJobs(services.jobs, logger);
    const dispatcher = services.webhooks.enabled
      ? new WebhookDispatcher(services.webhooks, { ...config.webhooks, logger, onDelivery: deliveryListener(metrics, options.onWebhookDelivery) })
      : undefined;
    if (dispatcher) metrics?.setWebhookPendingCollector(() => services.webhooks.pendingCount());
    // A commit that enqueued an event: look at the outbox now rather than at the next poll.
    if (dispatcher) db.onCommit(() => services.webhooks.takeEnqueued() && dispatcher.nudge());

    const { requestTimeoutMs, headersTimeoutMs } = config.http;
    const server = createServer(
      { requestTimeout: requestTimeoutMs, headersTimeout: headersTimeoutMs, connectionsCheckingInterval: checkingInterval(headersTimeoutMs) },
      listener,
    );
    server.on('clientError', clientError);
    sockets.attach(server);
    server.listen(config.port, config.host);
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    if (metrics) {
      metricsListener = await startMetricsListener(metrics, config.metricsPort!, config.host, logger).catch((error: unknown) => {
        server.close();
        throw new Error(`the metrics listener (METRICS_PORT=${config.metricsPort}) could not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
    }
    const metricsOpen = metricsListener;
    dispatcher?.start();
    const openOrmRef = orm;
    return {
      url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
      port,
      services,
      express,
      apollo,
      db,
      databaseMode: embedded ? `embedded PGlite in ${embedded.directory}` : describePlan(plan),
      metricsUrl: metricsOpen?.url,
      liveTransport: live.settings.kind,
      metrics,
      async stop() {
        stopping = true;
        stopJanitor();
        stopJobs();
        // Sockets first: they close 1001 (Going away), and their clients reconnect to another instance.
        stopSweep();
        await sockets.close();
        await liveEvents.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive connections become idle as their last request finishes: close them as they do.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        server.closeIdleConnections();
        await closed;
        clearInterval(sweep);
        logger.debug('http listener closed');
        await metricsOpen?.close();
        // Before the database closes: tries in flight are cut short and their rows given back.
        await dispatcher?.stop();
        await apollo.stop();
        await services.close();
        logger.debug('services closed');
        await openOrmRef.close(true);
        await embedded?.stop();
        logger.debug('database closed');
      },
    };
  } catch (error) {
    await metricsListener?.close().catch(() => undefined);
    await orm?.close(true).catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}

/** How often every live socket re-checks its session, whatever the events said (see LiveHub.sweepEvery). */
const LIVE_SWEEP_MS = 60_000;

/**
 * How often Node looks for connections past their timeouts (30 s by default, which let a stalled
 * request wait up to 30 s more): often enough that one is answered within a second of its timeout.
 */
function checkingInterval(shortestTimeoutMs: number): number {
  return Math.min(1000, Math.ceil(shortestTimeoutMs / 4));
}

type DeliveryListener = NonNullable<DispatcherOptions['onDelivery']>;

/** What hears each webhook try's outcome: the `webhook_deliveries_total` counter and the caller's listener. */
function deliveryListener(metrics: Metrics | undefined, listener: DeliveryListener | undefined): DeliveryListener | undefined {
  if (!metrics) return listener;
  return (eventType, outcome) => {
    metrics.webhookDelivered(eventType, outcome);
    listener?.(eventType, outcome);
  };
}

/**
 * prom-client, loaded only with metrics on: its process metrics load OpenTelemetry's API (for
 * exemplars), and with METRICS_PORT=off neither is loaded at all.
 */
async function newMetrics(onCollectError: (series: string, error: unknown) => void): Promise<Metrics> {
  const { Metrics } = await import('./shared/metrics/metrics.js');
  return new Metrics(onCollectError);
}
