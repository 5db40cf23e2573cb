// The client module (src/client/) in Chromium, as a frontend on another site uses it with Apollo
// Client (API.md 10.5): its avatar shows; two tabs sharing a store wake after expiry and make one
// refresh between them; two pages with stores of their own refresh one token at once and both stay
// signed in; a token refused as expired is renewed once and the request retried; an ended session
// ends the store; a sign-in's second-factor step is a value, not a thrown error.
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Tokens } from '../../src/client/index.js';
import { solid } from '../avatar/fixtures.js';
import { restUpload } from '../avatar/support.js';
import { inBrowser, launchChromium } from '../console/support.js';
import { requestCode, signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf, forgeToken } from '../helpers/tokens.js';
import { codeAt, enrolledUser, steadyStep } from '../mfa/support.js';
import { bundleHarness, serveFrontend } from './support.js';

let browser: Browser | undefined;
let frontend: Awaited<ReturnType<typeof serveFrontend>> | undefined;
beforeAll(async () => {
  frontend = await serveFrontend(bundleHarness());
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await frontend?.close();
});

const t = useTestServer(() => ({ CORS_ORIGINS: frontend!.origin, SEND_CODE_INTERVAL_SECONDS: '0' }));
/** The service as the page reaches it: another site than the page's 127.0.0.1. */
const api = () => t.url.replace('127.0.0.1', 'localhost');

interface Harness {
  seed(tokens: Tokens): Promise<void>;
  setup(api: string, shared: boolean, tokens?: Tokens): Promise<void>;
  me(): Promise<{ id?: string; code?: string; reason?: string }>;
  current(): Tokens | undefined;
  changes(): unknown[];
  signIn(phone: string, code: string): Promise<Record<string, unknown>>;
  verify(mfaToken: string, code: string): Promise<Record<string, unknown>>;
}
declare const harness: Harness;

/** A page of the frontend in `context`, its harness loaded. */
async function open(context: BrowserContext, query = ''): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${frontend!.origin}/${query}`);
  await page.waitForFunction(() => typeof (globalThis as { harness?: unknown }).harness === 'object');
  return page;
}

/** Counts the refresh exchanges the pages of `context` send. */
function refreshesOf(context: BrowserContext): { count: number } {
  const seen = { count: 0 };
  context.on('request', (request) => {
    if (request.method() === 'POST' && request.postData()?.includes('"operationName":"Refresh"')) seen.count += 1;
  });
  return seen;
}

/** The session's tokens with an access token that has expired (its claims otherwise the service's own). */
function expiredTokens(session: Session, expiresAt = Date.now() - 1_000): Tokens {
  const { sub, sid } = claimsOf(session.accessToken);
  return { accessToken: forgeToken({ sub, sid }, { expiresIn: -30 }), refreshToken: session.refreshToken, expiresAt };
}

describe('a frontend on another site', () => {
  inBrowser('shows an avatar of the service in an <img> (Cross-Origin-Resource-Policy: cross-origin)', async () => {
    const user = await signInWithCode(t);
    const uploaded = await restUpload(t, user.accessToken, await solid(64, 64, 'png'));
    expect(uploaded.status).toBe(200);
    const avatarUrl = `${api()}${uploaded.body.avatarUrl}`;
    const context = await browser!.newContext();
    const blocked: string[] = [];
    context.on('requestfailed', (request) => blocked.push(`${request.url()} ${request.failure()?.errorText}`));
    const page = await open(context, `?avatar=${encodeURIComponent(avatarUrl)}`);
    await page.waitForFunction(() => (document.getElementById('avatar') as HTMLImageElement).complete);
    expect({ width: await page.evaluate(() => (document.getElementById('avatar') as HTMLImageElement).naturalWidth), blocked }).toEqual({ width: 64, blocked: [] });
    await context.close();
  });

  inBrowser('keeps two tabs of a shared store signed in when both wake after expiry, with one refresh on the wire', async () => {
    const user = await signInWithCode(t);
    const context = await browser!.newContext();
    const refreshes = refreshesOf(context);
    const [first, second] = [await open(context), await open(context)];
    const tokens = expiredTokens(user);
    await first.evaluate((stored) => harness.seed(stored), tokens);
    for (const page of [first, second]) await page.evaluate((url) => harness.setup(url, true), api());
    const answers = await Promise.all([first.evaluate(() => harness.me()), second.evaluate(() => harness.me())]);
    expect({ answers, refreshes: refreshes.count }).toEqual({ answers: [{ id: user.userId }, { id: user.userId }], refreshes: 1 });
    const [a, b] = [await first.evaluate(() => harness.current()), await second.evaluate(() => harness.current())];
    expect(a).toEqual(b);
    expect(a!.refreshToken).not.toBe(user.refreshToken);
    // The other tab heard of the new tokens on the channel.
    expect(await second.evaluate(() => harness.changes().length)).toBeGreaterThanOrEqual(1);
    await context.close();
  });

  inBrowser('keeps two pages with stores of their own signed in when they refresh one token at once, and the session alive', async () => {
    const user = await signInWithCode(t);
    const pages = await Promise.all([1, 2].map(async () => open(await browser!.newContext())));
    for (const page of pages) await page.evaluate(([url, tokens]) => harness.setup(url, false, tokens), [api(), expiredTokens(user)] as const);
    const answers = await Promise.all(pages.map((page) => page.evaluate(() => harness.me())));
    expect(answers).toEqual([{ id: user.userId }, { id: user.userId }]);
    const held = await Promise.all(pages.map((page) => page.evaluate(() => harness.current()!.refreshToken)));
    expect(held[0]).toBe(held[1]);
    // Neither refresh was taken for a stolen token's reuse: the session lives on, its new token refreshes.
    const renewed = await t.http.post('/api/v1/auth/refresh', { refreshToken: held[0] });
    expect(renewed.status).toBe(200);
    for (const page of pages) await page.context().close();
  });

  inBrowser('renews an access token the service refused as expired once, and sends the request again', async () => {
    const user = await signInWithCode(t);
    const context = await browser!.newContext();
    const refreshes = refreshesOf(context);
    const page = await open(context);
    // The store thinks the token has ten minutes left (a wrong clock): the service says otherwise.
    await page.evaluate((stored) => harness.seed(stored), expiredTokens(user, Date.now() + 600_000));
    await page.evaluate((url) => harness.setup(url, true), api());
    expect(await page.evaluate(() => harness.me())).toEqual({ id: user.userId });
    expect(refreshes.count).toBe(1);
    await context.close();
  });

  inBrowser('ends the store when the service says the session has ended, without a refresh', async () => {
    const user = await signInWithCode(t);
    const context = await browser!.newContext();
    const refreshes = refreshesOf(context);
    const page = await open(context);
    await page.evaluate((stored) => harness.seed(stored), { accessToken: user.accessToken, refreshToken: user.refreshToken, expiresAt: Date.now() + 600_000 });
    await page.evaluate((url) => harness.setup(url, true), api());
    expect((await t.http.post('/api/v1/auth/logout', undefined, { token: user.accessToken })).status).toBe(204);
    expect(await page.evaluate(() => harness.me())).toEqual({ code: 'UNAUTHENTICATED', reason: 'session_ended' });
    expect({ current: await page.evaluate(() => harness.current() ?? null), refreshes: refreshes.count }).toEqual({ current: null, refreshes: 0 });
    expect(await page.evaluate(() => harness.changes())).toContainEqual({ type: 'ended', reason: 'session_ended' });
    await context.close();
  });

  inBrowser('answers a sign-in that needs a second factor as a step with its mfaToken, then signs in with the code', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const context = await browser!.newContext();
    const page = await open(context);
    await page.evaluate((url) => harness.setup(url, false), api());
    const first = await page.evaluate(([phone, code]) => harness.signIn(phone, code), [user.phone, await requestCode(t, user.phone, 'login')] as const);
    expect(first).toEqual({ step: 'secondFactorRequired', mfaToken: expect.stringMatching(/^[\w-]{43}$/), methods: expect.arrayContaining(['totp']) });
    expect(await page.evaluate(([mfaToken, code]) => harness.verify(mfaToken, code), [first.mfaToken as string, codeAt(user.secret, step)] as const)).toEqual({ step: 'signedIn' });
    expect(await page.evaluate(() => harness.me())).toEqual({ id: user.userId });
    await context.close();
  });
});
