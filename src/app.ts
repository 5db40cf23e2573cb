import { createHash } from 'node:crypto';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import express, { type Express, type RequestHandler, type Response } from 'express';
import graphqlUploadExpress from 'graphql-upload/graphqlUploadExpress.mjs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config/config.js';
import { apolloHandler } from './graphql/apollo-handler.js';
import { GraphQLContext } from './graphql/context.js';
import { withGraphqlFastPath, withLeanGet } from './graphql/fast-path.js';
import { KnownQueries } from './graphql/known-queries.js';
import { errorPlugin, formatError, formatErrorWithoutSuggestions } from './graphql/errors.js';
import { federationGuardPlugin } from './graphql/federation-guard.js';
import { metricsPlugin } from './graphql/metrics-plugin.js';
import { graphqlExplorer, landingPagePlugin } from './graphql/explorer.js';
import { graphqlErrorDocument, graphqlErrorHandler, guardedUploads, limitTokens, servedMethodsOnly } from './graphql/http.js';
import { buildAppSchema } from './graphql/schema.js';
import { TrustedDocuments, trustedDocumentsOnly } from './graphql/trusted-documents.js';
import { noSubscriptionsOverHttp } from './graphql/validation.js';
import { liveSockets, type LiveSockets } from './graphql/live-socket.js';
import { inputChecksPlugin, storableStringLiterals } from './graphql/input-checks.js';
import { builtConsole, consoleRoutes } from './console/console.routes.js';
import { accountRoutes } from './modules/account/account.routes.js';
import { adminRoutes } from './modules/admin/admin.routes.js';
import { avatarServeRoute, avatarUploadRoute } from './modules/avatar/avatar.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { jwksRoute } from './modules/auth/jwks.routes.js';
import type { Principal } from './modules/account/principal.js';
import { mfaRoutes } from './modules/mfa/mfa.routes.js';
import { phoneChangeRoutes } from './modules/phone-change/phone-change.routes.js';
import { identityRoutes, oidcRoutes } from './modules/identity/identity.routes.js';
import { publicConfigRoutes } from './modules/public-config/public-config.routes.js';
import { securityEventRoutes } from './modules/security-event/security-event.routes.js';
import { sessionRoutes } from './modules/session/session.routes.js';
import { passkeyRoutes } from './modules/passkey/passkey.routes.js';
import { internalRoutes, statsRoutes } from './modules/stats/stats.routes.js';
import { SERVICE_VERSION, type Services } from './services.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { AppError, ErrorCode, msg } from './shared/errors/app-error.js';
import { clientErrorListener } from './shared/http/client-errors.js';
import { errorHandler, localeOf, problemDocument, sendProblem, unrouted, type ErrorDocument } from './shared/http/problem.js';
import { requestContext } from './shared/http/request-context.js';
import { storableInput } from './shared/http/input-guard.js';
import { parseQuery } from './shared/http/query-string.js';
import { answeredFor, RouteTable } from './shared/http/route-table.js';
import { corsFor, noStore, securityHeaders } from './shared/http/security.js';
import { sequence } from './shared/http/sequence.js';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { Logger } from './shared/logger.js';
import { HttpMetrics } from './shared/metrics/http-metrics.js';
import type { Metrics } from './shared/metrics/metrics.js';

/** JSON bodies: at most 100 KiB. */
const JSON_BODY_LIMIT_BYTES = 100 * 1024;

/** GraphQL document limits of the contract (depth 10, aliases 15) and GraphQL Armor's defaults for the rest. */
const GRAPHQL_LIMITS = { depth: 10, aliases: 15, directives: 50, tokens: 1000, cost: 5000 } as const;
/** The cost limit, with Armor's default cost of an object: what each of `_entities`' representations adds too. */
const COST_LIMIT = { maxCost: GRAPHQL_LIMITS.cost, objectCost: 2, ignoreIntrospection: true };

export interface AppOptions {
  config: Config;
  services: Services;
  logger: Logger;
  /** Answers whether the service can serve requests now (database reachable, not shutting down). */
  ready: () => Promise<boolean>;
  /** Request durations and GraphQL operations are counted here when given (METRICS_PORT on). */
  metrics?: Metrics;
  /** POST /graphql past Express's router and body parser (see withGraphqlFastPath); on unless false, off while tracing. */
  fastPaths?: boolean;
}

export interface App {
  express: Express;
  /** The HTTP server's request listener: Express, or first the lean path of POST /graphql. */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  apollo: ApolloServer<GraphQLContext>;
  /** The HTTP server's 'clientError' listener: request timeouts answered 408, other client errors as Node answers them. */
  clientError: ReturnType<typeof clientErrorListener>;
  /** GraphQL over WebSocket on /graphql (subscriptions), attached to the HTTP server by server.ts. */
  sockets: LiveSockets;
}

/** Builds the Express app: /graphql, /api/v1, health, and one error handler for all of them. */
export async function createApp({ config, services, logger, ready, metrics, fastPaths = true }: AppOptions): Promise<App> {
  const app = express();
  app.disable('x-powered-by');
  // No ETag computed (a SHA-1 of every body) for API answers: they are no-store, so no cache holds a
  // copy to revalidate. Avatars and the OpenAPI document set their own.
  app.set('etag', false);
  // Off by default: X-Forwarded-For is believed only from the proxies configured in TRUST_PROXY.
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', parseQuery);
  // The language of error answers to requests whose Accept-Language names none of the service's (see localeOf).
  app.locals.defaultLocale = config.defaultLocale;
  // What every request passes through, as one router layer: its id and access-log line, the security
  // and CORS headers; outside production, the GraphQL explorer's page and files (GET only).
  const explorer = graphqlExplorer(config.graphqlExplorer);
  const httpMetrics = metrics && new HttpMetrics(metrics);
  const front = sequence(requestContext(logger, httpMetrics), securityHeaders(), ...(explorer ? [explorer] : []), corsFor(config.corsOrigins));
  app.use(front);

  // Depth, alias, directive, token and cost limits, checked while the document is validated:
  // an abusive document is refused before any resolver runs.
  const armor = new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.depth, ignoreIntrospection: true },
    maxAliases: { n: GRAPHQL_LIMITS.aliases },
    maxDirectives: { n: GRAPHQL_LIMITS.directives },
    // Armor's token limit throws from a parsing hook, which Apollo answers with a 500; see limitTokens.
    maxTokens: { enabled: false },
    costLimit: COST_LIMIT,
    blockFieldSuggestion: { enabled: config.isProduction },
  }).protect();
  const trusted = config.graphqlTrustedDocuments.length > 0 ? TrustedDocuments.load(...config.graphqlTrustedDocuments) : undefined;
  const operatorConsole = config.console ? builtConsole() : undefined;
  if (config.console && !operatorConsole) logger.warn('the operator console is not built (npm run build): /console answers 404 until it is');
  const untrusted = trusted && operatorConsole ? operatorConsole.documents.filter((hash) => !trusted.documentOf(hash)) : [];
  if (untrusted.length > 0) {
    logger.warn(
      { missing: untrusted.length },
      "GRAPHQL_TRUSTED_DOCUMENTS lacks some of the operator console's documents, which it will refuse: add dist/console/persisted-documents.json to the list, or set CONSOLE=off",
    );
  }
  const schema = await buildAppSchema();
  // Repeated queries past Apollo's pipeline, with the lean path only (off while tracing, whose spans follow Apollo's).
  const knownQueries = fastPaths && !config.tracing ? new KnownQueries(schema, metrics) : undefined;
  // What every document passes, over HTTP and over WebSocket.
  const validationRules = [...armor.validationRules, storableStringLiterals];
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    formatError: config.isProduction ? formatErrorWithoutSuggestions : formatError,
    // Armor's typings name Apollo's CommonJS build; the plugins are the same objects.
    plugins: [
      ...(armor.plugins as unknown as ApolloServerPlugin<GraphQLContext>[]),
      // _entities' representations (checked, and counted in the cost), and _service in production.
      federationGuardPlugin({ sdlNeedsKey: config.isProduction, internalApiKey: config.internalApiKey, cost: COST_LIMIT }),
      errorPlugin(logger, config.defaultLocale),
      inputChecksPlugin(),
      ApolloServerPluginCacheControlDisabled(),
      // A subgraph schema would turn Apollo's inline tracing (ftv1, for Apollo's cloud) on: traces go to OpenTelemetry here.
      ApolloServerPluginInlineTraceDisabled(),
      landingPagePlugin(config.graphqlExplorer),
      ...(metrics ? [metricsPlugin(metrics)] : []),
      ...(knownQueries ? [knownQueries.plugin()] : []),
    ],
    validationRules: [...validationRules, noSubscriptionsOverHttp],
    allowBatchedHttpRequests: false,
    // With a manifest, only its documents run: a client may not register documents of its own.
    ...(trusted && { persistedQueries: false as const }),
    introspection: !config.isProduction,
    // No "Did you mean …?" suggestions that would reveal the schema when introspection is off.
    hideSchemaDetailsFromClientErrors: config.isProduction,
    includeStacktraceInErrorResponses: false,
    // main.ts owns shutdown: it drains HTTP first, then stops Apollo, then closes the database.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  // Where answers carry tokens or personal data: no-store, set before the body is read so that a
  // refused body (413, malformed JSON) is covered too; GraphQL GET queries included (the schema sets
  // no cache hints, so Apollo's cache-control plugin is turned off).
  const json = express.json({ limit: JSON_BODY_LIMIT_BYTES });
  const privateJson = sequence(noStore, json);
  // REST's inputs are checked for what they may not hold here, before any route; GraphQL's, by
  // inputChecksPlugin and storableStringLiterals (variables and literals, whatever the transport).
  const restJson = sequence(privateJson, storableInput);
  // The busiest mounts first; each is one path match for the requests it does not serve.
  const beforeBody = sequence(noStore, servedMethodsOnly);
  const graphqlContext = async (req: express.Request, res: Response) =>
    new GraphQLContext(services, res.locals.requestId as string, req, (res.locals.principal ?? res.locals.authenticating) as Principal | Promise<Principal> | undefined);
  // On the lean path, a request with a token has its session checked as soon as its headers passed
  // the front handlers: the round trip to the database goes on while the body is read, parsed and
  // its operation looked up, and the resolvers that ask for the caller get this answer. A request
  // that asks for no caller (sign-in, a refused document) costs a check it did not need.
  const authenticateEarly = (req: express.Request, res: Response) => {
    const authorization = req.headers.authorization;
    if (authorization === undefined) return;
    const authenticating = services.authenticator.authenticate(authorization);
    authenticating.catch(() => undefined); // a refusal is the resolvers' to report, if one asks
    res.locals.authenticating = authenticating;
  };
  const afterBody = sequence(
    // First, a query Apollo answered before: it passed the token limit, the upload guard (it is JSON)
    // and the trusted documents then, by its text, which is the same now.
    ...(knownQueries ? [knownQueries.handler(graphqlContext)] : []),
    limitTokens(GRAPHQL_LIMITS.tokens),
    guardedUploads(
      services,
      // busboy flags a file that reaches maxFileSize, so +1: a file of exactly the limit is accepted, as on REST.
      graphqlUploadExpress({ maxFileSize: services.limits.avatarMaxBytes + 1, maxFiles: 1, maxFieldSize: 100 * 1024 }),
    ),
    // After the uploads: a multipart request's operation is its `operations` field.
    ...(trusted ? [trustedDocumentsOnly(trusted)] : []),
    apolloHandler(apollo, graphqlContext, knownQueries),
  );
  const onGraphqlError = graphqlErrorHandler(logger);
  app.use('/graphql', sequence(beforeBody, json), afterBody, onGraphqlError);

  // Each module's router straight under its full prefix (no /api/v1 router around them: every
  // router a request passes through allocates its own dispatch state). Under a prefix, the routers
  // that serve the busiest routes come first: a router that does not serve a request is left through
  // a setImmediate hop (sign-in before public config; /users/me before avatar and stats).
  app.use('/api/v1/auth', restJson, authRoutes(services), publicConfigRoutes(services), oidcRoutes(services));
  const account = accountRoutes(services);
  app.use('/api/v1/users', restJson, account, sessionRoutes(services), mfaRoutes(services), phoneChangeRoutes(services), avatarUploadRoute(services), statsRoutes(services), securityEventRoutes(services), passkeyRoutes(services), identityRoutes(services));
  app.use('/api/v1/admin', restJson, adminRoutes(services));
  app.use('/api/v1/internal', restJson, internalRoutes(services, config.internalApiKey));
  app.use('/api/v1/avatars', avatarServeRoute(services));
  const jwks = jwksRoute(services);
  app.get('/.well-known/jwks.json', jwks);
  app.get('/api/v1/.well-known/jwks.json', jwks);
  const openApi = JSON.stringify(buildOpenApiDocument(SERVICE_VERSION));
  const openApiTag = `"${createHash('sha256').update(openApi).digest('base64url').slice(0, 27)}"`;
  app.get('/api/v1/openapi.json', (req, res) => {
    res.setHeader('ETag', openApiTag);
    if (req.fresh) res.status(304).end();
    else res.type('application/json').send(openApi);
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (await ready()) res.json({ status: 'ok' });
    else sendProblem(res, new AppError(ErrorCode.SERVICE_UNAVAILABLE, msg('http.notReady')));
  });

  if (config.console) consoleRoutes(app, operatorConsole);

  // Every route is in place: what no route serves is a known path asked with another method (405) or an unknown path (404).
  const routes = new RouteTable(app);
  app.use(unrouted(routes));
  const onError = errorHandler(logger);
  app.use(onError);
  httpMetrics?.learnRoutes(routes);
  // A body that did not arrive in time: under /graphql in its error shape, as /graphql answers the
  // bodies it cannot read; elsewhere a problem document, counted under the route the path is for.
  const timedOut = (res: Response, error: AppError): ErrorDocument => {
    const requestId = res.locals.requestId as string;
    if (res.req.baseUrl.toLowerCase() === '/graphql') {
      answeredFor(res, '/graphql');
      return graphqlErrorDocument(error, requestId, localeOf(res.req));
    }
    const template = routes.match(res.req.originalUrl.split('?', 1)[0]!);
    if (template) answeredFor(res, template.path);
    return problemDocument(error, requestId, localeOf(res.req));
  };
  const clientError = clientErrorListener({ logger, metrics: httpMetrics, headersTimeoutMs: config.http.headersTimeoutMs, timedOut, defaultLocale: config.defaultLocale });
  // Tracing names its spans after Express's layers: with it on, every request goes through them.
  // GET /api/v1/users/me and POST /graphql, nearly every request of a frontend, past the router.
  const listener =
    fastPaths && !config.tracing
      ? withLeanGet(
          app,
          front,
          { path: '/api/v1/users/me', baseUrl: '/api/v1/users', routePath: '/me', ...routeOf(account, 'get', '/me'), mount: restJson, onError },
          withGraphqlFastPath(app, { front, early: authenticateEarly, beforeBody, afterBody, onError: onGraphqlError, limitBytes: JSON_BODY_LIMIT_BYTES }),
        )
      : app;
  const sockets = liveSockets({
    schema,
    services,
    logger,
    validationRules,
    maxTokens: GRAPHQL_LIMITS.tokens,
    trusted,
    maxConnections: config.live.maxConnections,
    maxMessageBytes: JSON_BODY_LIMIT_BYTES,
    keepAliveMs: config.live.keepAliveSeconds * 1000,
    defaultLocale: config.defaultLocale,
    onCount: metrics && ((open) => metrics.liveSocketsOpen(open)),
  });
  return { express: app, listener, apollo, clientError, sockets };
}

/** The Route of `router` that answers `method` on `path`, and its handlers in order, for withLeanGet. */
function routeOf(router: express.Router, method: string, path: string): { route: object; handlers: RequestHandler } {
  interface Layer {
    method?: string;
    handle: RequestHandler;
    route?: { path: string; methods: Record<string, boolean>; stack: Layer[] };
  }
  const route = (router as unknown as { stack: Layer[] }).stack.find((layer) => layer.route?.path === path && layer.route.methods[method])?.route;
  if (!route) throw new Error(`no route answers ${method.toUpperCase()} ${path}`);
  return { route, handlers: sequence(...route.stack.filter((layer) => layer.method === method).map((layer) => layer.handle)) };
}
