// Passkeys in a real browser: Chromium with a CDP virtual authenticator (CTAP2, internal, resident
// keys, user verification) on a page of the service's own origin, and the explorer snippet of docs/second-factors.md
// run as it stands.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { expectProblem } from '../rest/support.js';
import { LOGIN, LOGIN_OPTIONS, PASSKEYS, eventsOf } from './support.js';
import { freePort } from '../operability/support.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// CI installs Chromium, so there a missing browser fails the test; elsewhere it is skipped, saying so.
const skipBrowser = !existsSync(CHROMIUM) && !process.env.CI;
if (skipBrowser) console.warn(`${CHROMIUM} not found: the passkey browser tests are skipped (apt-get install chromium to run them)`);
const inBrowser = skipBrowser ? it.skip : it;

/** The ```js block of docs/second-factors.md between `<!-- passkey-explorer:<name> -->` and its closing marker. */
function readmeSnippet(name: string): string {
  const readme = readFileSync(new URL('../../docs/second-factors.md', import.meta.url), 'utf8');
  const block = new RegExp(`<!-- passkey-explorer:${name} -->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\`\\s*<!-- /passkey-explorer:${name} -->`).exec(readme);
  if (!block) throw new Error(`docs/second-factors.md has no passkey-explorer:${name} block`);
  return block[1]!;
}


let port = 0;
/** A page of another origin (another port of localhost), not in WEBAUTHN_ORIGINS. */
let foreign: Server;
beforeAll(async () => {
  port = await freePort();
  foreign = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise((resolve) => foreign?.close(resolve)));

const t = useTestServer(() => ({ PORT: String(port), WEBAUTHN_ORIGINS: `http://localhost:${port}` }));
const service = () => `http://localhost:${port}`;

/** A new page with a virtual authenticator of its own (a user-verifying platform authenticator that keeps passkeys). */
async function pageWithAuthenticator(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return page;
}

/** navigator.credentials.create() with the creation options' JSON, answered as JSON (the browser's own toJSON). */
const create = (page: Page, options: unknown) =>
  page.evaluate(async (o) => {
    // In the page: the DOM's types are not part of this project's compilation.
    const { navigator, PublicKeyCredential } = globalThis as any;
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(o) });
    return credential.toJSON();
  }, options);

/** navigator.credentials.get() with the request options' JSON, answered as JSON. */
const get = (page: Page, options: unknown) =>
  page.evaluate(async (o) => {
    const { navigator, PublicKeyCredential } = globalThis as any;
    const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(o) });
    return credential.toJSON();
  }, options);

async function withBrowser(work: (browser: Browser) => Promise<void>): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install -y chromium)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    await work(browser);
  } finally {
    await browser.close();
  }
}

describe('passkeys in Chromium', () => {
  inBrowser(
    'registers a passkey, signs in with it over REST and GraphQL, refuses a replay and another origin, and forgets it once removed',
    () =>
      withBrowser(async (browser) => {
        const page = await pageWithAuthenticator(browser);
        const session = await signInWithCode(t);
        expect((await page.goto(`${service()}/graphql`))?.status()).toBe(200);

        const options = await t.http.post(`${PASSKEYS}/registration-options`, undefined, { token: session.accessToken });
        expect(options.status).toBe(200);
        const added = await t.http.post(PASSKEYS, { response: await create(page, options.body), name: 'Virtual' }, { token: session.accessToken });
        expect({ status: added.status, name: added.body.name, lastUsedAt: added.body.lastUsedAt }).toEqual({ status: 201, name: 'Virtual', lastUsedAt: null });

        // REST: options, the browser's assertion (discoverable: no allowCredentials), tokens.
        const request = (await t.http.post(LOGIN_OPTIONS)).body;
        expect(request.options.allowCredentials).toEqual([]);
        const assertion = await get(page, request.options);
        const rest = await t.http.post(LOGIN, { challengeId: request.challengeId, response: assertion });
        expect({ status: rest.status, user: rest.body.user?.id, amr: claimsOf(rest.body.accessToken).amr }).toEqual({ status: 200, user: session.userId, amr: ['hwk'] });
        expect((await t.http.get('/api/v1/users/me', { token: rest.body.accessToken })).status).toBe(200);
        expect((await eventsOf(t, session.userId, 'SIGN_IN')).at(-1)).toEqual({ type: 'SIGN_IN', method: 'PASSKEY' });
        // The same challenge and assertion again.
        expectProblem(await t.http.post(LOGIN, { challengeId: request.challengeId, response: assertion }), 401, 'INVALID_CREDENTIALS');

        // GraphQL.
        const gqlOptions = await t.http.post('/graphql', { query: 'mutation { passkeyLoginOptions { challengeId options } }' });
        const { challengeId, options: gqlRequest } = gqlOptions.body.data.passkeyLoginOptions;
        const gql = await t.http.post('/graphql', {
          query: 'mutation($c: String!, $r: JSON!) { loginWithPasskey(challengeId: $c, response: $r) { accessToken user { id } } }',
          variables: { c: challengeId, r: await get(page, gqlRequest) },
        });
        expect(gql.body.errors).toBeUndefined();
        expect({ user: gql.body.data.loginWithPasskey.user.id, amr: claimsOf(gql.body.data.loginWithPasskey.accessToken).amr }).toEqual({ user: session.userId, amr: ['hwk'] });

        // A page of another origin (a phishing page on another port) gets an assertion for the
        // same RP ID from the same authenticator; the service refuses it.
        await page.goto(`http://localhost:${(foreign.address() as AddressInfo).port}/`);
        const phished = (await t.http.post(LOGIN_OPTIONS)).body;
        const elsewhere = await get(page, phished.options);
        expect(JSON.parse(Buffer.from(elsewhere.response.clientDataJSON, 'base64url').toString()).origin).not.toBe(service());
        expectProblem(await t.http.post(LOGIN, { challengeId: phished.challengeId, response: elsewhere }), 401, 'INVALID_CREDENTIALS');

        // Listed with its last use; renamed; removed, after which the browser's copy signs in no more.
        const listed = await t.http.get(PASSKEYS, { token: session.accessToken });
        expect(listed.body).toEqual([expect.objectContaining({ id: added.body.id, name: 'Virtual', lastUsedAt: expect.any(String) })]);
        const renamed = await t.http.request('PATCH', `${PASSKEYS}/${added.body.id}`, { token: session.accessToken, body: { name: 'Laptop' } });
        expect(renamed.body.name).toBe('Laptop');
        expect((await t.http.request('DELETE', `${PASSKEYS}/${added.body.id}`, { token: session.accessToken })).status).toBe(204);
        await page.goto(`${service()}/graphql`);
        const after = (await t.http.post(LOGIN_OPTIONS)).body;
        expectProblem(await t.http.post(LOGIN, { challengeId: after.challengeId, response: await get(page, after.options) }), 401, 'INVALID_CREDENTIALS');
      }),
    60_000,
  );

  inBrowser(
    "runs the explorer snippet of docs/second-factors.md in GraphiQL: adds a passkey over GraphQL and signs in with it",
    () =>
      withBrowser(async (browser) => {
        const page = await pageWithAuthenticator(browser);
        const session = await signInWithCode(t);
        expect((await page.goto(`${service()}/graphql`))?.status()).toBe(200);
        const helpers = readmeSnippet('helpers');
        const register = readmeSnippet('register');
        expect(register).toContain("const TOKEN = 'paste your accessToken here';");
        const withToken = register.replace("'paste your accessToken here'", JSON.stringify(session.accessToken));
        // The console's top-level await, as an async function; what the snippet logs is returned.
        const run = (code: string, result: string) => page.evaluate(`(async () => {\n${helpers}\n${code}\nreturn ${result};\n})()`);
        const added = (await run(withToken, 'added.addPasskey')) as { id: string; name: string };
        expect(added).toMatchObject({ id: expect.any(String), name: expect.stringMatching(/^Passkey \d{4}-\d{2}-\d{2}$/) });
        const signedIn = (await run(readmeSnippet('sign-in'), 'signedIn.loginWithPasskey')) as { accessToken: string; user: { phone: string } };
        expect(signedIn.user.phone).toBe(session.phone);
        expect(claimsOf(signedIn.accessToken).amr).toEqual(['hwk']);
      }),
    60_000,
  );
});
