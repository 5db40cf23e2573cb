import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError, ErrorCode, msg } from '../errors/app-error.js';
import { isServerFault } from '../errors/catalogue.js';
import { toAppError } from '../errors/normalize.js';
import { publicError } from '../errors/public-error.js';
import { localeFromAcceptLanguage, type Locale } from '../i18n/locale.js';
import type { Logger } from '../logger.js';
import { cutOffByClient } from './request-context.js';
import { bodyErrorKind, parserError } from './parser-errors.js';
import { answeredFor, type RouteTable } from './route-table.js';

/** An error answer laid out in a transport's shape, ready to be written. */
export interface ErrorDocument {
  status: number;
  /** The headers that go with it (Retry-After, WWW-Authenticate, Allow). */
  headers: [name: string, value: string][];
  /** Without parameters; the body is UTF-8. */
  contentType: string;
  body: string;
}

/**
 * The locale of the answers to `req`: the one its Accept-Language asks for, else the service's default
 * (DEFAULT_LOCALE, kept in the app's locals). Read on error paths only.
 */
export function localeOf(req: Request): Locale {
  return localeFromAcceptLanguage(req.headers['accept-language']) ?? (req.app?.locals.defaultLocale as Locale | undefined) ?? 'en';
}

/** The headers of an error answer written in `locale`: its language, and that it depends on Accept-Language. */
export function languageHeaders(locale: Locale): [name: string, value: string][] {
  return [['Content-Language', locale], ['Vary', 'Accept-Language']];
}

/** An AppError as an RFC 9457 problem document, in `locale`; the only place REST errors are laid out. */
export function problemDocument(error: AppError, requestId: string | undefined, locale: Locale): ErrorDocument {
  const shown = publicError(error, locale);
  const body: Record<string, unknown> = {
    ...shown.details,
    type: 'about:blank',
    title: shown.title,
    status: shown.status,
    code: shown.code,
    detail: shown.message,
    requestId,
  };
  if (shown.fields) body.fields = shown.fields;
  if (shown.retryAfter !== undefined) body.retryAfter = shown.retryAfter;
  return { status: shown.status, headers: [...shown.headers, ...languageHeaders(locale)], contentType: 'application/problem+json', body: JSON.stringify(body) };
}

/** Answers `res` with the problem document of `error`, in the request's locale. */
export function sendProblem(res: Response, error: AppError): void {
  sendDocument(res, problemDocument(error, res.locals.requestId as string | undefined, localeOf(res.req)));
}

/** Answers `res` with `document`. `Vary` is added to, not replaced (CORS varies by Origin). */
export function sendDocument(res: Response, document: ErrorDocument): void {
  for (const [name, value] of document.headers) {
    if (name === 'Vary') res.vary(value);
    else res.setHeader(name, value);
  }
  res.status(document.status).type(document.contentType).send(document.body);
}

/**
 * The end of the chain, for requests that no route served: 405 METHOD_NOT_ALLOWED with `Allow` when
 * routes have the path (for other methods), counted under the path's template; else 404 NOT_FOUND.
 * A plain OPTIONS of a known path is answered with its `Allow`, as Express answers it for the routes
 * of a mounted router (which it does not do for the app's own routes, whose requests end here).
 */
export function unrouted(routes: RouteTable): RequestHandler {
  return (req, res) => {
    const template = routes.match(req.path);
    if (!template) throw new AppError(ErrorCode.NOT_FOUND, msg('http.noRoute', { method: req.method, path: req.path }));
    answeredFor(res, template.path);
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', template.allow);
      res.type('text/plain').send(template.allow);
      return;
    }
    throw new AppError(ErrorCode.METHOD_NOT_ALLOWED, msg('http.methodNotServed', { method: req.method, path: template.path, allow: template.allow }), { allow: template.allow });
  };
}

/**
 * Errors raised by HTTP middleware before any service runs: the parsers' (body-parser's carry a
 * `type`, the router's undecodable path parameters are a URIError), mapped by the one table of
 * parser-errors.ts; an http-error a parser might add later is a 4xx by its status. Everything else
 * goes through `toAppError`.
 */
export function toHttpAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const kind = bodyErrorKind(error);
  if (kind) return parserError(kind);
  const { status, expose, message } = (error ?? {}) as { status?: unknown; expose?: unknown; message?: unknown };
  const code = expose === true && typeof status === 'number' ? BY_STATUS.get(status) : undefined;
  return code ? new AppError(code, msg('http.parserOther', { detail: String(message) })) : toAppError(error);
}

/** The statuses a body parser refuses with, for an http-error of a kind parser-errors.ts does not know yet. */
const BY_STATUS = new Map<number, ErrorCode>([
  [400, ErrorCode.VALIDATION_FAILED],
  [413, ErrorCode.PAYLOAD_TOO_LARGE],
  [415, ErrorCode.UNSUPPORTED_MEDIA_TYPE],
]);

/** What writing to a response fails with once its connection is gone. */
const CONNECTION_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_UNABLE_TO_PIPE']);

/** Responses answered 408 because their request's body did not arrive in time. */
const timedOut = new WeakSet<Response>();

/** Records that `res` was answered 408 REQUEST_TIMEOUT while its request was still being read. */
export function answeredAsTimedOut(res: Response): void {
  timedOut.add(res);
}

/**
 * The client left before the answer was written (an avatar download closed half-way), or was
 * answered 408 because it did not send its body in time (an upload's GraphQL operation, already
 * running, then fails as it tries to answer): nothing failed on this side, and nobody is left to
 * answer; the access log records the abort or the 408.
 */
export function leftByClient(error: unknown, res: Response): boolean {
  return timedOut.has(res) || (cutOffByClient(res) && CONNECTION_GONE.has((error as NodeJS.ErrnoException | undefined)?.code ?? ''));
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (leftByClient(error, res)) return;
    const appError = toHttpAppError(error);
    if (isServerFault(appError)) {
      logger.error({ err: error, requestId: res.locals.requestId, method: req.method, path: req.path }, 'request failed');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, appError);
  };
}
