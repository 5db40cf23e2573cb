import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { ClientInfo } from '../../modules/auth/sessions.js';

/** Gives every request an id (echoed in `X-Request-Id`, in logs and in error bodies). */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};

export function clientInfo(req: Request): ClientInfo {
  return { ip: req.ip ?? req.socket.remoteAddress, userAgent: req.get('user-agent') };
}
