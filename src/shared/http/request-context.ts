import { randomUUID } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { localeFromAcceptLanguage, type Locale } from '../i18n/locale.js';
import { withRequestId, type Logger } from '../logger.js';
import type { HttpMetrics } from '../metrics/http-metrics.js';

/** Probes are polled all the time: no access-log line and no duration for them. */
const NOT_LOGGED = new Set(['/healthz', '/readyz']);

/** What the access-log line of a response still to finish needs; kept in its `res.locals`. */
interface Pending {
  logger: Logger;
  id: string;
  req: Request;
  /** performance.now() when the request reached the service. */
  started: number;
  metrics: HttpMetrics | undefined;
}
const PENDING = Symbol('access log');
type Locals = { [PENDING]?: Pending };

/** What is known of a connection: the responses not finished yet, and the latest request's. */
interface Connection {
  /** The ones a closing connection cuts off are logged then. */
  unfinished: Set<ServerResponse>;
  latest: Response | undefined;
}
const connections = new WeakMap<Socket, Connection>();

// Node publishes every finished response here. One subscriber for the process, rather than a
// 'close' listener on each response: adding a listener to every response costs ~10% of a small
// request (the listener itself, and V8 re-optimising EventEmitter code for the changed objects).
subscribe('http.server.response.finish', (message) => {
  const { response, socket } = message as { response: ServerResponse; socket: Socket };
  connections.get(socket)?.unfinished.delete(response);
  settle(response as Response, undefined);
});

function connectionOf(socket: Socket): Connection {
  let connection = connections.get(socket);
  if (!connection) {
    const open: Connection = { unfinished: new Set(), latest: undefined };
    socket.once('close', () => cutOff(open.unfinished));
    connections.set(socket, open);
    connection = open;
  }
  return connection;
}

/**
 * The response of the request whose body the connection is still receiving (its headers arrived
 * whole), or undefined when no request is under way: the next one's headers have not arrived yet.
 */
export function receivingBodyOf(socket: Socket): Response | undefined {
  const latest = connections.get(socket)?.latest;
  return latest && !latest.req.complete ? latest : undefined;
}

/** Whether a response of the connection is being written: begun, not finished. Nothing else may be written to it meanwhile. */
export function writingTo(socket: Socket): boolean {
  for (const response of connections.get(socket)?.unfinished ?? []) if (response.headersSent) return true;
  return false;
}

/**
 * The connection closed with `responses` unfinished: the client left, unless the service destroyed
 * one with an error of its own. Node may not have marked a response destroyed yet when this runs
 * (on a kept-alive connection this listener was added with its first request, before Node's own for
 * the later ones), so a response without an error is the client's abort too.
 */
function cutOff(responses: Set<ServerResponse>): void {
  for (const response of responses) settle(response as Response, response.errored && !cutOffByClient(response) ? response.errored : 'aborted');
  responses.clear();
}

/**
 * Whether the client closed the connection before `res` was written to the end: Node then leaves the
 * response without an error, or marks it with its own ECONNRESET "aborted"; a response the service
 * destroyed carries the service's error (a source stream that failed, say).
 */
export function cutOffByClient(res: ServerResponse): boolean {
  if (!res.destroyed || res.writableFinished) return false;
  const error = res.errored as NodeJS.ErrnoException | null;
  return !error || (error.code === 'ECONNRESET' && error.message === 'aborted');
}

/** Writes the access-log line of `res` once; `error` is 'aborted' for a response whose connection ended first. */
function settle(res: Response, error: unknown): void {
  const locals = res.locals as Locals | undefined;
  const pending = locals?.[PENDING];
  if (!pending) return; // not an Express response of this service, or already logged
  locals![PENDING] = undefined;
  const elapsed = performance.now() - pending.started;
  pending.metrics?.finished(pending.req, res, elapsed / 1000, error === 'aborted');
  accessLog(pending, res, Math.round(elapsed), error);
}

/**
 * Gives every request an id (echoed in `X-Request-Id`, in error bodies, and on every log line
 * written while the request runs) and writes one access-log line when it ends.
 *
 * The access log is written here rather than by pino-http, which builds two child loggers per
 * request (serialising and redacting their bindings) whether or not the line is ever written:
 * the line is built only when its level is enabled. With `metrics`, the same moment observes the
 * request's duration, so that metrics add no listener per response either.
 */
export function requestContext(logger: Logger, metrics?: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const id = randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const connection = connectionOf(req.socket);
    connection.latest = res;
    connection.unfinished.add(res);
    if (!NOT_LOGGED.has(req.url)) (res.locals as Locals)[PENDING] = { logger, id, req, started: performance.now(), metrics };
    withRequestId(id, next);
  };
}

/**
 * One line per request: method, path (no query string, no headers: they carry tokens), status, time.
 * Error level only for a response that could not be written: an answer of status 5xx is not itself a
 * fault of the service (a budget spent is a refusal by policy), and a fault is logged at error level,
 * with its cause, by the error mapping of its transport.
 */
function accessLog({ logger, id, req }: Pending, res: Response, responseTime: number, error: unknown): void {
  const aborted = error === 'aborted';
  const failed = error !== undefined && !aborted;
  const level = failed ? 'error' : aborted || res.statusCode >= 400 ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const line = { req: { method: req.method, path: req.originalUrl.split('?')[0] }, res: { status: res.statusCode }, responseTime };
  withRequestId(id, () => {
    if (failed) logger.error({ ...line, err: error }, 'request errored');
    else if (aborted) logger.warn({ ...line, aborted: true }, 'request aborted: the connection closed before the response was sent');
    else logger[level](line, 'request completed');
  });
}

/** Who is asking, as far as the service can tell: recorded with sessions and security events. */
export interface ClientInfo {
  /** At most 64 characters, as sessions and security events keep it. */
  ip?: string;
  /** At most 512 characters, as sessions and security events keep it. */
  userAgent?: string;
  /** The request's id (X-Request-Id), which its log lines carry too. */
  requestId?: string;
  /** The locale the request's `Accept-Language` asks for, when it names one of the service's. */
  locale?: Locale;
}

export function clientInfo(req: Request): ClientInfo {
  const acceptLanguage = req.headers['accept-language'];
  return {
    ip: (req.ip ?? req.socket.remoteAddress)?.slice(0, 64),
    userAgent: req.get('user-agent')?.slice(0, 512),
    requestId: req.res?.locals.requestId as string | undefined,
    // Read only by what writes to the user (an SMS): a browser's header costs a few microseconds to
    // parse, which most requests need not spend.
    get locale() {
      return localeFromAcceptLanguage(acceptLanguage);
    },
  };
}
