import type { Express } from 'express';

/** A layer of Express's router stack, as far as it is read here. */
interface Layer {
  rawPath?: unknown;
  route?: { path: unknown };
  handle?: { stack?: Layer[] };
}

/**
 * The app's route table, read once from the built app's router stack (mount prefixes + route paths):
 * the template of each route object, for the request metric's label.
 */
export class RouteTable {
  private readonly templates = new WeakMap<object, string>();

  constructor(app: Express) {
    const walk = (stack: Layer[], prefix: string): void => {
      for (const layer of stack) {
        if (layer.route && typeof layer.route.path === 'string') {
          const template = openApiPath(`${prefix}${layer.route.path}`);
          if (!this.templates.has(layer.route)) this.templates.set(layer.route, template);
        } else if (layer.handle?.stack) {
          walk(layer.handle.stack, `${prefix}${typeof layer.rawPath === 'string' ? layer.rawPath : ''}`);
        }
      }
    };
    walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  }

  /** The template of a route object Express leaves on the request it routed (`req.route`): a map lookup. */
  templateOf(route: object): string | undefined {
    return this.templates.get(route);
  }
}

/** `/users/:id` -> `/users/{id}`, the form of the OpenAPI document. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
