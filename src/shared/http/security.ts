import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Headers for an API: HSTS, nosniff, no framing, no referrer, a CSP that lets nothing load. Pages
 * (the GraphQL explorer's, the operator console's) get localPageHeaders, sandboxPageHeaders or
 * consolePageHeaders on top.
 */
export function securityHeaders(): RequestHandler {
  const apiHeaders = apiHeaderSet();
  return (req, res, next) => {
    for (const [name, value] of apiHeaders.set) res.setHeader(name, value);
    for (const name of apiHeaders.removed) res.removeHeader(name);
    next();
  };
}

/** The headers securityHeaders() sets, for an answer written outside Express (a request that timed out before its headers arrived). */
export function apiHeaders(): readonly [string, string][] {
  return apiHeaderSet().set;
}

let recordedApiHeaders: { set: [string, string][]; removed: string[] } | undefined;

function apiHeaderSet(): { set: [string, string][]; removed: string[] } {
  // The API answers JSON and images, never a page: the headers of OWASP's REST Security Cheat Sheet
  // plus Referrer-Policy and CORP. Helmet's others (COOP, Origin-Agent-Cluster, X-DNS-Prefetch-Control,
  // X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection) only act on documents,
  // and each costs bytes and header validation on every response.
  recordedApiHeaders ??= recordHeaders(helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'base-uri': ["'none'"], 'frame-ancestors': ["'none'"] } },
    strictTransportSecurity: { maxAge: 31536000, includeSubDomains: true },
    crossOriginResourcePolicy: { policy: 'same-site' },
    xFrameOptions: { action: 'deny' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  }));
  // Helmet's API headers depend on nothing in the request: recorded once and replayed, rather than
  // its dozen middleware functions run on every request.
  return recordedApiHeaders;
}

/**
 * Headers of the GraphiQL page and of its scripts and styles: every one of them comes from this
 * server, so nothing from elsewhere may load. GraphiQL's stylesheet embeds its fonts and images as
 * data: URLs, and its dialogs insert a <style> element to lock scrolling (hence inline styles; inline
 * scripts stay refused).
 */
export function localPageHeaders(): RequestHandler {
  return pageHeaders({
    'default-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'", 'data:'],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
  });
}

/**
 * Headers of the operator console's page (src/console): its scripts, styles and icon come from this
 * server's /console/assets/, and it talks to /graphql only. Nothing inline (no script, no style
 * element or attribute), no eval, no other origin, no plugin, no form posted, never framed.
 */
export function consolePageHeaders(): RequestHandler {
  return pageHeaders({
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'img-src': ["'self'"],
    'connect-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
  });
}

/** Headers of Apollo Sandbox, whose page loads its scripts from Apollo's CDN and frames Apollo's sandbox. */
export function sandboxPageHeaders(): RequestHandler {
  return pageHeaders({
    'default-src': ["'self'", 'https://*.apollographql.com', "'unsafe-inline'", 'data:'],
    'frame-ancestors': ["'none'"],
  });
}

/** Helmet's defaults, which are meant for documents, with `csp`; never framed, whatever the CSP says. */
function pageHeaders(csp: Record<string, string[]>): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: csp },
    strictTransportSecurity: { maxAge: 31536000, includeSubDomains: true },
    xFrameOptions: { action: 'deny' },
    crossOriginEmbedderPolicy: false,
  });
}

/** The headers a middleware sets and removes on a response, whatever the request. */
function recordHeaders(middleware: RequestHandler): { set: [string, string][]; removed: string[] } {
  const set: [string, string][] = [];
  const removed: string[] = [];
  const res = {
    setHeader: (name: string, value: string) => set.push([name, value]),
    removeHeader: (name: string) => removed.push(name),
  };
  let called = false;
  middleware({ method: 'GET', url: '/', headers: {} } as Parameters<RequestHandler>[0], res as unknown as Parameters<RequestHandler>[1], (error?: unknown) => {
    if (error) throw error;
    called = true;
  });
  if (!called) throw new Error('the security headers middleware did not finish synchronously');
  return { set, removed };
}

/** CORS for the configured origins only; an unknown Origin gets no CORS headers at all. */
export function corsFor(origins: string[]): RequestHandler {
  const allowed = new Set(origins);
  const handler = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name', 'Apollo-Operation-Name'],
    exposedHeaders: ['Retry-After', 'X-Request-Id', 'WWW-Authenticate'],
    maxAge: 600,
  });
  // Without an Origin header there is nothing for CORS to answer (no header is added either way):
  // skip the per-request option merging of the cors package for API clients that send none.
  return (req, res, next) => (req.headers.origin === undefined ? next() : handler(req, res, next));
}

/** Responses that carry tokens or personal data must not be stored by any cache. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
