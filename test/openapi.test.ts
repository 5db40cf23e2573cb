import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import { OPERATIONS } from '../src/openapi/document.js';
import { send } from './avatar/support.js';
import { useTestServer } from './helpers/server.js';

const t = useTestServer({ INTERNAL_API_KEY: 'internal-key-of-at-least-32-characters!!' });

/** Every (method, path) Express really routes, path parameters written the OpenAPI way. */
function routesOf(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: { rawPath?: string; route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: unknown[] } }[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          found.push(`${method} ${`${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}')}`);
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack as never, `${prefix}${layer.rawPath ?? ''}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: never } }).router.stack, '');
  return [...new Set(found)].sort();
}

describe('OpenAPI document', () => {
  it('is served at /api/v1/openapi.json and is a valid OpenAPI 3.1 document', async () => {
    const res = await t.http.get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
  });

  it('carries an ETag and answers a matching If-None-Match with 304 and no body', async () => {
    // Over node:http: fetch adds Cache-Control: no-cache to a conditional request, which rightly forbids a 304.
    const get = (headers: Record<string, string> = {}) => send(`${t.url}/api/v1/openapi.json`, 'GET', headers);
    const etag = (await get()).headers.etag!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await get({ 'if-none-match': etag });
    expect({ status: again.status, etag: again.headers.etag, body: again.raw.length }).toEqual({ status: 304, etag, body: 0 });
    expect((await get({ 'if-none-match': '"stale"' })).status).toBe(200);
    expect((await get({ 'if-none-match': etag, 'cache-control': 'no-cache' })).status).toBe(200);
  });

  it('lists every REST route of the app, and no route the app does not have', async () => {
    const documented = OPERATIONS.map((op) => `${op.method} ${op.path}`).sort();
    // The operator console's page and files are served beside the API, not part of it.
    const routed = routesOf(t.server.express).filter((route) => !/^get \/console(\/|$)/.test(route));
    expect(routed.length).toBeGreaterThan(15);
    expect(routed).toEqual(documented);
  });
});
