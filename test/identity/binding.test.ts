// A web flow bound to the frontend that started it (RFC 7636's S256, between the frontend and this
// service): the result of a flow started with a codeChallenge is exchanged with its verifier only,
// on both transports. The login-CSRF it stops: an attacker walks a flow as themselves and plants its
// result in a victim's frontend, whose exchange, with the victim's own verifier or none, is refused.
// A refused exchange leaves the result to its frontend; a verifier sent for a result started without
// a challenge is refused too. The binding is required (OIDC_REQUIRE_BINDING, true by default): a
// sign-in started without a challenge is VALIDATION_FAILED, and the result of a flow started unbound
// (on an instance with OIDC_REQUIRE_BINDING=false, before the setting changed) is INVALID_CREDENTIALS;
// `loose`, a second instance on the same database with the setting off, keeps the optional binding.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer, type TestServer } from '../helpers/server.js';
import { CompleteExternalSignInDocument, ExternalSignInUrlDocument } from '../generated/graphql.js';
import { dataOf, errorOf } from '../graphql/support.js';
import { expectProblem } from '../rest/support.js';
import { authorizeJson, callbackOf, identityEnv, navigate, startQuery, webFlowHooks, returnedTo, startFrontend, walkProvider, type Frontend } from './flow-support.js';
import { freePort } from '../operability/support.js';
import { startProvider, type TestProvider } from './provider.js';
import { newBinding, OIDC, sessionCount, type Binding } from './support.js';

let base = '';
let env: Record<string, string> = {};
let op: TestProvider;
let app: Frontend;
let returnTo = '';

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await startFrontend();
  returnTo = app.url('/signed-in');
  op = await startProvider({
    clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: [callbackOf(base, 'corp')] }],
    accounts: { mallory: { name: 'Mallory' }, alice: { name: 'Alice' }, bob: { name: 'Bob' } },
  });
  env = { PORT: String(port), ...identityEnv(base, [{ id: 'corp', op, clientId: 'web', clientSecret: 'web-secret' }], [returnTo]) };
});

/** The deployment at `base`, with the default OIDC_REQUIRE_BINDING (true). */
const t = useTestServer(() => env, { captureLogs: true });
/** An instance of it with OIDC_REQUIRE_BINDING=false (behind the same public URL: the provider returns to `t`). */
const loose = useTestServer(() => ({ ...env, PORT: '0', OIDC_REQUIRE_BINDING: 'false' }), { captureLogs: true });
webFlowHooks([t, loose], () => ({ providers: [op], app }));

const EXCHANGE = `${OIDC}/exchange`;

/** The authorization URL of a flow started by REST on `on` (as a script: JSON), bound with `binding` (null: unbound). */
async function startByRest(binding: Binding | null, on: TestServer = t): Promise<string> {
  const started = await authorizeJson(on, `${OIDC}/corp/authorize`, returnTo, { binding });
  expect(started.status).toBe(200);
  return started.body.url;
}

/** The one-time result a flow from `url` brings back to the frontend, `login` signing in at the provider. */
async function resultOf(url: string, login: string): Promise<string> {
  const callback = await walkProvider(url, { login, until: callbackOf(base, 'corp') });
  const answer = await navigate(`${base}${callback.pathname}${callback.search}`);
  expect(answer.status).toBe(302);
  const back = returnedTo(answer.headers.get('location')!, returnTo);
  expect(Object.keys(back)).toEqual(['result']);
  return back.result!;
}

/** Links the identity of an unknown identity's exchange answer to a new account; its id. */
async function linkNewAccount(linkToken: string): Promise<string> {
  const phone = newPhone();
  const linked = await t.http.post(`${OIDC}/link`, { linkToken, phone, code: await requestCode(t, phone) });
  expect(linked.status).toBe(200);
  return linked.body.user.id;
}

/** An account linked to `login`'s identity at the provider, by a bound flow; its id. */
async function linkedAccount(login: string): Promise<string> {
  const own = newBinding();
  const answer = await t.http.post(EXCHANGE, { result: await resultOf(await startByRest(own), login), codeVerifier: own.verifier });
  return linkNewAccount(expectProblem(answer, 401, 'PHONE_VERIFICATION_REQUIRED').linkToken);
}

describe('a web flow started with a codeChallenge', () => {
  it('by REST: its result is refused without the verifier and with another, stays, and is taken once with its own', async () => {
    const frontend = newBinding();
    const result = await resultOf(await startByRest(frontend), 'alice');

    expectProblem(await t.http.post(EXCHANGE, { result }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: newBinding().verifier }), 401, 'INVALID_CREDENTIALS');
    // The challenge itself is not its verifier.
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.challenge }), 401, 'INVALID_CREDENTIALS');

    const unknown = expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.verifier }), 401, 'PHONE_VERIFICATION_REQUIRED');
    expect(unknown.identity).toMatchObject({ provider: 'corp', name: 'Alice' });
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.verifier }), 401, 'INVALID_CREDENTIALS');
    const userId = await linkNewAccount(unknown.linkToken);

    const next = newBinding();
    const signedIn = await t.http.post(EXCHANGE, { result: await resultOf(await startByRest(next), 'alice'), codeVerifier: next.verifier });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(userId);
  });

  it('by GraphQL: externalSignInUrl with the challenge, completeExternalSignIn with the verifier only', async () => {
    const first = newBinding();
    const url = dataOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge: first.challenge })).externalSignInUrl;
    const result = await resultOf(url, 'bob');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result }), 'INVALID_CREDENTIALS');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result, codeVerifier: newBinding().verifier }), 'INVALID_CREDENTIALS');
    const unknown = errorOf(await t.http.gql(CompleteExternalSignInDocument, { result, codeVerifier: first.verifier }), 'PHONE_VERIFICATION_REQUIRED');
    const userId = await linkNewAccount(unknown.extensions!.linkToken as string);

    const second = newBinding();
    const again = dataOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge: second.challenge })).externalSignInUrl;
    const signedIn = dataOf(await t.http.gql(CompleteExternalSignInDocument, { result: await resultOf(again, 'bob'), codeVerifier: second.verifier }));
    expect(signedIn.completeExternalSignIn.user.id).toBe(userId);
  });

  it("an attacker's result planted in a victim's frontend is refused with the victim's verifier, and the victim is not signed in as the attacker", async () => {
    // Mallory has an account linked to her identity at the provider.
    const mallory = await linkedAccount('mallory');

    // Her flow, bound to her challenge or to none (started where the binding is optional), lands in
    // the victim's frontend, which sends the verifier of the flow it started itself, or none.
    const victim = newBinding();
    await startByRest(victim);
    const hers = newBinding();
    const bound = await resultOf(await startByRest(hers), 'mallory');
    const unbound = await resultOf(await startByRest(null, loose), 'mallory');
    expectProblem(await t.http.post(EXCHANGE, { result: bound, codeVerifier: victim.verifier }), 401, 'INVALID_CREDENTIALS');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result: unbound, codeVerifier: victim.verifier }), 'INVALID_CREDENTIALS');
    expectProblem(await t.http.post(EXCHANGE, { result: unbound }), 401, 'INVALID_CREDENTIALS');
    expect(await sessionCount(t, mallory)).toBe(1);

    // Both results are still hers, each exchanged once the way it was started.
    const signedIn = await t.http.post(EXCHANGE, { result: bound, codeVerifier: hers.verifier });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(mallory);
    expect(dataOf(await loose.http.gql(CompleteExternalSignInDocument, { result: unbound })).completeExternalSignIn.user.id).toBe(mallory);
  });
});

describe('OIDC_REQUIRE_BINDING at its default (true)', () => {
  it('refuses a sign-in started without a codeChallenge with VALIDATION_FAILED naming it, on both transports, before anything reaches the provider', async () => {
    const asked = op.requests.length;
    const rest = expectProblem(await authorizeJson(t, `${OIDC}/corp/authorize`, returnTo, { binding: null }), 400, 'VALIDATION_FAILED');
    expect(rest.fields).toEqual({ codeChallenge: expect.stringMatching(/^is required/) });
    expect(rest.detail).toMatch(/codeChallenge is required/);
    const navigation = await navigate(`${base}${OIDC}/corp/authorize${startQuery(returnTo, null)}`);
    expect(navigation.headers.get('location')).toBeNull();
    expect(expectProblem(navigation, 400, 'VALIDATION_FAILED').fields).toEqual({ codeChallenge: expect.stringMatching(/^is required/) });
    for (const codeChallenge of [undefined, null]) {
      const error = errorOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge }), 'VALIDATION_FAILED');
      expect(error.extensions!.fields).toEqual({ codeChallenge: expect.stringMatching(/^is required/) });
    }
    // With a returnTo that is not listed either, both fields are named.
    const both = expectProblem(await authorizeJson(t, `${OIDC}/corp/authorize`, `${returnTo}/other`, { binding: null }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(both.fields).sort()).toEqual(['codeChallenge', 'returnTo']);
    expect(op.requests.slice(asked)).toEqual([]);
    expect(await t.sql('select 1 from oidc_flows')).toHaveLength(0);
  });

  it('refuses the result of a flow started unbound (where OIDC_REQUIRE_BINDING=false) with INVALID_CREDENTIALS on both transports, and signs nobody in', async () => {
    const userId = await linkedAccount('alice');
    const sessions = await sessionCount(t);
    const result = await resultOf(await startByRest(null, loose), 'alice');
    expectProblem(await t.http.post(EXCHANGE, { result }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: null }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: newBinding().verifier }), 401, 'INVALID_CREDENTIALS');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result }), 'INVALID_CREDENTIALS');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result, codeVerifier: newBinding().verifier }), 'INVALID_CREDENTIALS');
    expect(await sessionCount(t)).toBe(sessions);
    // The result was live all along: the instance with the binding optional signs alice in with it.
    const signedIn = await loose.http.post(EXCHANGE, { result });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(userId);
  });

  it("starts a signed-in user's link flow without a codeChallenge: its result is taken by that account only", async () => {
    const owner = await signInWithCode(t);
    const started = await authorizeJson(t, '/api/v1/users/me/identities/corp/authorize', returnTo, { token: owner.accessToken, binding: null });
    expect(started.status).toBe(200);
    expect(Object.keys(started.body)).toEqual(['url']);
  });
});

describe('OIDC_REQUIRE_BINDING=false', () => {
  it('starts a flow without a codeChallenge on both transports, exchanged without a verifier (as before), and refused with one', async () => {
    const result = await resultOf(await startByRest(null, loose), 'alice');
    expectProblem(await loose.http.post(EXCHANGE, { result, codeVerifier: newBinding().verifier }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await loose.http.post(EXCHANGE, { result, codeVerifier: null }), 401, 'PHONE_VERIFICATION_REQUIRED');

    const url = dataOf(await loose.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo })).externalSignInUrl;
    errorOf(await loose.http.gql(CompleteExternalSignInDocument, { result: await resultOf(url, 'bob') }), 'PHONE_VERIFICATION_REQUIRED');
  });

  it('still binds a flow started with a codeChallenge', async () => {
    const frontend = newBinding();
    const result = await resultOf(await startByRest(frontend, loose), 'alice');
    expectProblem(await loose.http.post(EXCHANGE, { result }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await loose.http.post(EXCHANGE, { result, codeVerifier: frontend.verifier }), 401, 'PHONE_VERIFICATION_REQUIRED');
  });
});

describe('bad codeChallenge and codeVerifier', () => {
  const badChallenges = [
    ['too short', 'a'.repeat(42)],
    ['too long', 'a'.repeat(44)],
    ['padded base64', `${'a'.repeat(42)}=`],
    ['standard base64', `${'a'.repeat(42)}+`],
    ['empty', ''],
  ] as const;

  it.each(badChallenges)('a challenge %s is refused before a flow starts, on both transports', async (_, challenge) => {
    const query = new URLSearchParams({ returnTo, codeChallenge: challenge });
    const rest = expectProblem(await t.http.get(`${OIDC}/corp/authorize?${query}`, { headers: { accept: 'application/json' } }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(rest.fields)).toEqual(['codeChallenge']);
    errorOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge: challenge }), 'VALIDATION_FAILED');
    expect(await t.sql('select 1 from oidc_flows')).toHaveLength(0);
  });

  it('a challenge given twice in the query is refused', async () => {
    const { challenge } = newBinding();
    const query = `returnTo=${encodeURIComponent(returnTo)}&codeChallenge=${challenge}&codeChallenge=${challenge}`;
    expectProblem(await t.http.get(`${OIDC}/corp/authorize?${query}`, { headers: { accept: 'application/json' } }), 400, 'VALIDATION_FAILED');
    expect(await t.sql('select 1 from oidc_flows')).toHaveLength(0);
  });

  const badVerifiers = [
    ['too short', 'a'.repeat(42)],
    ['too long', 'a'.repeat(129)],
    ['with a space', `${'a'.repeat(42)} `],
    ['with a slash', `${'a'.repeat(42)}/`],
  ] as const;

  it.each(badVerifiers)('a verifier %s is refused, and the result stays', async (_, verifier) => {
    const frontend = newBinding();
    const result = await resultOf(await startByRest(frontend), 'alice');
    const rest = expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: verifier }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(rest.fields)).toEqual(['codeVerifier']);
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result, codeVerifier: verifier }), 'VALIDATION_FAILED');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: 12345 }), 400, 'VALIDATION_FAILED');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.verifier }), 401, 'PHONE_VERIFICATION_REQUIRED');
  });
});
