import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { ClientInfo } from '../../modules/auth/sessions.js';
import { withRequestId, type Logger } from '../logger.js';

/** Probes are polled all the time: no access-log line for them. */
const NOT_LOGGED = new Set(['/healthz', '/readyz']);

/**
 * Gives every request an id (echoed in `X-Request-Id`, in error bodies, and on every log line
 * written while the request runs) and writes one access-log line when it ends.
 *
 * The access log is written here rather than by pino-http, which builds two child loggers per
 * request (serialising and redacting their bindings) whether or not the line is ever written:
 * this costs one listener per request and builds the line only when its level is enabled.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    if (!NOT_LOGGED.has(req.url)) {
      const started = Date.now();
      // 'close' follows 'finish', and also ends a response whose connection went away first.
      res.once('close', () => accessLog(logger, id, req, res, Date.now() - started, res.errored ?? undefined));
    }
    withRequestId(id, next);
  };
}

/** One line per request: method, path (no query string, no headers: they carry tokens), status, time. */
function accessLog(logger: Logger, id: string, req: Request, res: Response, responseTime: number, error: unknown): void {
  const failed = error !== undefined || res.statusCode >= 500;
  const level = failed ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const line = { req: { method: req.method, path: req.originalUrl.split('?')[0] }, res: { status: res.statusCode }, responseTime };
  withRequestId(id, () => {
    if (failed) logger.error({ ...line, err: error ?? new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
    else logger[level](line, 'request completed');
  });
}

export function clientInfo(req: Request): ClientInfo {
  return { ip: req.ip ?? req.socket.remoteAddress, userAgent: req.get('user-agent') };
}
