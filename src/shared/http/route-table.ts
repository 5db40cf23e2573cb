import type { Express, Response } from 'express';

/**
 * A layer of Express's router stack, as far as it is read here. In router 2 (Express 5),
 * `Layer#match` is pure: it returns what matched without storing anything on the layer.
 */
interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  handle?: { stack?: Layer[] };
  match(path: string): { path: string } | false;
}

/** A path template of the app and what its routes serve there together. */
export interface RouteTemplate {
  /** The full template, written as in the OpenAPI document: `/api/v1/users/me/sessions/{id}`. */
  path: string;
  /** The methods served, as the Allow header lists them (and Express's own answer to OPTIONS). */
  allow: string;
}

interface Entry {
  template: string;
  methods: string[];
  /** The mounts the route is reached through, from the app's router down, then the route's own layer. */
  layers: Layer[];
}

/**
 * The app's route table, read once from the built app's router stack (mount prefixes + route paths):
 * the template of each route object, for the request metric's label, and, for the requests no route
 * served, which templates a path falls under and the methods they serve.
 */
export class RouteTable {
  private readonly entries: Entry[] = [];
  private readonly templates = new WeakMap<object, string>();

  constructor(app: Express) {
    const walk = (stack: Layer[], mounts: Layer[], prefix: string): void => {
      for (const layer of stack) {
        if (layer.route && typeof layer.route.path === 'string') {
          const template = openApiPath(`${prefix}${layer.route.path}`);
          if (!this.templates.has(layer.route)) this.templates.set(layer.route, template);
          this.entries.push({ template, methods: methodsOf(layer.route.methods), layers: [...mounts, layer] });
        } else if (layer.handle?.stack) {
          walk(layer.handle.stack, [...mounts, layer], `${prefix}${typeof layer.rawPath === 'string' ? layer.rawPath : ''}`);
        }
      }
    };
    walk((app as unknown as { router: { stack: Layer[] } }).router.stack, [], '');
  }

  /** The template of a route object Express leaves on the request it routed (`req.route`): a map lookup. */
  templateOf(route: object): string | undefined {
    return this.templates.get(route);
  }

  /**
   * The template `path` falls under (the first route Express would try) and the methods of every
   * route that matches it, matched by the routers' own layers (letter case, trailing slash and
   * parameters as Express routes them); undefined when no route has the path. Each route is a
   * regular-expression test: this is for requests that no route served, never for the others.
   */
  match(path: string): RouteTemplate | undefined {
    let first: string | undefined;
    const methods = new Set<string>();
    for (const entry of this.entries) {
      if (!reaches(entry.layers, path)) continue;
      first ??= entry.template;
      for (const method of entry.methods) methods.add(method);
    }
    return first === undefined ? undefined : { path: first, allow: [...methods].sort().join(', ') };
  }
}

/** Whether `path` gets through each mount (a prefix ending at a segment) to the route's own layer, as the router dispatches it. */
function reaches(layers: Layer[], path: string): boolean {
  let rest = path;
  for (let i = 0; i < layers.length; i++) {
    let found: { path: string } | false;
    try {
      found = layers[i]!.match(rest);
    } catch {
      // A parameter that is not valid percent-encoding: the router refuses such a path (400) before
      // any route runs, so it never gets here from a route's dispatch.
      return false;
    }
    if (!found) return false;
    if (i === layers.length - 1) return true;
    rest = rest.slice(found.path.length);
    if (rest !== '' && !rest.startsWith('/')) return false;
    rest ||= '/';
  }
  return false;
}

/** A route's methods in upper case, with HEAD wherever GET is: Express answers HEAD from GET routes. */
function methodsOf(methods: Record<string, boolean | undefined>): string[] {
  const served = Object.keys(methods)
    .filter((method) => method !== '_all' && methods[method])
    .map((method) => method.toUpperCase());
  if (served.includes('GET') && !served.includes('HEAD')) served.push('HEAD');
  return served;
}

/** `/users/:id` -> `/users/{id}`, the form of the OpenAPI document. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

const ANSWERED_FOR = Symbol('route template');

/**
 * Records that `res` answers for `template` although no route served it (a method the path does not
 * serve, a body that did not arrive in time), so that the request metric counts it under the
 * template rather than as unmatched.
 */
export function answeredFor(res: Response, template: string): void {
  (res.locals as { [ANSWERED_FOR]?: string })[ANSWERED_FOR] = template;
}

/** The template `answeredFor` recorded for `res`, if any. */
export function templateAnsweredFor(res: Response): string | undefined {
  return (res.locals as { [ANSWERED_FOR]?: string })[ANSWERED_FOR];
}
