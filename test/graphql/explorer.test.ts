// GET /graphql in a browser: GraphiQL with every file served by the service (it works offline),
// Apollo Sandbox one link or one setting away, and nothing at all in production.
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { HttpResult } from '../helpers/http.js';
import { type TestServer, useTestServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// CI installs Chromium, so there a missing browser fails the test; elsewhere it is skipped, saying so.
const skipBrowser = !existsSync(CHROMIUM) && !process.env.CI;
if (skipBrowser) console.warn(`${CHROMIUM} not found: the GraphiQL browser test is skipped (apt-get install chromium to run it)`);
const inBrowser = skipBrowser ? it.skip : it;

/** What a browser sends when it navigates to a page. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' };
const QUERY = '{ config { registrationEnabled } }';

const openPage = (t: TestServer, query = '') => t.http.get(`/graphql${query}`, { headers: BROWSER });
const isGraphiql = (res: HttpResult) => res.status === 200 && /^text\/html/.test(res.headers.get('content-type') ?? '') && String(res.body).includes('<div id="graphiql">');
const isSandbox = (res: HttpResult) => res.status === 200 && /^text\/html/.test(res.headers.get('content-type') ?? '') && String(res.body).includes('embeddable-sandbox.cdn.apollographql.com');

/** The page's scripts and styles, in the order it loads them. */
function filesOf(html: string): { scripts: string[]; styles: string[] } {
  return {
    scripts: [...html.matchAll(/<script[^>]* src="([^"]+)"/g)].map((m) => m[1]!),
    styles: [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!),
  };
}

function expectLocalOnlyCsp(res: HttpResult): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/https?:|\*/);
}

// Outside production, with the default setting.
const t = useTestServer();

describe('GraphQL explorer outside production', () => {
  inBrowser(
    'runs a query in GraphiQL with every file from this server, nothing blocked or failing',
    async () => {
      if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install -y chromium)`);
      const profile = mkdtempSync(join(tmpdir(), 'explorer-chromium-'));
      const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      try {
        const origin = new URL(t.url).origin;
        const elsewhere: string[] = [];
        await browser.route('**/*', (route) => {
          const url = route.request().url();
          if (new URL(url).origin === origin) return route.continue();
          elsewhere.push(url);
          return route.abort('blockedbyclient');
        });
        const page = browser.pages()[0] ?? (await browser.newPage());
        // Chromium reports a CSP violation as a console error too; the event names the directive.
        const problems: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
        await page.addInitScript({
          content: `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));`,
        });

        expect((await page.goto(`${t.url}/graphql`))?.status()).toBe(200);
        const editor = page.locator('.graphiql-query-editor .CodeMirror');
        await editor.waitFor();
        expect(await page.locator('a[href="?explorer=sandbox"]').isVisible()).toBe(true);

        await editor.click();
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.type(QUERY);
        expect(await page.evaluate(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()`)).toBe(QUERY);
        await page.locator('.graphiql-execute-button').click();
        const result = page.locator('.result-window', { hasText: '"registrationEnabled": true' });
        await result.waitFor({ timeout: 15_000 });
        expect(await result.innerText()).toContain('"registrationEnabled": true');

        // GraphiQL's dialogs lock scrolling with a <style> element of their own: the CSP must let it in.
        await page.locator('[aria-label="Open settings dialog"]').click();
        await page.getByRole('dialog').getByText('Clear storage').waitFor();
        await page.keyboard.press('Escape');

        expect(elsewhere).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it('answers a browser with a GraphiQL page that may load from this server only, and is never cached', async () => {
    const res = await openPage(t);
    expect(isGraphiql(res)).toBe(true);
    expectLocalOnlyCsp(res);
    expect({ cacheControl: res.headers.get('cache-control'), frame: res.headers.get('x-frame-options') }).toEqual({ cacheControl: 'no-store', frame: 'DENY' });
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(res.body).not.toMatch(/<script>|<style|style="/);
  });

  it("serves GraphiQL's and React's files from their packages, cached for good, with script and style types", async () => {
    const { scripts, styles } = filesOf((await openPage(t)).body);
    const names = (urls: string[]) => urls.map((url) => url.split('/').pop());
    expect(names(styles)).toEqual(['graphiql.min.css', 'explorer.css']);
    expect(names(scripts)).toEqual(['react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js', 'explorer.js']);
    for (const url of [...scripts, ...styles]) {
      expect(url).toMatch(/^\/graphql\/explorer\//);
      const res = await t.http.get(url);
      expect({ url, status: res.status, type: res.headers.get('content-type')?.split(';')[0], cacheControl: res.headers.get('cache-control') }).toEqual({
        url,
        status: 200,
        type: url.endsWith('.css') ? 'text/css' : 'text/javascript',
        cacheControl: 'public, max-age=31536000, immutable',
      });
      expectLocalOnlyCsp(res);
    }
    const packaged = { 'react.production.min.js': 'react/umd/', 'react-dom.production.min.js': 'react-dom/umd/', 'graphiql.min.js': 'graphiql/' } as const;
    for (const [name, dir] of Object.entries(packaged)) {
      const body = (await t.http.get(scripts.find((url) => url.endsWith(`/${name}`))!)).body;
      expect(body === readFileSync(join('node_modules', dir, name), 'utf8')).toBe(true);
    }
    const unknown = await t.http.get(scripts[0]!.replace(/[^/]+$/, 'react.development.js'));
    expect({ status: unknown.status, code: unknown.body?.code ?? unknown.body?.errors?.[0]?.extensions?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it('leaves GET queries and GETs from non-browsers to Apollo, answered in JSON and never cached', async () => {
    const query = await t.http.get(`/graphql?query=${encodeURIComponent(QUERY)}`, { headers: { 'apollo-require-preflight': 'true', accept: 'application/json' } });
    expect({ status: query.status, data: query.body.data, cacheControl: query.headers.get('cache-control') }).toEqual({
      status: 200,
      data: { config: { registrationEnabled: true } },
      cacheControl: 'no-store',
    });
    const curl = await t.http.get('/graphql', { headers: { accept: '*/*' } });
    expect({ type: curl.headers.get('content-type')?.split(';')[0], cacheControl: curl.headers.get('cache-control') }).toEqual({ type: 'application/json', cacheControl: 'no-store' });
  });

  it("opens Apollo Sandbox from the page's link, with Apollo's servers allowed and framing still refused", async () => {
    expect((await openPage(t)).body).toContain('<a href="?explorer=sandbox">');
    const sandbox = await openPage(t, '?explorer=sandbox');
    expect(isSandbox(sandbox)).toBe(true);
    const csp = sandbox.headers.get('content-security-policy');
    expect(csp).toContain('https://*.apollographql.com');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(sandbox.headers.get('cache-control')).toBe('no-store');
  });
});

describe('GRAPHQL_EXPLORER=sandbox', () => {
  const sandbox = useTestServer({ GRAPHQL_EXPLORER: 'sandbox' });

  it('shows Apollo Sandbox on GET /graphql, and GraphiQL when asked', async () => {
    expect(isSandbox(await openPage(sandbox))).toBe(true);
    expect(isGraphiql(await openPage(sandbox, '?explorer=graphiql'))).toBe(true);
  });
});

describe.each([
  ['GRAPHQL_EXPLORER=off', { GRAPHQL_EXPLORER: 'off' }],
  ['production', { NODE_ENV: 'production' }],
])('%s', (_label, env) => {
  const off = useTestServer(env);

  it('shows no explorer, neither page nor files', async () => {
    const { scripts, styles } = filesOf((await openPage(t)).body);
    expect(scripts.length + styles.length).toBeGreaterThan(0);
    /** What the GraphQL endpoint answers instead: a GraphQL error of the closed catalogue. */
    const answer = (res: HttpResult) => ({
      status: res.status,
      type: res.headers.get('content-type')?.split(';')[0],
      codes: (res.body?.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code),
    });
    const refused = { status: 400, type: 'application/json', codes: ['VALIDATION_FAILED'] };
    for (const query of ['', '?explorer=graphiql', '?explorer=sandbox']) {
      expect({ query, ...answer(await openPage(off, query)) }).toEqual({ query, ...refused });
    }
    for (const url of [...scripts, ...styles]) expect({ url, ...answer(await off.http.get(url)) }).toEqual({ url, ...refused });
  });
});
