// A known path asked with a method it does not serve: 405 METHOD_NOT_ALLOWED with an Allow header, on
// every route Express has and on /graphql; an unknown path stays 404.
import { describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import { errorOf } from '../graphql/support.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { scrape } from '../metrics/support.js';
import { expectProblem } from '../rest/support.js';

const INTERNAL_KEY = 'internal-key-of-at-least-32-characters!!';
const t = useTestServer({ INTERNAL_API_KEY: INTERNAL_KEY, METRICS_PORT: '0' });

/** What a path parameter is given: any value matches, a UUID is what most of them take. */
const SAMPLE_PARAMETER = 'e7c6ef1b-5a4b-4c3d-9e2f-0a1b2c3d4e5f';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface ListedRoute {
  path: string;
  methods?: string[];
  router?: { listRoutes(): ListedRoute[] };
}

/**
 * Express's own listing of the app's routes (Router#listRoutes, mounted routers followed): each full
 * path template with the methods its routes serve, HEAD included where GET is.
 */
function routeTable(app: Express): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>();
  const walk = (router: { listRoutes(): ListedRoute[] }, prefix: string) => {
    for (const { path, methods, router: mounted } of router.listRoutes()) {
      if (mounted) walk(mounted, `${prefix}${path}`);
      else if (methods) {
        const served = table.get(`${prefix}${path}`) ?? new Set<string>();
        for (const method of methods) served.add(method);
        table.set(`${prefix}${path}`, served);
      }
    }
  };
  walk((app as unknown as { router: { listRoutes(): ListedRoute[] } }).router, '');
  return table;
}

const concrete = (template: string) => template.replace(/:\w+/g, SAMPLE_PARAMETER);

/**
 * The Allow of `path`: the methods of every template that matches it, as Express matches (a parameter
 * is one segment, any letter case, an optional trailing slash). `/users/me/passkeys/registration-options`
 * is also a passkey `{id}`, so DELETE and PATCH are served there too.
 */
function allowAt(table: Map<string, Set<string>>, path: string): string {
  const methods = new Set<string>();
  for (const [template, served] of table) {
    const pattern = template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+');
    if (new RegExp(`^${pattern}/?$`, 'i').test(path)) for (const method of served) methods.add(method);
  }
  return [...methods].sort().join(', ');
}
const send = (method: string, path: string, headers: Record<string, string> = {}) =>
  t.http.request(method, path, { headers: { 'x-internal-key': INTERNAL_KEY, ...headers } });

function expectMethodNotAllowed(res: HttpResult, allow: string, label: string) {
  expect({ label, status: res.status, allow: res.headers.get('allow') }).toEqual({ label, status: 405, allow });
  expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
}

describe('a known path with a method it does not serve', () => {
  it('is 405 METHOD_NOT_ALLOWED with the methods the path serves in Allow, for every route of the route table', async () => {
    const table = routeTable(t.server.express);
    expect(table.size).toBeGreaterThan(40);
    let asked = 0;
    for (const template of table.keys()) {
      const path = concrete(template);
      const allow = allowAt(table, path);
      for (const method of METHODS.filter((m) => !allow.split(', ').includes(m))) {
        expectMethodNotAllowed(await send(method, path), allow, `${method} ${template}`);
        asked += 1;
      }
    }
    expect(asked).toBeGreaterThan(150);
  });

  it('answers PUT /api/v1/users/me with 405 and Allow: DELETE, GET, HEAD, PATCH, signed in or not', async () => {
    expectMethodNotAllowed(await t.http.request('PUT', '/api/v1/users/me'), 'DELETE, GET, HEAD, PATCH', 'PUT /users/me');
    expectMethodNotAllowed(await t.http.request('PUT', '/api/v1/users/me', { token: 'garbage' }), 'DELETE, GET, HEAD, PATCH', 'PUT /users/me with a token');
    expectMethodNotAllowed(await t.http.request('DELETE', '/api/v1/auth/config'), 'GET, HEAD', 'DELETE /auth/config');
    expectMethodNotAllowed(await t.http.request('GET', '/api/v1/auth/login'), 'POST', 'GET /auth/login');
  });

  it('matches paths as Express routes them: any letter case, a trailing slash', async () => {
    expectMethodNotAllowed(await t.http.request('PUT', '/API/V1/Users/ME/'), 'DELETE, GET, HEAD, PATCH', 'PUT /API/V1/Users/ME/');
    expectMethodNotAllowed(await t.http.request('POST', `/api/v1/avatars/${SAMPLE_PARAMETER}.webp/`), 'GET, HEAD', 'POST an avatar');
  });

  it('is 405 to HEAD on a route without GET, with Allow and no body', async () => {
    const res = await t.http.request('HEAD', '/api/v1/auth/login');
    expect({ status: res.status, allow: res.headers.get('allow'), type: res.headers.get('content-type'), body: res.body }).toEqual({
      status: 405,
      allow: 'POST',
      type: expect.stringMatching(/^application\/problem\+json/),
      body: '',
    });
  });

  it('keeps serving HEAD wherever GET is served', async () => {
    for (const path of ['/api/v1/auth/config', '/healthz', '/api/v1/openapi.json', '/.well-known/jwks.json']) {
      const res = await t.http.request('HEAD', path);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 200, body: '' });
    }
  });

  it('answers a plain OPTIONS (no CORS preflight) with 200 and the same Allow as the 405', async () => {
    const table = routeTable(t.server.express);
    for (const template of table.keys()) {
      const res = await send('OPTIONS', concrete(template));
      expect({ template, status: res.status, allow: res.headers.get('allow') }).toEqual({ template, status: 200, allow: allowAt(table, concrete(template)) });
    }
  });

  it('counts the 405 under the route template, never the raw path', async () => {
    const key = `${SAMPLE_PARAMETER}.webp`;
    const before = await scrape(t);
    await t.http.request('PUT', '/api/v1/users/me');
    await t.http.request('DELETE', `/api/v1/avatars/${key}`);
    const after = await scrape(t);
    const count = (labels: Record<string, string>) =>
      after.value('http_server_request_duration_seconds_count', labels) - before.value('http_server_request_duration_seconds_count', labels);
    expect({
      me: count({ method: 'PUT', route: '/api/v1/users/me', status: '405' }),
      avatar: count({ method: 'DELETE', route: '/api/v1/avatars/{key}', status: '405' }),
      unmatched: count({ route: '(unmatched)', status: '405' }),
    }).toEqual({ me: 1, avatar: 1, unmatched: 0 });
    expect(after.text).not.toContain(key);
  });
});

describe('an unknown path', () => {
  it.each([
    ['GET', '/api/v1/nope'],
    ['PUT', '/api/v1/users/nope'],
    ['DELETE', '/api/v1/users/me/nope'],
    ['POST', '/nope'],
    ['OPTIONS', '/api/v1/nope'],
  ])('stays 404 NOT_FOUND for %s %s, without Allow', async (method, path) => {
    const res = await t.http.request(method, path);
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.headers.get('allow')).toBeNull();
  });
});

describe('/graphql', () => {
  it.each(['PUT', 'DELETE', 'PATCH'])('answers %s with 405 METHOD_NOT_ALLOWED, Allow: GET, POST, in the GraphQL error shape', async (method) => {
    const res = await t.http.request(method, '/graphql', { body: { query: '{ __typename }' } });
    expect({ status: res.status, allow: res.headers.get('allow'), type: res.headers.get('content-type') }).toEqual({
      status: 405,
      allow: 'GET, POST',
      type: expect.stringMatching(/^application\/json/),
    });
    const error = errorOf(res, 'METHOD_NOT_ALLOWED');
    expect(error.extensions?.requestId).toBe(res.headers.get('x-request-id'));
  });

  it("answers the same under /graphql, the explorer's files included: the mount is Apollo's", async () => {
    const page = await (await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    const script = /src="(\/graphql\/explorer\/[^"]+\.js)"/.exec(page)![1]!;
    expect((await t.http.get(script)).status).toBe(200);
    for (const [method, path] of [['PUT', script], ['DELETE', script], ['HEAD', '/graphql'], ['PATCH', '/graphql/']]) {
      const res = await t.http.request(method!, path!);
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({ method, path, status: 405, allow: 'GET, POST' });
      if (method !== 'HEAD') expect(errorOf(res, 'METHOD_NOT_ALLOWED').extensions?.requestId).toBe(res.headers.get('x-request-id'));
    }
  });

  it('answers a plain OPTIONS with 200 and Allow: GET, POST, like the REST routes', async () => {
    const res = await t.http.request('OPTIONS', '/graphql');
    expect({ status: res.status, allow: res.headers.get('allow') }).toEqual({ status: 200, allow: 'GET, POST' });
  });

  it('counts the 405 under /graphql', async () => {
    const before = await scrape(t);
    await t.http.request('PUT', '/graphql');
    const after = await scrape(t);
    const labels = { method: 'PUT', route: '/graphql', status: '405' };
    expect(after.value('http_server_request_duration_seconds_count', labels) - before.value('http_server_request_duration_seconds_count', labels)).toBe(1);
  });
});
