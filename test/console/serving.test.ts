// The operator console as HTTP serves it (API.md 9.3): the built page at /console and at every path
// below it, its hashed files cached for good, a Content-Security-Policy that lets the page load and
// connect to this origin only, nothing inline; CONSOLE=off removes it. admin.test.ts,
// operators.test.ts and session.test.ts use it in Chromium.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { send } from '../avatar/support.js';
import { useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { CONSOLE_MANIFEST, consoleFiles } from './support.js';

const SAMPLE_ID = 'e7c6ef1b-5a4b-4c3d-9e2f-0a1b2c3d4e5f';
/** The page's policy, directive by directive. */
const CSP = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self'",
  'connect-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
};

function policyOf(header: string | null): Record<string, string> {
  return Object.fromEntries((header ?? '').split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values.join(' ')]));
}

describe('with the console on (the default)', () => {
  const t = useTestServer();

  it('serves the page at /console and at every address of its own (deep links), revalidated on each load, under a strict CSP', async () => {
    const page = await t.http.get('/console');
    for (const path of ['/console/', `/console/users/${SAMPLE_ID}`, '/console/audit', '/console/webhooks?status=DEAD', '/console/no/such/page']) {
      const res = await t.http.get(path);
      expect({ path, status: res.status, body: res.body === page.body }).toEqual({ path, status: 200, body: true });
    }
    expect({ status: page.status, type: page.headers.get('content-type'), cache: page.headers.get('cache-control'), frame: page.headers.get('x-frame-options') }).toEqual({
      status: 200,
      type: 'text/html; charset=utf-8',
      cache: 'no-cache',
      frame: 'DENY',
    });
    expect(policyOf(page.headers.get('content-security-policy'))).toEqual(CSP);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // Over node:http: fetch adds Cache-Control: no-cache to a conditional request, which rightly forbids a 304.
    const again = await send(`${t.url}/console`, 'GET', { 'if-none-match': page.headers.get('etag')! });
    expect({ status: again.status, body: again.raw.length }).toEqual({ status: 304, body: 0 });
    const head = await t.http.request('HEAD', '/console/users/x');
    expect({ status: head.status, body: head.body }).toEqual({ status: 200, body: '' });
  });

  it('holds nothing inline (no script or style element, no style or event attribute) and names no other origin', async () => {
    const html = (await t.http.get('/console')).body as string;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(consoleFiles(html).length).toBeGreaterThanOrEqual(3);
  });

  it('serves the files the page names from /console/assets/, each cached for good, and nothing else there', async () => {
    const html = (await t.http.get('/console')).body as string;
    for (const url of consoleFiles(html)) {
      expect(url).toMatch(/^\/console\/assets\/[\w.-]+-[\w-]{8}\.(js|css|svg)$/);
      const res = await t.http.get(url);
      expect({ url, status: res.status, cache: res.headers.get('cache-control') }).toEqual({ url, status: 200, cache: 'public, max-age=31536000, immutable' });
      expect(res.headers.get('content-type')).toMatch(url.endsWith('.js') ? /^text\/javascript/ : url.endsWith('.css') ? /^text\/css/ : /^image\/svg\+xml/);
    }
    for (const missing of ['/console/assets/index-00000000.js', '/console/assets/nested/file.js', '/console/assets/..%2Findex.html', '/console/persisted-documents.json/x']) {
      const res = await t.http.get(missing);
      if (missing.endsWith('/x')) expect(res.status).toBe(200); // an address of the page's own, like any other
      else expectProblem(res, 404, 'NOT_FOUND');
    }
  });

  it('answers other methods 405 with Allow: GET, HEAD', async () => {
    for (const path of ['/console', `/console/users/${SAMPLE_ID}`, '/console/assets/index.js']) {
      const res = await t.http.request('POST', path);
      expect({ path, allow: res.headers.get('allow') }).toEqual({ path, allow: 'GET, HEAD' });
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    }
  });

  it("ships the console's trusted-documents manifest beside the page (the operators' GRAPHQL_TRUSTED_DOCUMENTS), and never serves it", async () => {
    const generated = readFileSync(new URL('../../src/console/app/generated/persisted-documents.json', import.meta.url), 'utf8');
    expect(readFileSync(CONSOLE_MANIFEST, 'utf8')).toBe(generated);
    expect(Object.keys(JSON.parse(generated)).length).toBeGreaterThanOrEqual(15);
    expect((await t.http.get('/console/persisted-documents.json')).body).not.toContain('sha256:');
  });
});

describe('CONSOLE=off', () => {
  const t = useTestServer({ CONSOLE: 'off' });

  it('serves neither the page nor its files', async () => {
    for (const path of ['/console', '/console/users/x', '/console/assets/index.js']) expectProblem(await t.http.get(path), 404, 'NOT_FOUND');
  });
});

describe("GRAPHQL_TRUSTED_DOCUMENTS without the console's manifest", () => {
  const t = useTestServer({ GRAPHQL_TRUSTED_DOCUMENTS: new URL('../generated/client/persisted-documents.json', import.meta.url).pathname }, { captureLogs: true });

  it('is said at start: the console would be refused', () => {
    expect(t.logs()).toMatch(/GRAPHQL_TRUSTED_DOCUMENTS lacks some of the operator console's documents/);
  });
});
