// The web flow of sign-in through an external OpenID Connect provider (API.md 9.1), end to end in
// Chromium with the test provider's own login and consent pages: authorize, the provider, the
// callback, the frontend's returnTo with a one-time result, the exchange (with the verifier of the
// frontend's codeChallenge) on both transports; an
// identity no account has linked by a phone code, then signing straight in; the provider's refusal;
// replayed and forged states; used and expired results; returnTo outside OIDC_RETURN_URLS; a
// form_post provider; the signed-in link flow. Every URL the browser visits is recorded, and none may
// carry a token.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { CompleteExternalLinkDocument, CompleteExternalSignInDocument, ExternalLinkUrlDocument, ExternalSignInUrlDocument, LinkExternalIdentityDocument } from '../generated/graphql.js';
import { dataOf, errorOf } from '../graphql/support.js';
import { expectProblem } from '../rest/support.js';
import {
  authorizeJson,
  callbackOf,
  expectNoTokenIn,
  identityEnv,
  navigate,
  webFlowHooks,
  returnedTo,
  startFrontend,
  startQuery,
  walkProvider,
  type Frontend,
} from './flow-support.js';
import { freePort } from '../operability/support.js';
import { urlsOf, useBrowser } from './flow-browser.js';
import { inBrowser } from './provider-browser.js';
import { startProvider, type TestProvider } from './provider.js';
import { exchangeOf, FRONTEND, OIDC, sessionCount } from './support.js';


const ACCOUNTS = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Example' },
  bob: { email: 'bob@example.com', email_verified: true, name: 'Bob Example' },
  carol: { email: 'carol@example.com', name: 'Carol Example' },
  dave: { email: 'dave@example.com', name: 'Dave Example' },
};

let base = '';
let env: Record<string, string> = {};
let op: TestProvider;
let app: Frontend;
let returnTo = '';
let linkReturnTo = '';

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await startFrontend();
  returnTo = app.url('/signed-in');
  linkReturnTo = app.url('/settings/identities');
  op = await startProvider({
    clients: [
      { clientId: 'web', clientSecret: 'web-secret', redirectUris: [callbackOf(base, 'corp')] },
      { clientId: 'web-form', clientSecret: 'form-secret', redirectUris: [callbackOf(base, 'corp-form')] },
    ],
    accounts: ACCOUNTS,
  });
  const providers = [
    { id: 'corp', op, clientId: 'web', clientSecret: 'web-secret' },
    { id: 'corp-form', op, clientId: 'web-form', clientSecret: 'form-secret', responseMode: 'form_post' as const },
    // Never used but by the test of returnTo: its discovery would show at the provider.
    { id: 'idle', op, clientId: 'web', clientSecret: 'web-secret' },
  ];
  env = { PORT: String(port), ...identityEnv(base, providers, [returnTo, linkReturnTo]) };
});

const t = useTestServer(() => env, { captureLogs: true });
webFlowHooks([t], () => ({ providers: [op], app }));

const AUTHORIZE = `${OIDC}/corp/authorize`;
const EXCHANGE = `${OIDC}/exchange`;
/** The sign-in start a browser navigates to, bound to the suites' frontend (startQuery). */
const authorizeUrl = (provider = 'corp', to = returnTo) => `${base}${OIDC}/${provider}/authorize${startQuery(to)}`;

/** Users in Chromium, who sign in at the test provider and come back to the frontend's sign-in page unless told. */
const browseAs = useBrowser(() => ({ issuer: op.issuer, back: returnTo }));

describe('the web flow in Chromium', () => {
  inBrowser('signs in by REST: an unknown identity is linked by a phone code, then the next flow signs straight in with amr fed', () =>
    browseAs(async (agent) => {
      const first = await agent();
      const back = returnedTo(await first.signIn(authorizeUrl(), 'alice'), returnTo);
      expect(Object.keys(back)).toEqual(['result']);
      // The browser went service -> provider (login, consent) -> service's callback -> frontend.
      expect(first.navigations[0]).toEqual({ method: 'GET', url: authorizeUrl() });
      expect(first.navigations.some((n) => n.url.startsWith(`${callbackOf(base, 'corp')}?`))).toBe(true);
      // The frontend itself received the result, and nothing else.
      const landed = app.visits.filter((visit) => visit.searchParams.has('result') || visit.searchParams.has('error')).at(-1)!;
      expect(Object.fromEntries(landed.searchParams)).toEqual({ result: back.result });

      const unknown = expectProblem(await t.http.post(EXCHANGE, exchangeOf(back.result)), 401, 'PHONE_VERIFICATION_REQUIRED');
      expect(unknown.linkToken).toEqual(expect.any(String));
      expect(unknown.identity).toEqual({ provider: 'corp', email: 'alice@example.com', name: 'Alice Example' });

      const phone = newPhone();
      const linked = await t.http.post(`${OIDC}/link`, { linkToken: unknown.linkToken, phone, code: await requestCode(t, phone) });
      expect(linked.status).toBe(200);
      expect(linked.body).toMatchObject({ isNewUser: true, user: { phone } });
      expect(claimsOf(linked.body.accessToken).amr).toEqual(expect.arrayContaining(['fed', 'sms']));

      const second = await agent();
      const again = returnedTo(await second.signIn(authorizeUrl(), 'alice'), returnTo);
      const signedIn = await t.http.post(EXCHANGE, exchangeOf(again.result));
      expect(signedIn.status).toBe(200);
      expect(signedIn.body).toMatchObject({ isNewUser: false, tokenType: 'Bearer', user: { id: linked.body.user.id, phone } });
      expect(claimsOf(signedIn.body.accessToken).amr).toEqual(['fed']);
      const mine = await t.http.get('/api/v1/users/me/identities', { token: signedIn.body.accessToken });
      expect(mine.body).toEqual([expect.objectContaining({ provider: 'corp', email: 'alice@example.com', name: 'Alice Example', lastUsedAt: expect.any(String) })]);

      const secrets = [unknown.linkToken, linked.body.accessToken, linked.body.refreshToken, signedIn.body.accessToken, signedIn.body.refreshToken];
      expectNoTokenIn([...urlsOf(first), ...urlsOf(second)], secrets);
    }),
  );

  inBrowser('signs in by GraphQL: the URL of externalSignInUrl, completeExternalSignIn, linkExternalIdentity, then straight in', () =>
    browseAs(async (agent) => {
      const url = dataOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge: FRONTEND.challenge })).externalSignInUrl;
      const request = new URL(url);
      expect(`${request.origin}${request.pathname}`).toBe(`${op.issuer}/auth`);
      expect(Object.fromEntries(request.searchParams)).toMatchObject({
        client_id: 'web',
        response_type: 'code',
        redirect_uri: callbackOf(base, 'corp'),
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        state: expect.any(String),
        nonce: expect.any(String),
      });
      expect(request.searchParams.get('scope')!.split(' ')).toContain('openid');

      const first = await agent();
      const back = returnedTo(await first.signIn(url, 'bob'), returnTo);
      const unknown = errorOf(await t.http.gql(CompleteExternalSignInDocument, exchangeOf(back.result)), 'PHONE_VERIFICATION_REQUIRED');
      expect(unknown.extensions).toMatchObject({ linkToken: expect.any(String), identity: { provider: 'corp', email: 'bob@example.com', name: 'Bob Example' } });
      const linkToken = unknown.extensions!.linkToken as string;

      const phone = newPhone();
      const account = dataOf(await t.http.gql(LinkExternalIdentityDocument, { linkToken, phone, code: await requestCode(t, phone) })).linkExternalIdentity;
      expect(account).toMatchObject({ isNewUser: true, user: { phone } });

      const second = await agent();
      const nextUrl = dataOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge: FRONTEND.challenge })).externalSignInUrl;
      // Each flow has its own state, nonce and PKCE challenge.
      for (const name of ['state', 'nonce', 'code_challenge']) expect(new URL(nextUrl).searchParams.get(name)).not.toBe(request.searchParams.get(name));
      const again = returnedTo(await second.signIn(nextUrl, 'bob'), returnTo);
      const payload = dataOf(await t.http.gql(CompleteExternalSignInDocument, exchangeOf(again.result))).completeExternalSignIn;
      expect(payload).toMatchObject({ isNewUser: false, user: { id: account.user.id, phone } });
      expect(claimsOf(payload.accessToken).amr).toEqual(['fed']);

      expectNoTokenIn([...urlsOf(first), ...urlsOf(second)], [linkToken, account.accessToken, account.refreshToken, payload.accessToken, payload.refreshToken]);
    }),
  );

  inBrowser('brings a cancel at the provider back to returnTo as error=access_denied, and signs nobody in', () =>
    browseAs(async (agent) => {
      const user = await agent();
      const back = returnedTo(await user.signIn(authorizeUrl(), 'dave', { consent: false }), returnTo);
      expect(back).toEqual({ error: 'access_denied' });
      expect(await t.sql('select count(*)::int as n from identity_tickets')).toEqual([{ n: 0 }]);
      expect(await sessionCount(t)).toBe(0);
      expect(await t.sql('select count(*)::int as n from users')).toEqual([{ n: 0 }]);
      // The flow was used up by its return: its state cannot come back with a code.
      expect(await t.sql('select count(*)::int as n from oidc_flows')).toEqual([{ n: 0 }]);
      expectNoTokenIn(urlsOf(user), []);
    }),
  );

  inBrowser('refuses the callback replayed with the same state and code, and a forged state, with 400 and no redirect', () =>
    browseAs(async (agent) => {
      const user = await agent();
      returnedTo(await user.signIn(authorizeUrl(), 'dave'), returnTo);
      const callback = user.navigations.find((n) => n.url.startsWith(`${callbackOf(base, 'corp')}?`))!.url;
      expect(Object.keys(Object.fromEntries(new URL(callback).searchParams)).sort()).toEqual(['code', 'iss', 'state']);
      const resultsBefore = await t.sql('select count(*)::int as n from identity_tickets');

      const replayed = await navigate(callback);
      expect(replayed.headers.get('location')).toBeNull();
      expectProblem(replayed, 400, 'VALIDATION_FAILED');

      const forged = new URL(callback);
      forged.searchParams.set('state', 'forged-state-the-service-never-gave');
      for (const url of [forged.href, `${callbackOf(base, 'corp')}?code=abc`, `${callbackOf(base, 'corp')}?error=access_denied&state=forged`]) {
        const answer = await navigate(url);
        expect(answer.headers.get('location')).toBeNull();
        expectProblem(answer, 400, 'VALIDATION_FAILED');
      }
      expect(await t.sql('select count(*)::int as n from identity_tickets')).toEqual(resultsBefore);
    }),
  );

  inBrowser("refuses a flow's state at another provider's callback", () =>
    browseAs(async (agent) => {
      const started = await authorizeJson(t, AUTHORIZE, returnTo);
      const state = new URL(started.body.url).searchParams.get('state')!;
      const elsewhere = await navigate(`${callbackOf(base, 'corp-form')}?code=abc&state=${encodeURIComponent(state)}`);
      expect(elsewhere.headers.get('location')).toBeNull();
      expectProblem(elsewhere, 400, 'VALIDATION_FAILED');
      // The flow is still its own provider's: completed there, it returns a result.
      const user = await agent();
      expect(Object.keys(returnedTo(await user.signIn(started.body.url, 'dave'), returnTo))).toEqual(['result']);
    }),
  );

  inBrowser('takes a result once, on either transport, and not after its 60 seconds', () =>
    browseAs(async (agent) => {
      const first = returnedTo(await (await agent()).signIn(authorizeUrl(), 'carol'), returnTo);
      expectProblem(await t.http.post(EXCHANGE, exchangeOf(first.result)), 401, 'PHONE_VERIFICATION_REQUIRED');
      expectProblem(await t.http.post(EXCHANGE, exchangeOf(first.result)), 401, 'INVALID_CREDENTIALS');
      errorOf(await t.http.gql(CompleteExternalSignInDocument, exchangeOf(first.result)), 'INVALID_CREDENTIALS');

      const second = returnedTo(await (await agent()).signIn(authorizeUrl(), 'carol'), returnTo);
      const [ticket] = await t.sql<{ ttl: number }>(`select extract(epoch from expires_at - created_at)::float as ttl from identity_tickets where kind = 'result'`);
      expect(ticket!.ttl).toBeGreaterThan(55);
      expect(ticket!.ttl).toBeLessThanOrEqual(61);
      // Its 60 seconds pass.
      await t.sql(`update identity_tickets set expires_at = now() - interval '1 second' where kind = 'result'`);
      expectProblem(await t.http.post(EXCHANGE, exchangeOf(second.result)), 401, 'INVALID_CREDENTIALS');
      errorOf(await t.http.gql(CompleteExternalSignInDocument, exchangeOf(second.result)), 'INVALID_CREDENTIALS');
      expect(await sessionCount(t)).toBe(0);
    }),
  );

  inBrowser('completes with a form_post provider: the provider posts the code to the callback', () =>
    browseAs(async (agent) => {
      const user = await agent();
      const url = (await authorizeJson(t, `${OIDC}/corp-form/authorize`, returnTo)).body.url as string;
      expect(new URL(url).searchParams.get('response_mode')).toBe('form_post');
      const back = returnedTo(await user.signIn(url, 'alice'), returnTo);
      const posted = user.navigations.filter((n) => n.url.startsWith(callbackOf(base, 'corp-form')));
      expect(posted).toEqual([{ method: 'POST', url: callbackOf(base, 'corp-form') }]);

      // Another provider of the service: another identity, even with the same subject at the same issuer.
      const unknown = expectProblem(await t.http.post(EXCHANGE, exchangeOf(back.result)), 401, 'PHONE_VERIFICATION_REQUIRED');
      expect(unknown.identity).toEqual({ provider: 'corp-form', email: 'alice@example.com', name: 'Alice Example' });
      const phone = newPhone();
      const linked = await t.http.post(`${OIDC}/link`, { linkToken: unknown.linkToken, phone, code: await requestCode(t, phone) });
      expect(linked.status).toBe(200);

      const second = await agent();
      const again = returnedTo(await second.signIn((await authorizeJson(t, `${OIDC}/corp-form/authorize`, returnTo)).body.url, 'alice'), returnTo);
      const signedIn = await t.http.post(EXCHANGE, exchangeOf(again.result));
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.user.id).toBe(linked.body.user.id);
      expectNoTokenIn([...urlsOf(user), ...urlsOf(second)], [unknown.linkToken, linked.body.accessToken, linked.body.refreshToken, signedIn.body.accessToken]);
    }),
  );
});

describe('returnTo', () => {
  it('outside OIDC_RETURN_URLS is refused with 400 VALIDATION_FAILED before anything reaches the provider, on both transports', async () => {
    const others = [
      `${returnTo}/`,
      `${returnTo}?next=/admin`,
      `${returnTo}-elsewhere`,
      returnTo.replace('/signed-in', '/other'),
      returnTo.replace('127.0.0.1', 'localhost'),
      `http://evil.example/signed-in`,
      `${returnTo.replace('http://', 'http://127.0.0.1@')}`,
      '//evil.example/signed-in',
      'javascript:alert(1)',
      '',
    ];
    const asked = op.requests.length;
    for (const other of others) {
      const navigation = await navigate(authorizeUrl('idle', other));
      expect(navigation.headers.get('location')).toBeNull();
      expect(expectProblem(navigation, 400, 'VALIDATION_FAILED').fields).toHaveProperty('returnTo');
      expectProblem(await authorizeJson(t, `${OIDC}/idle/authorize`, other), 400, 'VALIDATION_FAILED');
      errorOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'idle', returnTo: other, codeChallenge: FRONTEND.challenge }), 'VALIDATION_FAILED');
    }
    expectProblem(await navigate(`${base}${OIDC}/idle/authorize`), 400, 'VALIDATION_FAILED');
    // Not a request to the provider (not even its discovery), not a flow kept.
    expect(op.requests.slice(asked)).toEqual([]);
    expect(await t.sql('select count(*)::int as n from oidc_flows')).toEqual([{ n: 0 }]);

    // The same provider with a listed returnTo: now it is asked.
    const allowed = await navigate(authorizeUrl('idle'));
    expect(allowed.status).toBe(302);
    expect(allowed.headers.get('location')).toMatch(new RegExp(`^${op.issuer}/auth\\?`));
    expect(op.requests.slice(asked)).toEqual(['GET /.well-known/openid-configuration']);
  });
});

describe('the callback', () => {
  /** A sign-in flow started at the service and walked through the provider's pages without a browser, up to its callback (not requested). */
  const pending = async (login = 'dave') => walkProvider((await authorizeJson(t, AUTHORIZE, returnTo)).body.url, { login, until: callbackOf(base, 'corp') });
  /** Refused with an error sent back to returnTo, and no result made. */
  const expectRefusedBack = async (url: URL) => {
    const answer = await navigate(url.href);
    expect(answer.status).toBe(302);
    const back = returnedTo(answer.headers.get('location')!, returnTo);
    expect(Object.keys(back)).toEqual(['error']);
    expect(['IDENTITY_PROVIDER_ERROR', 'INVALID_CREDENTIALS']).toContain(back.error);
    expect(await t.sql('select count(*)::int as n from identity_tickets')).toEqual([{ n: 0 }]);
  };

  it('is answered, as the authorize redirect, with no-store: neither the state nor the result is kept by a cache', async () => {
    const started = await navigate(authorizeUrl());
    expect(started.status).toBe(302);
    expect(started.headers.get('cache-control')).toContain('no-store');
    const callback = await walkProvider(started.headers.get('location')!, { login: 'dave', until: callbackOf(base, 'corp') });
    const answer = await navigate(callback.href);
    expect(answer.status).toBe(302);
    expect(Object.keys(returnedTo(answer.headers.get('location')!, returnTo))).toEqual(['result']);
    expect(answer.headers.get('cache-control')).toContain('no-store');
  });

  it('refuses a state past its 10 minutes with 400 and no redirect', async () => {
    const callback = await pending();
    const [flow] = await t.sql<{ ttl: number }>('select extract(epoch from expires_at - created_at)::float as ttl from oidc_flows');
    expect(flow!.ttl).toBeGreaterThan(595);
    expect(flow!.ttl).toBeLessThanOrEqual(601);
    await t.sql(`update oidc_flows set expires_at = now() - interval '1 second'`);
    const answer = await navigate(callback.href);
    expect(answer.headers.get('location')).toBeNull();
    expectProblem(answer, 400, 'VALIDATION_FAILED');
  });

  it("refuses a code injected into another flow: a code is bound to its own flow's PKCE verifier and nonce", async () => {
    const victim = await pending('alice');
    const injected = await pending('dave');
    injected.searchParams.set('code', victim.searchParams.get('code')!);
    await expectRefusedBack(injected);
  });

  it('refuses an answer that names another issuer (a mix-up)', async () => {
    const mixed = await pending();
    mixed.searchParams.set('iss', 'https://accounts.example.com');
    await expectRefusedBack(mixed);
  });
});

describe('the signed-in link flow in Chromium', () => {
  const LINK_AUTHORIZE = '/api/v1/users/me/identities/corp/authorize';
  const LINK_EXCHANGE = '/api/v1/users/me/identities/exchange';

  inBrowser('links the identity to the account that started it (Bearer and JSON, the browser at the provider, exchange), which then signs in with it', () =>
    browseAs(async (agent) => {
      const owner = await signInWithCode(t);
      const started = await authorizeJson(t, LINK_AUTHORIZE, linkReturnTo, { token: owner.accessToken });
      expect(started.status).toBe(200);
      expect(Object.keys(started.body)).toEqual(['url']);
      const redirect = await navigate(`${base}${LINK_AUTHORIZE}?returnTo=${encodeURIComponent(linkReturnTo)}`, owner.accessToken);
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toMatch(new RegExp(`^${op.issuer}/auth\\?`));
      expectProblem(await authorizeJson(t, LINK_AUTHORIZE, linkReturnTo), 401, 'UNAUTHENTICATED');

      const user = await agent();
      const back = returnedTo(await user.signIn(started.body.url, 'carol', { back: linkReturnTo }), linkReturnTo);
      expect(Object.keys(back)).toEqual(['result']);
      expectProblem(await t.http.post(LINK_EXCHANGE, { result: back.result }), 401, 'UNAUTHENTICATED');
      const linked = await t.http.post(LINK_EXCHANGE, { result: back.result }, { token: owner.accessToken });
      expect(linked.status).toBe(201);
      expect(linked.body).toEqual({ provider: 'corp', email: 'carol@example.com', name: 'Carol Example', linkedAt: expect.any(String), lastUsedAt: null });
      expect((await t.http.get('/api/v1/users/me/identities', { token: owner.accessToken })).body).toEqual([linked.body]);
      expectProblem(await t.http.post(LINK_EXCHANGE, { result: back.result }, { token: owner.accessToken }), 401, 'INVALID_CREDENTIALS');

      const signIn = await agent();
      const again = returnedTo(await signIn.signIn(authorizeUrl(), 'carol'), returnTo);
      const signedIn = await t.http.post(EXCHANGE, exchangeOf(again.result));
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.user.id).toBe(owner.userId);
      expectNoTokenIn([...urlsOf(user), ...urlsOf(signIn)], [owner.accessToken, owner.refreshToken, signedIn.body.accessToken]);
    }),
  );

  inBrowser("keeps a link flow's result from another account and from the sign-in exchange, on both transports, and the owner can still use it", () =>
    browseAs(async (agent) => {
      const owner = await signInWithCode(t);
      const intruder = await signInWithCode(t);
      const url = dataOf(await t.http.gql(ExternalLinkUrlDocument, { provider: 'corp', returnTo: linkReturnTo }, { token: owner.accessToken })).externalLinkUrl;
      const back = returnedTo(await (await agent()).signIn(url, 'dave', { back: linkReturnTo }), linkReturnTo);

      expectProblem(await t.http.post(LINK_EXCHANGE, { result: back.result }, { token: intruder.accessToken }), 401, 'INVALID_CREDENTIALS');
      errorOf(await t.http.gql(CompleteExternalLinkDocument, { result: back.result }, { token: intruder.accessToken }), 'INVALID_CREDENTIALS');
      // Not PHONE_VERIFICATION_REQUIRED: that would hand out a link token for the owner's identity.
      expectProblem(await t.http.post(EXCHANGE, exchangeOf(back.result)), 401, 'INVALID_CREDENTIALS');
      errorOf(await t.http.gql(CompleteExternalSignInDocument, exchangeOf(back.result)), 'INVALID_CREDENTIALS');
      expect((await t.http.get('/api/v1/users/me/identities', { token: intruder.accessToken })).body).toEqual([]);
      expect(await t.sql(`select count(*)::int as n from identity_tickets where kind = 'link'`)).toEqual([{ n: 0 }]);

      const linked = dataOf(await t.http.gql(CompleteExternalLinkDocument, { result: back.result }, { token: owner.accessToken })).completeExternalLink;
      expect(linked).toMatchObject({ provider: 'corp', email: 'dave@example.com' });
    }),
  );

  inBrowser("keeps a sign-in flow's result from the link exchange of a signed-in account", () =>
    browseAs(async (agent) => {
      const someone = await signInWithCode(t);
      const back = returnedTo(await (await agent()).signIn(authorizeUrl(), 'dave'), returnTo);
      expectProblem(await t.http.post(LINK_EXCHANGE, { result: back.result }, { token: someone.accessToken }), 401, 'INVALID_CREDENTIALS');
      expect((await t.http.get('/api/v1/users/me/identities', { token: someone.accessToken })).body).toEqual([]);
      expectProblem(await t.http.post(EXCHANGE, exchangeOf(back.result)), 401, 'PHONE_VERIFICATION_REQUIRED');
    }),
  );
});
