import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Headers for an API: HSTS, nosniff, no framing, no referrer, a CSP that lets nothing load.
 * The Apollo Sandbox landing page (GET /graphql outside production) loads its scripts from
 * Apollo's CDN, so it gets a CSP that allows Apollo's origins, and still refuses to be framed.
 */
export function securityHeaders(): RequestHandler {
  const api = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'base-uri': ["'none'"], 'frame-ancestors': ["'none'"] } },
    strictTransportSecurity: { maxAge: 31536000, includeSubDomains: true },
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
  const landing = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'", 'https://*.apollographql.com', "'unsafe-inline'", 'data:'],
        'frame-ancestors': ["'none'"],
      },
    },
    strictTransportSecurity: { maxAge: 31536000, includeSubDomains: true },
    crossOriginEmbedderPolicy: false,
  });
  return (req, res, next) => (req.method === 'GET' && req.path === '/graphql' ? landing : api)(req, res, next);
}

/** CORS for the configured origins only; an unknown Origin gets no CORS headers at all. */
export function corsFor(origins: string[]): RequestHandler {
  const allowed = new Set(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name', 'Apollo-Operation-Name'],
    exposedHeaders: ['Retry-After', 'X-Request-Id', 'WWW-Authenticate'],
    maxAge: 600,
  });
}

/** Responses that carry tokens or personal data must not be stored by any cache. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
