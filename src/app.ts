import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Express } from 'express';
import graphqlUploadExpress from 'graphql-upload/graphqlUploadExpress.mjs';
import type { Config } from './config/config.js';
import type { GraphQLContext } from './graphql/context.js';
import { errorPlugin, formatError } from './graphql/errors.js';
import { graphqlErrorHandler, guardUploads } from './graphql/http.js';
import { buildAppSchema } from './graphql/schema.js';
import { accountRoutes } from './modules/account/account.routes.js';
import { avatarServeRoute, avatarUploadRoute } from './modules/avatar/avatar.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import type { Principal } from './modules/auth/authenticator.js';
import { publicConfigRoutes } from './modules/public-config/public-config.routes.js';
import { internalRoutes, statsRoutes } from './modules/stats/stats.routes.js';
import type { Services } from './services.js';
import { AppError, ErrorCode } from './shared/errors/app-error.js';
import { errorHandler, notFound, sendProblem } from './shared/http/problem.js';
import { clientInfo, requestId } from './shared/http/request-context.js';
import type { Logger } from './shared/logger.js';

export const JSON_BODY_LIMIT = '100kb';

export interface AppOptions {
  config: Config;
  services: Services;
  logger: Logger;
  /** Answers whether the service can serve requests now (database reachable, not shutting down). */
  ready: () => Promise<boolean>;
}

export interface App {
  express: Express;
  apollo: ApolloServer<GraphQLContext>;
}

/** Builds the Express app: health, /api/v1, /graphql, and one error handler for all of them. */
export async function createApp({ config, services, logger, ready }: AppOptions): Promise<App> {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (await ready()) res.json({ status: 'ok' });
    else sendProblem(res, new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'Not ready: the database is unreachable or the service is stopping'));
  });

  app.use(express.json({ limit: JSON_BODY_LIMIT }));

  const api = express.Router();
  api.use('/auth', publicConfigRoutes(services), authRoutes(services));
  api.use('/users', avatarUploadRoute(services), statsRoutes(services), accountRoutes(services));
  api.use('/internal', internalRoutes(services, config.internalApiKey));
  api.use('/avatars', avatarServeRoute(services));
  app.use('/api/v1', api);

  const apollo = new ApolloServer<GraphQLContext>({
    schema: await buildAppSchema(),
    formatError,
    plugins: [errorPlugin(logger)],
    introspection: !config.isProduction,
    // No "Did you mean …?" suggestions that would reveal the schema when introspection is off.
    hideSchemaDetailsFromClientErrors: config.isProduction,
    includeStacktraceInErrorResponses: false,
    // main.ts owns shutdown: it drains HTTP first, then stops Apollo, then closes the database.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  app.use(
    '/graphql',
    guardUploads(services),
    graphqlUploadExpress({ maxFileSize: services.limits.avatarMaxBytes, maxFiles: 1, maxFieldSize: 100 * 1024 }),
    expressMiddleware(apollo, {
      context: async ({ req, res }) => {
        let principal: Promise<Principal> | undefined;
        return {
          services,
          requestId: res.locals.requestId as string,
          client: clientInfo(req),
          principal: () =>
            (principal ??= res.locals.principal
              ? Promise.resolve(res.locals.principal as Principal)
              : services.authenticator.authenticate(req.get('authorization'))),
        };
      },
    }),
    graphqlErrorHandler(logger),
  );

  app.use(notFound);
  app.use(errorHandler(logger));
  return { express: app, apollo };
}
