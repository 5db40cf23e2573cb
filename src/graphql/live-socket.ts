import { createHash } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema, type ValidationRule } from 'graphql';
import { CloseCode, makeServer, type Context } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { LiveConnection, CLOSE } from '../modules/live/live-hub.js';
import type { Services } from '../services.js';
import { AppError, ErrorCode, msg } from '../shared/errors/app-error.js';
import { localeFromAcceptLanguage, type Locale } from '../shared/i18n/locale.js';
import type { Logger } from '../shared/logger.js';
import { GraphQLContext } from './context.js';
import { formatOutsideApollo } from './errors.js';
import type { TrustedDocuments } from './trusted-documents.js';

export interface LiveSocketOptions {
  schema: GraphQLSchema;
  services: Services;
  logger: Logger;
  /** The rules every document passes over HTTP too: depth, aliases, cost, storable literals. */
  validationRules: readonly ValidationRule[];
  maxTokens: number;
  /** With a manifest, only its documents run, by their text's SHA-256 or `extensions.persistedQuery`. */
  trusted?: TrustedDocuments;
  /** WS_MAX_CONNECTIONS: sockets open at once on this instance. */
  maxConnections: number;
  /** The largest message a client may send (bytes). */
  maxMessageBytes: number;
  /** Keep-alive pings (ms); a client that does not answer one before the next is cut. */
  keepAliveMs: number;
  defaultLocale: Locale;
  /** Told when a socket opens or closes (the open-sockets gauge). */
  onCount?(open: number): void;
}

interface Extra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
  readonly locale: Locale;
  live?: LiveConnection;
}

export interface LiveSockets {
  /** Serves `/graphql` upgrades of this HTTP server. */
  attach(server: Server): void;
  readonly open: number;
  /** Shutdown: every socket closes 1001 (Going away); new upgrades are refused. */
  close(): Promise<void>;
}

/**
 * GraphQL over WebSocket (graphql-transport-ws, the graphql-ws library) on `/graphql`, for
 * subscriptions (API.md 10.2): the access token in `connection_init`'s payload
 * (`{ "authorization": "Bearer …" }`), checked as a request's is (4401 without a valid one); the
 * document checked by the same rules as over HTTP; the socket registered with the instance's
 * LiveHub, which closes it when its session ends.
 */
export function liveSockets(options: LiveSocketOptions): LiveSockets {
  const { schema, services, logger, maxConnections } = options;
  const rules = [...specifiedRules, ...options.validationRules];
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes, perMessageDeflate: false });
  let closing = false;

  const fail = (extra: Extra, errors: readonly GraphQLError[], id: string): GraphQLFormattedError[] => errors.map((error) => formatOutsideApollo(error, extra.locale, id));
  const refuse = (error: AppError) => [new GraphQLError(error.message, { originalError: error })];

  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    schema,
    connectionInitWaitTimeout: 3_000,
    async onConnect(ctx) {
      const authorization = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
      try {
        const principal = await services.authenticator.authenticate(typeof authorization === 'string' ? authorization : undefined);
        const connection = new LiveConnection(principal, ctx.extra.socket, services.live);
        if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return false; // gone while it was checked
        services.live.register(connection);
        ctx.extra.live = connection;
        // A session that ended between the check and the registration is caught by the next event's
        // re-check; one more look now closes that window.
        void services.live.recheck([connection]);
        return true;
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== ErrorCode.UNAUTHENTICATED) logger.error({ err: error }, 'a live socket could not be authenticated');
        ctx.extra.socket.close(CLOSE.UNAUTHORIZED, 'Unauthorized');
        return false;
      }
    },
    onSubscribe(ctx, id, payload) {
      let text = payload.query;
      if (options.trusted) {
        const named = (payload.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash ?? createHash('sha256').update(text ?? '').digest('hex');
        const document = options.trusted.documentOf(named);
        if (!document || (text && text !== document)) return refuse(new AppError(ErrorCode.PERSISTED_QUERY_NOT_FOUND, msg('graphql.untrustedDocument')));
        text = document;
      }
      let document: DocumentNode;
      try {
        document = parse(text, { maxTokens: options.maxTokens });
      } catch (error) {
        // graphql-js says "Document contains more that (sic) N tokens. Parsing aborted."
        const tooMany = error instanceof GraphQLError && / tokens\. Parsing aborted/.test(error.message);
        const refusal = tooMany ? new AppError(ErrorCode.VALIDATION_FAILED, msg('graphql.tooManyTokens', { max: options.maxTokens })) : undefined;
        return refusal ? refuse(refusal) : [new GraphQLError(error instanceof Error ? error.message : String(error), { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
      }
      const errors = validate(schema, document, rules);
      if (errors.length > 0) return errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
      const operation = getOperationAST(document, payload.operationName);
      if (operation && operation.operation !== 'subscription') return refuse(new AppError(ErrorCode.VALIDATION_FAILED, msg('live.httpOperations')));
      return {
        schema,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        contextValue: new GraphQLContext(services, id, undefined, ctx.extra.live?.principal, ctx.extra.live),
      };
    },
    onNext(ctx, id, _payload, _args, result) {
      if (!result.errors) return;
      return { ...result, errors: fail(ctx.extra, result.errors, id) } as never;
    },
    onError(ctx, id, _payload, errors) {
      return fail(ctx.extra, errors, id);
    },
    onClose(ctx: Context<Record<string, unknown> | undefined, Extra>) {
      ctx.extra.live?.close(1000, 'Closed');
    },
  });

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    options.onCount?.(wss.clients.size);
    socket.on('error', (error) => {
      logger.debug({ err: error }, 'a live socket failed');
      socket.terminate();
    });
    // Keep-alive: a ping each period; no pong before the next one and the socket is cut.
    let answered = true;
    socket.on('pong', () => (answered = true));
    const ping = setInterval(() => {
      if (!answered) return socket.terminate();
      answered = false;
      socket.ping();
    }, options.keepAliveMs);
    const extra: Extra = { socket, request, locale: localeFromAcceptLanguage(request.headers['accept-language']) ?? options.defaultLocale };
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (receive) =>
          socket.on('message', async (data) => {
            try {
              await receive(String(data));
            } catch (error) {
              logger.error({ err: error }, 'a live socket message could not be handled');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      extra,
    );
    socket.once('close', (code, reason) => {
      clearInterval(ping);
      options.onCount?.(wss.clients.size);
      void closed(code, String(reason));
    });
  });

  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?', 1)[0]!.toLowerCase();
    if (path !== '/graphql' && path !== '/graphql/') return answer(socket, 404, 'Not Found');
    if (closing) return answer(socket, 503, 'Service Unavailable');
    if (wss.clients.size >= maxConnections) {
      logger.warn({ open: wss.clients.size }, 'a live socket was refused: WS_MAX_CONNECTIONS are open');
      return answer(socket, 503, 'Service Unavailable', { 'Retry-After': '5' });
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };

  return {
    attach(httpServer) {
      httpServer.on('upgrade', upgrade);
    },
    get open() {
      return wss.clients.size;
    },
    async close() {
      closing = true;
      services.live.closeAll(CLOSE.GOING_AWAY, 'Going away');
      for (const client of wss.clients) client.close(CLOSE.GOING_AWAY, 'Going away');
      // A client that does not answer the close in time is cut.
      const deadline = setTimeout(() => {
        for (const client of wss.clients) client.terminate();
      }, 2_000);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      clearTimeout(deadline);
    },
  };
}

/** An upgrade refused with a plain HTTP answer. */
function answer(socket: Duplex, status: number, text: string, headers: Record<string, string> = {}): void {
  const lines = [`HTTP/1.1 ${status} ${text}`, 'Connection: close', 'Content-Length: 0', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.end(`${lines.join('\r\n')}\r\n\r\n`);
}
