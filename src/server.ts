import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApp } from './app.js';
import type { Config } from './config/config.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded.js';
import { startJanitor } from './db/janitor.js';
import { migrate, openOrm, type MikroORM } from './db/orm.js';
import { Database } from './db/database.js';
import type { SmsProvider } from './modules/auth/sms/index.js';
import { WebhookDispatcher, type DispatcherOptions } from './modules/webhook/webhook.dispatcher.js';
import { createServices, type Services } from './services.js';
import type { Logger } from './shared/logger.js';
import { redactUrl } from './shared/url.js';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** The Express application, for introspection by tests (the route list). */
  express: Express;
  /** The service's database access, for operational scripts and tests. */
  db: Database;
  databaseMode: string;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  sms?: SmsProvider;
  /** Told of every webhook try (for a metric): its event type and how it ended. */
  onWebhookDelivery?: DispatcherOptions['onDelivery'];
}

/** Start-up: database (embedded or DATABASE_URL) -> migrations -> services -> app -> listen. */
export async function startServer(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  let embedded: EmbeddedDatabase | undefined;
  let orm: MikroORM | undefined;
  try {
    if (!config.database.url) embedded = await startEmbeddedDatabase(config.dataDir);
    const url = config.database.url ?? embedded!.url;
    // PGlite is a single session: more than one pooled connection deadlocks inside transactions.
    orm = await openOrm({ url, poolSize: embedded ? 1 : config.database.poolSize, statementTimeout: !embedded && config.database.preparedStatements });
    if (config.migrateOnStart) {
      const applied = await migrate(orm, embedded ? undefined : url);
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    }
    const db = await Database.open(orm, { prepare: config.database.preparedStatements && !embedded });
    const services = await createServices(config, db, logger, { sms: options.sms });
    let stopping = false;
    const ready = async () => !stopping && (await db.ping()) && (await services.storesReady());
    const { express, apollo } = await createApp({ config, services, logger, ready });
    const stopJanitor = startJanitor(services.sweepers, logger);
    const dispatcher = services.webhooks.enabled
      ? new WebhookDispatcher(services.webhooks, { ...config.webhooks, logger, onDelivery: options.onWebhookDelivery })
      : undefined;
    // A commit that enqueued an event: look at the outbox now rather than at the next poll.
    if (dispatcher) db.onCommit(() => services.webhooks.takeEnqueued() && dispatcher.nudge());

    const server: Server = express.listen(config.port, config.host);
    await once(server, 'listening');
    server.headersTimeout = 20_000;
    server.requestTimeout = 60_000;
    const { port } = server.address() as AddressInfo;
    dispatcher?.start();
    const openOrmRef = orm;
    return {
      url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
      port,
      services,
      express,
      db,
      databaseMode: embedded ? `embedded PGlite in ${embedded.directory}` : `PostgreSQL ${redactUrl(url)}`,
      async stop() {
        stopping = true;
        stopJanitor();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive connections become idle as their last request finishes: close them as they do.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        server.closeIdleConnections();
        await closed;
        clearInterval(sweep);
        logger.debug('http listener closed');
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
    await orm?.close(true).catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}
