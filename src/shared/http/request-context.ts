import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { ClientInfo } from '../../modules/auth/sessions.js';
import { withRequestId, type Logger } from '../logger.js';

/**
 * Gives every request an id (echoed in `X-Request-Id`, in error bodies, and on every log line
 * written while the request runs) and writes one access-log line when it ends.
 */
export function requestContext(logger: Logger): RequestHandler {
  const accessLog = pinoHttp({
    logger,
    genReqId: (_req, res) => res.getHeader('x-request-id') as string,
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    // The path only: no query string, no headers (they carry tokens).
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    quietReqLogger: true,
  });
  return (req, res, next) => {
    const id = randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    withRequestId(id, () => accessLog(req, res, next));
  };
}

export function clientInfo(req: Request): ClientInfo {
  return { ip: req.ip ?? req.socket.remoteAddress, userAgent: req.get('user-agent') };
}
