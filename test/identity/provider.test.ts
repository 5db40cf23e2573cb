// The test OpenID Provider on its own, before any test of the service relies on it: its discovery
// document and JWKS, ID tokens it issues without a browser, keys the tests hold, rotation, each
// outage it can play and recovery from it, a restart under the same issuer, and its login and
// consent pages in Chromium.
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { inBrowser, signInAtProvider, withPage } from './provider-browser.js';
import { generateSigningKey, signIdToken } from './provider-keys.js';
import { startProvider, type TestProvider } from './provider.js';

const ACCOUNTS = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Example', phone_number: '+8613800000001', hd: 'example.com' },
  bob: { email: 'bob@example.com', email_verified: false },
};

let op: TestProvider;
/** Where the web client returns: a page that answers every request, as the service's callback would. */
let callback: Server;
let callbackUrl = '';
const printed: unknown[][] = [];

beforeAll(async () => {
  callback = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>back at the client</title>'));
  callback.listen(0, '127.0.0.1');
  await once(callback, 'listening');
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  for (const method of ['log', 'info', 'warn', 'error'] as const) {
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push([method, ...args]));
  }
  op = await startProvider({
    clients: [
      { clientId: 'web', clientSecret: 'web-secret', tokenEndpointAuthMethod: 'client_secret_basic', redirectUris: [callbackUrl] },
      { clientId: 'ios', tokenEndpointAuthMethod: 'none', redirectUris: ['http://127.0.0.1:9/ios'] },
      { clientId: 'android', clientSecret: 'android-secret', redirectUris: ['http://127.0.0.1:9/android'] },
    ],
    accounts: ACCOUNTS,
    idTokenTtl: 600,
  });
});

afterEach(async () => {
  await op.setFault(undefined);
  expect(op.serverErrors).toEqual([]);
  // oidc-provider prints its development notices on the console; configured as it is, none.
  expect(printed).toEqual([]);
});

afterAll(async () => {
  await op?.stop();
  callback?.close();
  jest.restoreAllMocks();
});

const get = (url: string, init: RequestInit = {}) => fetch(url, init);
const discovery = async (provider = op) => (await get(`${provider.issuer}/.well-known/openid-configuration`)).json() as Promise<Record<string, any>>;
const jwks = async (provider = op) => (await get(`${provider.issuer}/jwks`)).json() as Promise<JSONWebKeySet>;
const kids = async (provider = op) => (await jwks(provider)).keys.map((key) => key.kid);
/** Verifies `token` against the provider's JWKS as served now. */
const verify = async (token: string, audience: string, provider = op) =>
  (await jwtVerify(token, createLocalJWKSet(await jwks(provider)), { issuer: provider.issuer, audience })).payload;
/** How a request to the provider fails: the error's code or name, or its status. */
const failure = (url: string, ms = 1000) =>
  get(url, { signal: AbortSignal.timeout(ms) }).then(
    (response) => response.status,
    (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.name,
  );

describe('the test OpenID Provider', () => {
  it('serves its discovery document and a public JWKS at its loopback issuer', async () => {
    expect(op.issuer).toBe(`http://127.0.0.1:${op.port}`);
    expect(await discovery()).toMatchObject({
      issuer: op.issuer,
      authorization_endpoint: `${op.issuer}/auth`,
      token_endpoint: `${op.issuer}/token`,
      jwks_uri: `${op.issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
      authorization_response_iss_parameter_supported: true,
    });
    const { keys } = await jwks();
    expect(keys).toEqual([expect.objectContaining({ kid: op.keys[0]!.kid, alg: 'RS256', use: 'sig', kty: 'RSA' })]);
    expect(keys[0]).not.toHaveProperty('d');
  });

  it("issues an ID token by the code flow that verifies against its JWKS with its issuer, the client's audience, the nonce and the account's claims", async () => {
    const issued = await op.issueIdToken({ clientId: 'web', sub: 'alice', nonce: 'nonce-1' });
    expect(decodeProtectedHeader(issued.idToken)).toEqual({ alg: 'RS256', kid: op.keys[0]!.kid });
    const claims = await verify(issued.idToken, 'web');
    expect(claims).toMatchObject({ iss: op.issuer, aud: 'web', sub: 'alice', nonce: 'nonce-1', ...ACCOUNTS.alice });
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(issued.claims).toEqual(claims);
    expect(issued.response).toMatchObject({ id_token: issued.idToken, token_type: 'Bearer', access_token: expect.any(String) });

    // Only the claims of the scopes asked for; no nonce unless one was sent.
    const narrow = await verify((await op.issueIdToken({ clientId: 'web', sub: 'bob', scope: 'openid email' })).idToken, 'web');
    expect(narrow).toMatchObject({ sub: 'bob', email: 'bob@example.com', email_verified: false });
    expect(narrow).not.toHaveProperty('nonce');
    expect(narrow).not.toHaveProperty('name');
  });

  it('issues to a public client and to one posting its secret (the default), each under its own audience, with a hashed nonce as sent', async () => {
    const hashed = createHash('sha256').update('raw-nonce').digest('hex');
    const ios = await op.issueIdToken({ clientId: 'ios', sub: 'alice', nonce: hashed });
    expect(await verify(ios.idToken, 'ios')).toMatchObject({ aud: 'ios', nonce: hashed });
    const android = await op.issueIdToken({ clientId: 'android', sub: 'bob' });
    expect(await verify(android.idToken, 'android')).toMatchObject({ aud: 'android', sub: 'bob' });
    await expect(verify(android.idToken, 'ios')).rejects.toThrow(/aud/);
  });

  it('signs in only the accounts it has', async () => {
    await expect(op.issueIdToken({ clientId: 'web', sub: 'mallory' })).rejects.toThrow(/answered 401 .*No account &#34;mallory&#34; at this provider/s);
    await expect(op.issueIdToken({ clientId: 'nobody', sub: 'alice' })).rejects.toThrow(/no client "nobody"/);
  });

  it('hands its private key to the tests: a token forged with it verifies, one under its kid with another key does not', async () => {
    const { claims } = await op.issueIdToken({ clientId: 'web', sub: 'alice' });
    const forged = await signIdToken(op.keys[0]!, { ...claims, sub: 'someone-else' });
    expect(await verify(forged, 'web')).toMatchObject({ sub: 'someone-else' });
    const impostor = await generateSigningKey('RS256', op.keys[0]!.kid);
    await expect(verify(await signIdToken(impostor, claims), 'web')).rejects.toThrow(/signature verification failed/);
  });

  it('rotates its signing key: new tokens carry the new kid, and the JWKS keeps the old key or drops it', async () => {
    const before = await op.issueIdToken({ clientId: 'web', sub: 'alice' });
    const old = op.keys[0]!.kid;
    const key = await op.rotateKey();
    expect(await kids()).toEqual([key.kid, old]);
    const after = await op.issueIdToken({ clientId: 'web', sub: 'alice' });
    expect(decodeProtectedHeader(after.idToken).kid).toBe(key.kid);
    await verify(before.idToken, 'web');
    await verify(after.idToken, 'web');

    const newest = await op.rotateKey({ keepPrevious: false });
    expect(await kids()).toEqual([newest.kid]);
    expect(op.keys.map((k) => k.kid)).toEqual([newest.kid]);
    await expect(verify(after.idToken, 'web')).rejects.toThrow(/no applicable key/);
  });

  it('signs with ES256 when asked', async () => {
    const es = await startProvider({ alg: 'ES256', clients: [{ clientId: 'web', clientSecret: 's', redirectUris: ['http://127.0.0.1:9/cb'] }], accounts: ACCOUNTS });
    try {
      const { idToken } = await es.issueIdToken({ clientId: 'web', sub: 'alice' });
      expect(decodeProtectedHeader(idToken)).toEqual({ alg: 'ES256', kid: es.keys[0]!.kid });
      expect(await verify(idToken, 'web', es)).toMatchObject({ sub: 'alice' });
    } finally {
      await es.stop();
    }
  });

  describe('outages, switched on and off while it runs', () => {
    const wellKnown = () => `${op.issuer}/.well-known/openid-configuration`;

    it('down: refuses connections, kept-alive ones included, then serves again under the same issuer', async () => {
      expect((await get(wellKnown())).status).toBe(200);
      await op.setFault('down');
      expect(await failure(wellKnown())).toBe('ECONNREFUSED');
      expect(await failure(`${op.issuer}/jwks`)).toBe('ECONNREFUSED');
      await op.setFault(undefined);
      expect((await discovery()).issuer).toBe(op.issuer);
    });

    it('error500: answers every request 500, then as before', async () => {
      await op.setFault('error500');
      expect(await failure(wellKnown())).toBe(500);
      expect(await failure(`${op.issuer}/jwks`)).toBe(500);
      await expect(op.issueIdToken({ clientId: 'web', sub: 'alice' })).rejects.toThrow(/answered 500/);
      await op.setFault(undefined);
      await op.issueIdToken({ clientId: 'web', sub: 'alice' });
    });

    it('hang: accepts requests and never answers them, then answers again', async () => {
      await op.setFault('hang');
      const started = Date.now();
      expect(await failure(wellKnown(), 300)).toBe('TimeoutError');
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(op.requests.at(-1)).toBe('GET /.well-known/openid-configuration');
      await op.setFault(undefined);
      expect((await get(wellKnown())).status).toBe(200);
    });

    it('jwksWithoutKey: serves its JWKS without the current signing key, the earlier ones kept, while still signing with it', async () => {
      await op.rotateKey();
      const [current, ...earlier] = op.keys.map((key) => key.kid);
      await op.setFault('jwksWithoutKey');
      expect(await kids()).toEqual(earlier);
      const { idToken } = await op.issueIdToken({ clientId: 'web', sub: 'alice' });
      expect(decodeProtectedHeader(idToken).kid).toBe(current);
      await expect(verify(idToken, 'web')).rejects.toThrow(/no applicable key/);
      await op.setFault(undefined);
      expect(await kids()).toEqual([current, ...earlier]);
      await verify(idToken, 'web');
    });
  });

  it('starts again on the port it had, under the same issuer, with the keys it is given', async () => {
    const options = { clients: [{ clientId: 'web', clientSecret: 's', redirectUris: ['http://127.0.0.1:9/cb'] }], accounts: ACCOUNTS };
    const first = await startProvider(options);
    const { idToken } = await first.issueIdToken({ clientId: 'web', sub: 'alice' });
    await first.stop();
    expect(await failure(`${first.issuer}/jwks`)).toBe('ECONNREFUSED');
    const again = await startProvider({ ...options, port: first.port, keys: [...first.keys] });
    try {
      expect(again.issuer).toBe(first.issuer);
      expect((await discovery(again)).issuer).toBe(first.issuer);
      expect(await verify(idToken, 'web', again)).toMatchObject({ iss: first.issuer, sub: 'alice' });
    } finally {
      await again.stop();
    }
  });

  describe('its pages in Chromium', () => {
    inBrowser(
      'an authorization request reaches its login page, and login and consent return to the redirect URI with code, state and iss, across a key rotation',
      () =>
        withPage(async (page) => {
          const request = op.authorizationRequest({ clientId: 'web', nonce: 'browser-nonce' });
          await page.goto(request.url);
          expect(page.url()).toMatch(new RegExp(`^${op.issuer}/interaction/[\\w-]+$`));
          expect(await page.title()).toBe('Sign in');
          // Begun before the provider's key rotates, finished after.
          await op.rotateKey();
          await signInAtProvider(page, { login: 'alice' });
          await page.waitForURL((url) => url.href.startsWith(callbackUrl));
          const back = new URL(page.url());
          expect(Object.fromEntries(back.searchParams)).toEqual({ code: expect.any(String), state: request.state, iss: op.issuer });
        }),
      60_000,
    );

    inBrowser(
      'a user who cancels at the consent page returns to the redirect URI with error=access_denied',
      () =>
        withPage(async (page) => {
          const request = op.authorizationRequest({ clientId: 'web' });
          await page.goto(request.url);
          await signInAtProvider(page, { login: 'bob', consent: false });
          await page.waitForURL((url) => url.href.startsWith(callbackUrl));
          const back = new URL(page.url());
          expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: request.state, iss: op.issuer });
        }),
      60_000,
    );
  });
});
