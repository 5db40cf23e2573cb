import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** The content types of the lean path: JSON in UTF-8, as every GraphQL client sends it. */
export const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/**
 * POST /graphql, nearly every GraphQL request, without the router: Express's router would walk its
 * layers, trim the mount's prefix and allocate its dispatch state, and body-parser would parse the
 * content type, look up its charset and stream the body through raw-body, for a request whose shape
 * is known from three headers. Together that was about a sixth of the CPU of a `{ me }`.
 *
 * Only a request with nothing to decide takes it: exactly `/graphql` (no query string), JSON in
 * UTF-8, not compressed, with a Content-Length from 1 byte to `limitBytes`. Any other request,
 * including every one that is refused for its body's framing, goes through Express as before. The
 * lean path runs the very handlers of the /graphql mount (`front`: the ones every request passes
 * through, then the mount's, from the method check to Apollo), with the request and response
 * prepared as Express prepares them, and its failures go to the mount's error handler: the answers
 * are the same, byte for byte (test/graphql/fast-path.test.ts compares them).
 *
 * Returns the Node request listener: the lean path, or Express.
 */
export function withGraphqlFastPath(
  app: Express,
  { front, early, beforeBody, afterBody, onError, limitBytes }: GraphqlMount,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (!isPlainGraphqlPost(req, limitBytes)) {
      app(req, res);
      return;
    }
    const { request, response } = asExpress(app, req, res);
    // What the /graphql mount leaves.
    request.originalUrl = '/graphql';
    request.baseUrl = '/graphql';
    request.url = '/';
    const fail: NextFunction = (error?: unknown) => onError(error ?? new Error('POST /graphql was not answered'), request, response, fail);
    front(request, response, (error?: unknown) => {
      if (error) return fail(error);
      early?.(request, response);
      beforeBody(request, response, (refused?: unknown) => {
        if (refused) return fail(refused);
        readJson(request, (bodyError) => (bodyError ? fail(bodyError) : afterBody(request, response, fail)));
      });
    });
  };
}

/** The request and response as app.handle prepares them for the router. */
function asExpress(app: Express, req: IncomingMessage, res: ServerResponse): { request: Request; response: Response } {
  const request = req as Request;
  const response = res as Response;
  request.res = response;
  response.req = request;
  Object.setPrototypeOf(request, app.request);
  Object.setPrototypeOf(response, app.response);
  response.locals = Object.create(null) as Response['locals'];
  return { request, response };
}

/** A route answered past the router: where Express would find it, and its handlers. */
export interface LeanRoute {
  /** The request target it takes (exactly: no query string), e.g. `/api/v1/users/me`. */
  path: string;
  /** Its mount's prefix (`/api/v1/users`) and the route's path under it (`/me`). */
  baseUrl: string;
  routePath: string;
  /** The Route object Express matches (req.route: the metrics' route label). */
  route: object;
  /** The mount's handlers (its body parser and input guard). */
  mount: RequestHandler;
  /** The route's handlers. */
  handlers: RequestHandler;
  /** The app's error handler, where the route's failures go in Express too. */
  onError: ErrorRequestHandler;
}

/**
 * A GET of one route without a body (GET /api/v1/users/me, the request every frontend sends first),
 * past the router: what every request passes through first (`front`), then the mount's handlers and
 * the route's, with the request prepared as the router prepares it, and its failures handed to the
 * app's error handler with the URL restored, as Express unwinds its mounts. Any other request goes
 * to `next`. The answers are the same, byte for byte (test/rest/lean-route.test.ts compares them).
 */
export function withLeanGet(
  app: Express,
  front: RequestHandler,
  { path, baseUrl, routePath, route, mount, handlers, onError }: LeanRoute,
  next: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const { headers } = req;
    if (req.method !== 'GET' || req.url !== path || headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) {
      next(req, res);
      return;
    }
    const { request, response } = asExpress(app, req, res);
    request.originalUrl = path;
    request.baseUrl = '';
    const fail: NextFunction = (error?: unknown) => {
      request.url = path;
      request.baseUrl = '';
      onError(error ?? new Error(`GET ${path} was not answered`), request, response, fail);
    };
    front(request, response, (error?: unknown) => {
      if (error) return fail(error);
      request.baseUrl = baseUrl;
      request.url = routePath;
      mount(request, response, (refused?: unknown) => {
        if (refused) return fail(refused);
        request.params = {};
        (request as { route?: object }).route = route;
        handlers(request, response, fail);
      });
    });
  };
}

/** The handlers of the /graphql mount, in the order Express runs them, around its JSON body parser. */
export interface GraphqlMount {
  /** What every request passes through first (request id, access log, security and CORS headers). */
  front: RequestHandler;
  /**
   * Work begun once the headers passed `front`, to go on while the body is read and parsed (the
   * session check, whose round trip to the database is most of a request's time).
   */
  early?: (req: Request, res: Response) => void;
  /** The mount's handlers before its body parser. */
  beforeBody: RequestHandler;
  /** The mount's handlers after it, Apollo last. */
  afterBody: RequestHandler;
  /** The mount's error handler. */
  onError: ErrorRequestHandler;
  /** The body parser's limit. */
  limitBytes: number;
}

function isPlainGraphqlPost(req: IncomingMessage, limitBytes: number): boolean {
  if (req.method !== 'POST' || req.url !== '/graphql') return false;
  const { headers } = req;
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_JSON.has(type.toLowerCase())) return false;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
  const length = headers['content-length'];
  if (length === undefined || !/^[0-9]{1,7}$/.test(length)) return false;
  const bytes = Number(length);
  return bytes > 0 && bytes <= limitBytes;
}

/** A body failure, as body-parser names it (its `type` is what the error handlers map). */
class BodyError extends Error {
  readonly expose = true;
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads the body whose length Node's parser holds to Content-Length, and parses it as body-parser's
 * `json()` does: UTF-8, a byte-order mark dropped, strict (an object or an array), `req.body` set.
 */
function readJson(req: Request, done: (error?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let settled = false;
  const finish = (error?: unknown) => {
    if (settled) return;
    settled = true;
    req.off('data', onData).off('end', onEnd).off('aborted', onAborted).off('error', onFailed);
    done(error);
  };
  const onData = (chunk: Buffer) => chunks.push(chunk);
  const onEnd = () => {
    let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const first = /^[\x20\x09\x0a\x0d]*(.)/s.exec(text)?.[1];
    if (first !== '{' && first !== '[') return finish(new BodyError(400, 'entity.parse.failed', 'The body is not a JSON object or array'));
    try {
      req.body = JSON.parse(text) as unknown;
    } catch (error) {
      return finish(new BodyError(400, 'entity.parse.failed', error instanceof Error ? error.message : 'The body is not valid JSON'));
    }
    (req as { _body?: boolean })._body = true;
    finish();
  };
  const onAborted = () => finish(Object.assign(new BodyError(400, 'request.aborted', 'request aborted'), { code: 'ECONNABORTED' }));
  const onFailed = (error: unknown) => finish(error);
  req.on('data', onData).on('end', onEnd).on('aborted', onAborted).on('error', onFailed);
}
