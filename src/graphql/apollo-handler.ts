import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import type { KnownQueries } from './known-queries.js';

/**
 * Apollo Server behind Express, as `expressMiddleware` of @as-integrations/express5 does it, without
 * the URL parse of every request: the query string is only read by a GET, and is what follows the
 * path's `?`. The request's headers are handed on as they came, the answer's status, headers and body
 * written as Apollo gives them. With `known`, what Apollo answers may become a known query (see
 * KnownQueries, whose handler answers those before this one).
 */
export function apolloHandler<Context extends BaseContext>(
  apollo: ApolloServer<Context>,
  context: (req: Request, res: Response) => Promise<Context>,
  known?: KnownQueries,
): RequestHandler {
  apollo.assertStarted('apolloHandler()');
  return async (req, res) => {
    let made: Context | undefined;
    const contextOf = async () => (made = await context(req, res));
    const headers = new HeaderMap();
    for (const key in req.headers) {
      const value = req.headers[key];
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: searchOf(req.url), body: req.body as unknown },
      context: contextOf,
    });
    known?.learn(req, made as never, answer.status, answer.headers);
    for (const [key, value] of answer.headers) res.setHeader(key, value);
    res.statusCode = answer.status ?? 200;
    if (answer.body.kind === 'complete') {
      res.send(answer.body.string);
      return;
    }
    for await (const chunk of answer.body.asyncIterator) res.write(chunk);
    res.end();
  };
}

/** `?…` of a request target, up to any fragment; empty without one. */
function searchOf(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return '';
  const end = url.indexOf('#', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}
