// A web flow bound to the frontend that started it (RFC 7636's S256, between the frontend and this
// service): the result of a flow started with a codeChallenge is exchanged with its verifier only,
// on both transports. The login-CSRF it stops: an attacker walks a flow as themselves and plants its
// result in a victim's frontend, whose exchange, with the victim's own verifier, is refused. A
// refused exchange leaves the result to its frontend; a verifier sent for a result started without a
// challenge is refused too (a frontend that binds its flows never takes an unbound one).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { requestCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { CompleteExternalSignInDocument, ExternalSignInUrlDocument } from '../generated/graphql.js';
import { dataOf, errorOf } from '../graphql/support.js';
import { expectProblem } from '../rest/support.js';
import { callbackOf, identityEnv, navigate, webFlowHooks, returnedTo, startFrontend, walkProvider, type Frontend } from './flow-support.js';
import { freePort } from '../operability/support.js';
import { startProvider, type TestProvider } from './provider.js';
import { OIDC } from './support.js';

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

const t = useTestServer(() => env, { captureLogs: true });
webFlowHooks([t], () => ({ providers: [op], app }));

const EXCHANGE = `${OIDC}/exchange`;

/** A frontend's secret for one flow, and the challenge it sends at the start. */
function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The authorization URL of a flow started by REST (as a script: JSON), with the challenge when given. */
async function startByRest(challenge?: string): Promise<string> {
  const query = new URLSearchParams({ returnTo, ...(challenge && { codeChallenge: challenge }) });
  const started = await t.http.get(`${OIDC}/corp/authorize?${query}`, { headers: { accept: 'application/json' } });
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

describe('a web flow started with a codeChallenge', () => {
  it('by REST: its result is refused without the verifier and with another, stays, and is taken once with its own', async () => {
    const frontend = pkcePair();
    const result = await resultOf(await startByRest(frontend.challenge), 'alice');

    expectProblem(await t.http.post(EXCHANGE, { result }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: pkcePair().verifier }), 401, 'INVALID_CREDENTIALS');
    // The challenge itself is not its verifier.
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.challenge }), 401, 'INVALID_CREDENTIALS');

    const unknown = expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.verifier }), 401, 'PHONE_VERIFICATION_REQUIRED');
    expect(unknown.identity).toMatchObject({ provider: 'corp', name: 'Alice' });
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.verifier }), 401, 'INVALID_CREDENTIALS');
    const userId = await linkNewAccount(unknown.linkToken);

    const next = pkcePair();
    const signedIn = await t.http.post(EXCHANGE, { result: await resultOf(await startByRest(next.challenge), 'alice'), codeVerifier: next.verifier });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(userId);
  });

  it('by GraphQL: externalSignInUrl with the challenge, completeExternalSignIn with the verifier only', async () => {
    const first = pkcePair();
    const url = dataOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge: first.challenge })).externalSignInUrl;
    const result = await resultOf(url, 'bob');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result }), 'INVALID_CREDENTIALS');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result, codeVerifier: pkcePair().verifier }), 'INVALID_CREDENTIALS');
    const unknown = errorOf(await t.http.gql(CompleteExternalSignInDocument, { result, codeVerifier: first.verifier }), 'PHONE_VERIFICATION_REQUIRED');
    const userId = await linkNewAccount(unknown.extensions!.linkToken as string);

    const second = pkcePair();
    const again = dataOf(await t.http.gql(ExternalSignInUrlDocument, { provider: 'corp', returnTo, codeChallenge: second.challenge })).externalSignInUrl;
    const signedIn = dataOf(await t.http.gql(CompleteExternalSignInDocument, { result: await resultOf(again, 'bob'), codeVerifier: second.verifier }));
    expect(signedIn.completeExternalSignIn.user.id).toBe(userId);
  });

  it("an attacker's result planted in a victim's frontend is refused with the victim's verifier, and the victim is not signed in as the attacker", async () => {
    // Mallory has an account linked to her identity at the provider.
    const own = pkcePair();
    const linkToken = expectProblem(
      await t.http.post(EXCHANGE, { result: await resultOf(await startByRest(own.challenge), 'mallory'), codeVerifier: own.verifier }),
      401,
      'PHONE_VERIFICATION_REQUIRED',
    ).linkToken;
    const mallory = await linkNewAccount(linkToken);

    // Her flow, bound to her challenge or to none, lands in the victim's frontend, which sends the
    // verifier of the flow it started itself.
    const victim = pkcePair();
    await startByRest(victim.challenge);
    const hers = pkcePair();
    const bound = await resultOf(await startByRest(hers.challenge), 'mallory');
    const unbound = await resultOf(await startByRest(), 'mallory');
    expectProblem(await t.http.post(EXCHANGE, { result: bound, codeVerifier: victim.verifier }), 401, 'INVALID_CREDENTIALS');
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result: unbound, codeVerifier: victim.verifier }), 'INVALID_CREDENTIALS');

    // Both results are still hers, each exchanged once the way it was started.
    const signedIn = await t.http.post(EXCHANGE, { result: bound, codeVerifier: hers.verifier });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(mallory);
    expect(dataOf(await t.http.gql(CompleteExternalSignInDocument, { result: unbound })).completeExternalSignIn.user.id).toBe(mallory);
  });
});

describe('a web flow started without a codeChallenge', () => {
  it('is exchanged without a verifier (as before), and refused with one', async () => {
    const result = await resultOf(await startByRest(), 'alice');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: pkcePair().verifier }), 401, 'INVALID_CREDENTIALS');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: null }), 401, 'PHONE_VERIFICATION_REQUIRED');
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
    const { challenge } = pkcePair();
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
    const frontend = pkcePair();
    const result = await resultOf(await startByRest(frontend.challenge), 'alice');
    const rest = expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: verifier }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(rest.fields)).toEqual(['codeVerifier']);
    errorOf(await t.http.gql(CompleteExternalSignInDocument, { result, codeVerifier: verifier }), 'VALIDATION_FAILED');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: 12345 }), 400, 'VALIDATION_FAILED');
    expectProblem(await t.http.post(EXCHANGE, { result, codeVerifier: frontend.verifier }), 401, 'PHONE_VERIFICATION_REQUIRED');
  });
});
