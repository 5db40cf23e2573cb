import type { Request, Response } from 'express';
import { templateAnsweredFor, type RouteTable } from '../http/route-table.js';
import type { Metrics } from './metrics.js';

/** The `route` of a request that no route template matched (unknown paths, bodies refused before routing). */
const UNMATCHED_ROUTE = '(unmatched)';

/** The `method` of a request whose headers never arrived whole: it cannot be known. */
const UNKNOWN_METHOD = '(unknown)';

/** The GraphQL endpoint is a mount, not a route: every request under it is one series. */
const GRAPHQL = '/graphql';

/**
 * The `http_server_request_duration_seconds` side of the access log (request-context.ts calls it as
 * a response settles). The route label is the template of the Express route that served the request,
 * written as in the OpenAPI document (`/api/v1/admin/users/{id}`), looked up by the route object
 * Express leaves on the request: the templates are read once from the app's route table, so a request
 * costs a map lookup, never a look at its path. A request that no route served (404, a body refused
 * before routing, a router-wide guard) is UNMATCHED_ROUTE, unless its answer names the template it
 * answered for (a method the path does not serve: 405; a body that did not arrive in time: 408);
 * /graphql is one route.
 */
export class HttpMetrics {
  private routes: RouteTable | undefined;

  constructor(private readonly metrics: Metrics) {}

  /** The app's route table, once the app is built. */
  learnRoutes(routes: RouteTable): void {
    this.routes = routes;
  }

  /** `status`: the response's, or 'aborted' when the client left before it was written. */
  finished(req: Request, res: Response, seconds: number, aborted: boolean): void {
    this.metrics.requestFinished(req.method, this.routeOf(req, res), aborted ? 'aborted' : String(res.statusCode), seconds);
  }

  /** A request that timed out before its headers arrived whole: nothing routed it, nor is its method known. */
  timedOutBeforeHeaders(seconds: number): void {
    this.metrics.requestFinished(UNKNOWN_METHOD, UNMATCHED_ROUTE, '408', seconds);
  }

  private routeOf(req: Request, res: Response): string {
    const route = (req as { route?: object }).route;
    if (route) return this.routes?.templateOf(route) ?? UNMATCHED_ROUTE;
    const url = req.originalUrl;
    if (url.startsWith(GRAPHQL) && (url.length === GRAPHQL.length || '?/'.includes(url[GRAPHQL.length]!))) return GRAPHQL;
    return templateAnsweredFor(res) ?? UNMATCHED_ROUTE;
  }
}
