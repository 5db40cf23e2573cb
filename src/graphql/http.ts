import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { GraphQLError, parse } from 'graphql';
import { AppError, ErrorCode, msg } from '../shared/errors/app-error.js';
import { isServerFault } from '../shared/errors/catalogue.js';
import { graphqlExtensions, publicError } from '../shared/errors/public-error.js';
import { parserError, uploadErrorKind } from '../shared/http/parser-errors.js';
import { languageHeaders, leftByClient, localeOf, sendDocument, toHttpAppError, type ErrorDocument } from '../shared/http/problem.js';
import type { Locale } from '../shared/i18n/locale.js';
import type { Logger } from '../shared/logger.js';
import type { Services } from '../services.js';

/** The methods Apollo serves at /graphql: every other one it refuses, naming these in `Allow`. */
const SERVED_METHODS = 'GET, POST';

/**
 * Before a byte of the body is read: a method Apollo does not serve is METHOD_NOT_ALLOWED (405, with
 * `Allow`, in /graphql's error shape); a plain OPTIONS (a CORS preflight is answered before this)
 * gets `Allow` as Express answers it on the REST routes. GET and POST pass after two comparisons.
 */
export const servedMethodsOnly: RequestHandler = (req, res, next) => {
  if (req.method === 'POST' || req.method === 'GET') return next();
  if (req.method === 'OPTIONS') {
    res.setHeader('Allow', SERVED_METHODS);
    res.type('text/plain').send(SERVED_METHODS);
    return;
  }
  throw new AppError(ErrorCode.METHOD_NOT_ALLOWED, msg('graphql.methodNotServed', { method: req.method, allow: SERVED_METHODS }), { allow: SERVED_METHODS });
};

/**
 * Multipart requests (file uploads) are checked before `upload` (graphql-upload) reads a byte of
 * them: Apollo's CSRF rule first (a preflight header is required), then the bearer token, since the
 * only upload there is needs a signed-in user. The principal is kept for the resolver. JSON requests
 * pass straight on.
 */
export function guardedUploads({ authenticator }: Services, upload: RequestHandler): RequestHandler {
  const guard: RequestHandler = async (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    if (!req.get('apollo-require-preflight') && !req.get('x-apollo-operation-name')) {
      throw new AppError(
        ErrorCode.VALIDATION_FAILED,
        msg('graphql.preflightRequired'),
      );
    }
    res.locals.principal = await authenticator.authenticate(req.get('authorization'));
    // Gone meanwhile: graphql-upload listens for a 'close' that has passed, and would wait forever.
    if (req.destroyed && !req.complete) throw parserError('multipart.aborted');
    upload(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      // Refused before a byte was read (busboy found no boundary): graphql-upload holds any answer
      // until the body has ended, so the body is read and dropped, as graphql-upload does itself
      // when it refuses one halfway.
      if (req.readableFlowing === null) req.resume();
      next(fromUpload(error));
    });
  };
  return (req, res, next) => (mayBeMultipart(req) ? guard(req, res, next) : next());
}

/**
 * graphql-upload fails a request only for what the client sent (see uploadErrorKind); what its 400s
 * say of the multipart spec is passed on.
 */
function fromUpload(error: unknown): AppError {
  const kind = uploadErrorKind(error);
  return parserError(kind, kind === 'multipart.request.invalid' ? (error as Error).message : undefined);
}

/**
 * False when the request is certainly not multipart: a cheap test that spares the JSON requests,
 * nearly all of them, the content-type parsing of `req.is()` (here and in graphql-upload).
 */
function mayBeMultipart(req: Request): boolean {
  return /multipart/i.test(req.headers['content-type'] ?? '');
}

/** Failures before Apollo runs (body too large, bad JSON, refused upload) in the GraphQL response shape. */
export function graphqlErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (leftByClient(error, res)) return;
    const appError = toHttpAppError(error);
    if (isServerFault(appError)) {
      logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'graphql request failed');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendDocument(res, graphqlErrorDocument(appError, res.locals.requestId as string | undefined, localeOf(req)));
  };
}

/** An error of /graphql that Apollo never saw (it did not run, or the request timed out), in GraphQL's response shape with its HTTP status, in `locale`. */
export function graphqlErrorDocument(error: AppError, requestId: string | undefined, locale: Locale): ErrorDocument {
  const shown = publicError(error, locale);
  const extensions = { ...graphqlExtensions(shown), requestId };
  return { status: shown.status, headers: [...shown.headers, ...languageHeaders(locale)], contentType: 'application/json', body: JSON.stringify({ errors: [{ message: shown.message, extensions }] }) };
}

/**
 * Refuses documents of more than `maxTokens` tokens before Apollo parses them (a lexer-level
 * limit of graphql-js). A document cannot have more tokens than characters, so shorter ones skip
 * the check; syntax errors are left to Apollo, which answers them as usual.
 */
export function limitTokens(maxTokens: number): RequestHandler {
  return (req, _res, next) => {
    const query: unknown = req.body?.query;
    if (typeof query !== 'string' || query.length <= maxTokens) return next();
    try {
      parse(query, { maxTokens, noLocation: true });
    } catch (error) {
      if (error instanceof GraphQLError && /tokens/.test(error.message)) {
        throw new AppError(ErrorCode.VALIDATION_FAILED, msg('graphql.tooManyTokens', { max: String(maxTokens) }));
      }
    }
    next();
  };
}
