import type { Express, Request, Response } from 'express';
import type { Metrics } from './metrics.js';

/** The `route` of a request that no route template matched (unknown paths, bodies refused before routing). */
const UNMATCHED_ROUTE = '(unmatched)';

type Layer = { rawPath?: unknown; route?: { path: unknown }; handle?: { stack?: Layer[] } };

/** The GraphQL endpoint is a mount, not a route: every request under it is one series. */
const GRAPHQL = '/graphql';

/**
 * The `http_server_request_duration_seconds` side of the access log (request-context.ts calls it as
 * a response settles). The route label is the template of the Express route that served the request,
 * written as in the OpenAPI document (`/api/v1/admin/users/{id}`), looked up by the route object
 * Express leaves on the request: the templates are learnt once from the app's router, so a request
 * costs a map lookup, never a look at its path. A request that no route served (404, a body refused
 * before routing, a router-wide guard) is UNMATCHED_ROUTE; /graphql is one route.
 */
export class HttpMetrics {
  private readonly templates = new WeakMap<object, string>();

  constructor(private readonly metrics: Metrics) {}

  /** Reads every route's full template from the built app (mount prefixes + route path). */
  learnRoutes(app: Express): void {
    const walk = (stack: Layer[], prefix: string): void => {
      for (const layer of stack) {
        const path = typeof layer.rawPath === 'string' ? layer.rawPath : '';
        if (layer.route && typeof layer.route.path === 'string') {
          if (!this.templates.has(layer.route)) this.templates.set(layer.route, openApiPath(`${prefix}${layer.route.path}`));
        } else if (layer.handle?.stack) {
          walk(layer.handle.stack, `${prefix}${path}`);
        }
      }
    };
    walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  }

  /** `status`: the response's, or 'aborted' when the client left before it was written. */
  finished(req: Request, res: Response, seconds: number, aborted: boolean): void {
    this.metrics.requestFinished(req.method, this.routeOf(req), aborted ? 'aborted' : String(res.statusCode), seconds);
  }

  private routeOf(req: Request): string {
    const route = (req as { route?: object }).route;
    if (route) return this.templates.get(route) ?? UNMATCHED_ROUTE;
    const url = req.originalUrl;
    return url.startsWith(GRAPHQL) && (url.length === GRAPHQL.length || '?/'.includes(url[GRAPHQL.length]!)) ? GRAPHQL : UNMATCHED_ROUTE;
  }
}

/** `/users/:id` -> `/users/{id}`, the form of the OpenAPI document. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
