import './runtime-flags.js';
import 'reflect-metadata';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { createLogger, prettyDestination, type Logger } from './shared/logger.js';

const EXPLORER_HINT = {
  graphiql: ' (open it in a browser for GraphiQL; Apollo Sandbox: /graphql?explorer=sandbox)',
  sandbox: ' (open it in a browser for Apollo Sandbox; GraphiQL: /graphql?explorer=graphiql)',
  off: '',
} as const;

async function main(): Promise<void> {
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const pretty = (config.logFormat ?? (config.env === 'development' && process.stdout.isTTY ? 'pretty' : 'json')) === 'pretty';
  const logger = createLogger(config.logLevel, pretty ? await prettyDestination() : undefined);
  // Before the server's modules load, which the instrumentations patch as they do; off, nothing of
  // OpenTelemetry is imported.
  const tracing = config.tracing && (await (await import('./tracing.js')).startTracing(config.tracing));
  // The server and its dependencies (Apollo, the ORM, sharp, the AWS SDK) take most of a second to
  // load: they are imported only once the configuration is known to be good, so a bad one is
  // reported at once.
  const { startServer } = await import('./server.js');
  const server = await startServer(config, logger);
  process.stdout.write(
    [
      `meeting-accounts ${config.env} listening on ${server.url}`,
      `  REST:      ${server.url}/api/v1 (try ${server.url}/api/v1/auth/config)`,
      `  GraphQL:   ${server.url}/graphql${EXPLORER_HINT[config.graphqlExplorer]}`,
      `  Console:   ${config.console ? `${server.url}/console (operators: npm run admin -- grant <phone> ADMIN)` : 'off (CONSOLE=off)'}`,
      `  Database:  ${server.databaseMode}`,
      `  SMS codes: ${server.services.sms.name} provider -> ${server.services.sms.destination}`,
      `  Avatars:   ${server.services.avatarStorage.description}`,
      `  Counters:  ${server.services.counterStore}`,
      `  Metrics:   ${server.metricsUrl ?? 'off (METRICS_PORT=off)'}`,
      '',
    ].join('\n'),
  );
  stopOnSignals(server, logger, tracing || undefined);
}

/**
 * SIGTERM or SIGINT: drain in-flight requests, close everything, export the last spans, exit 0 (1 if
 * that takes over 10 s).
 */
function stopOnSignals(server: { stop(): Promise<void> }, logger: Logger, tracing?: { shutdown(): Promise<void> }): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    server.stop().then(
      async () => {
        await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'the last spans could not be exported'));
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`meeting-accounts failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
