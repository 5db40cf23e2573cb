// What the operator console's test files share: where its build is, the files its page names, and
// the console in Chromium (Debian's, driven by playwright-core as the passkey tests do) against the
// real service: a page that records every request it makes and every error it throws, axe-core's
// verdict on it, screenshots. How an operator drives the console is in drive.ts.
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { freePort } from '../operability/support.js';

/** The console's trusted-documents manifest as the build ships it, for GRAPHQL_TRUSTED_DOCUMENTS. */
export const CONSOLE_MANIFEST = fileURLToPath(new URL('../../dist/console/persisted-documents.json', import.meta.url));

/** The scripts, styles and icons a page names (src and href attributes). */
export function consoleFiles(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
}

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// CI installs Chromium, so there a missing browser fails the test; elsewhere it is skipped, saying so.
const skipBrowser = !existsSync(CHROMIUM) && !process.env.CI;
if (skipBrowser) console.warn(`${CHROMIUM} not found: the operator console's browser tests are skipped (apt-get install chromium to run them)`);
/** `it`, or `it.skip` where Chromium is missing outside CI. */
export const inBrowser = skipBrowser ? it.skip : it;

/**
 * Debian's Chromium, headless; undefined where it is missing outside CI (the tests are then skipped).
 * `lang`: the browser's language (`--lang`, and the languages it asks pages in), else English.
 */
export async function launchChromium(lang = 'en-US'): Promise<Browser | undefined> {
  if (skipBrowser) return undefined;
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install -y chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, `--lang=${lang}`, `--accept-lang=${lang}`] });
}


export interface ConsoleSuite {
  t: TestServer;
  /** The service's origin as the browser sees it, `http://localhost:<port>` (passkeys need the host name). */
  origin(): string;
  browser(): Browser;
}

/**
 * The file's service and browser: the real service on a port known before it starts, with the
 * console's trusted documents only (GRAPHQL_TRUSTED_DOCUMENTS=dist/console/persisted-documents.json:
 * every request of the console must be a document of its manifest), its own origin a passkey origin,
 * several codes a minute per phone, `env()` besides; and one Chromium for the file's tests.
 */
export function consoleSuite(env: () => Record<string, string> = () => ({}), options: { lang?: string } = {}): ConsoleSuite {
  let port = 0;
  let browser: Browser | undefined;
  beforeAll(async () => {
    port = await freePort();
    browser = await launchChromium(options.lang);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  const t = useTestServer(() => ({
    PORT: String(port),
    WEBAUTHN_ORIGINS: `http://localhost:${port}`,
    GRAPHQL_TRUSTED_DOCUMENTS: CONSOLE_MANIFEST,
    SEND_CODE_INTERVAL_SECONDS: '0',
    ...env(),
  }));
  return { t, origin: () => `http://localhost:${port}`, browser: () => browser! };
}

/** A page of a fresh browser context (no memory of another operator), and what it did. */
export interface Visit {
  page: Page;
  context: BrowserContext;
  /** Every URL the page requested, its scripts, styles, icons and GraphQL calls included (not what its CSP stopped: that never leaves). */
  requests: string[];
  /** The GraphQL operations it sent, by name, in order. */
  operations: string[];
  /** Those of them sent with the document's text rather than its hash alone. */
  withText: string[];
  /** Uncaught errors of the page's scripts. */
  errors: string[];
}

/**
 * `locale`: the language the page's browser has (`navigator.languages`, `Accept-Language`), en-US
 * unless told; null leaves the browser's own, the one it was launched with (launchChromium's `lang`).
 */
export async function visit(browser: Browser, options: { authenticator?: boolean; locale?: string | null } = {}): Promise<Visit> {
  const locale = options.locale === null ? {} : { locale: options.locale ?? 'en-US' };
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...locale });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const seen: Visit = { page, context, requests: [], operations: [], withText: [], errors: [] };
  page.on('request', (request) => {
    seen.requests.push(request.url());
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') {
      const body = JSON.parse(request.postData() ?? '{}') as { operationName?: string; query?: string };
      seen.operations.push(body.operationName ?? '(anonymous)');
      if (body.query !== undefined) seen.withText.push(body.operationName ?? '(anonymous)');
    }
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  if (options.authenticator) {
    // A user-verifying platform authenticator that keeps passkeys and answers at once.
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
  }
  return seen;
}

/** Ends a visit: the page asked nothing of any origin but `origin`, and no script of it failed. */
export async function leave(seen: Visit, origin: string): Promise<void> {
  await seen.context.close();
  expect(seen.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  expect(seen.errors).toEqual([]);
}

/** axe-core on the page as it stands: no serious or critical violation of WCAG 2.x A/AA or best practice. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
  expect({ what, grave }).toEqual({ what, grave: [] });
}

/**
 * A screenshot of the whole page, named for the README: into src/console/screenshots/ when
 * UPDATE_SCREENSHOTS=1, else into a temporary directory (taken all the same, so that the step runs).
 */
let screenshots: string | undefined;
export async function screenshot(page: Page, name: string): Promise<void> {
  screenshots ??= process.env.UPDATE_SCREENSHOTS
    ? fileURLToPath(new URL('../../src/console/screenshots/', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'console-screenshots-'));
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
}
