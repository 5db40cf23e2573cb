// The opaque one-time tokens this service issues (a web flow's result, a linkToken, an mfaToken, a
// refresh token: 43 characters of base64url) are taken in their own spelling only (API.md 10.0):
// padded, with whitespace around them, their last character changed in its unused bits or a letter
// in the other case, each is refused as an unknown token is on that route, before it is used and
// after, on both transports and on another instance, and a refused spelling spends nothing. Access
// tokens: another spelling of a valid one is UNAUTHENTICATED, whatever the signing algorithm.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { CompleteExternalSignInDocument, LogoutDocument, MeDocument, RefreshTokenDocument } from '../generated/graphql.js';
import { requestCode, signInWithCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer, type TestServer } from '../helpers/server.js';
import { spellingsOf, type Spelling } from '../helpers/spellings.js';
import { callbackOf, identityEnv, navigate, returnedTo, startFrontend, walkProvider, webFlowHooks, type Frontend } from '../identity/flow-support.js';
import { startProvider, type TestProvider } from '../identity/provider.js';
import { accepted, idToken, linkByPhone, linkTokenOf, OIDC, refusal, signInWithIdToken, TRANSPORTS, type Transport, verifyMfa } from '../identity/support.js';
import { codeAt, enrolledUser, mfaTokenByCode, steadyStep } from '../mfa/support.js';
import { freePort } from '../operability/support.js';

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
  op = await startProvider({ clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: [callbackOf(base, 'corp')] }], accounts: { dave: { name: 'Dave' }, erin: { name: 'Erin' } } });
  env = { ...identityEnv(base, [{ id: 'corp', op, clientId: 'web', clientSecret: 'web-secret' }], [returnTo]), LOGIN_FAILURES_PER_IP_DAILY: '100000' };
});

/** A, at the port the provider sends the browser back to; B, another instance on the same database. */
const t = useTestServer(() => ({ ...env, PORT: new URL(base).port }), { captureLogs: true });
const b = useTestServer(() => env, { captureLogs: true });
webFlowHooks([t, b], () => ({ providers: [op], app }));

/** The code each spelling of `value` got from `call`, by the spelling's name; `expected` for every one of them. */
async function codesOf(spellings: Spelling[], call: (value: string) => Promise<string | undefined>): Promise<Record<string, string | undefined>> {
  const codes: Record<string, string | undefined> = {};
  for (const { name, value } of spellings) codes[name] = await call(value);
  return codes;
}
const every = (spellings: Spelling[], code: string) => Object.fromEntries(spellings.map(({ name }) => [name, code]));

/** The error code of a REST or GraphQL answer, its status checked (REST: `status`; GraphQL: 200), or undefined for a success. */
function codeOf(res: HttpResult, transport: Transport, status: number): string | undefined {
  if (transport === 'REST') {
    if (res.status < 300) return undefined;
    expect(res.status).toBe(status);
    return res.body.code;
  }
  expect(res.status).toBe(200);
  return res.body.errors?.[0]?.extensions?.code;
}

/** A sign-in flow bound to a new verifier, walked at the provider as `login`: its result, and the verifier it is exchanged with. */
async function newResult(login: string): Promise<{ result: string; codeVerifier: string }> {
  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const started = await t.http.get(`${OIDC}/corp/authorize?${new URLSearchParams({ returnTo, codeChallenge })}`, { headers: { accept: 'application/json' } });
  expect(started.status).toBe(200);
  const callback = await walkProvider(started.body.url, { login, until: callbackOf(base, 'corp') });
  const answer = await navigate(`${base}${callback.pathname}${callback.search}`);
  const back = returnedTo(answer.headers.get('location')!, returnTo);
  expect(Object.keys(back)).toEqual(['result']);
  return { result: back.result!, codeVerifier };
}

describe.each(TRANSPORTS)('over %s', (transport: Transport) => {
  const exchange = (server: TestServer, codeVerifier: string) => async (result: string) =>
    transport === 'REST'
      ? codeOf(await server.http.post(`${OIDC}/exchange`, { result, codeVerifier }), transport, 401)
      : codeOf(await server.http.gql(CompleteExternalSignInDocument, { result, codeVerifier }), transport, 401);
  const refresh = (server: TestServer) => async (refreshToken: string) =>
    transport === 'REST'
      ? codeOf(await server.http.post('/api/v1/auth/refresh', { refreshToken }), transport, 401)
      : codeOf(await server.http.gql(RefreshTokenDocument, { refreshToken }), transport, 401);
  const logout = (server: TestServer) => async (refreshToken: string) =>
    transport === 'REST'
      ? codeOf(await server.http.post('/api/v1/auth/logout', { refreshToken }), transport, 401)
      : codeOf(await server.http.gql(LogoutDocument, { refreshToken }), transport, 401);

  it("a web flow's result: INVALID_CREDENTIALS in every other spelling, before its use (which they leave to it) and after, on either instance", async () => {
    const { result, codeVerifier } = await newResult('dave');
    const spellings = spellingsOf(result);
    expect(await codesOf(spellings, exchange(t, codeVerifier))).toEqual(every(spellings, 'INVALID_CREDENTIALS'));
    expect(await codesOf(spellings, exchange(b, codeVerifier))).toEqual(every(spellings, 'INVALID_CREDENTIALS'));
    expect(await exchange(t, codeVerifier)(result)).toBe('PHONE_VERIFICATION_REQUIRED');
    expect(await codesOf([...spellings, { name: 'itself', value: result }], exchange(b, codeVerifier))).toEqual(every([...spellings, { name: 'itself', value: result }], 'INVALID_CREDENTIALS'));
  });

  it('a linkToken: INVALID_CREDENTIALS in every other spelling, the phone code kept for its own spelling, and after its use on either instance', async () => {
    const linkToken = linkTokenOf(await signInWithIdToken(t, 'corp', await idToken(op, 'erin'), transport), transport, { provider: 'corp', email: null, name: 'Erin' });
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const link = (server: TestServer) => async (value: string) => (await linkByPhone(server, { linkToken: value, phone, code }, transport)).code;
    const spellings = spellingsOf(linkToken);
    expect(await codesOf(spellings, link(t))).toEqual(every(spellings, 'INVALID_CREDENTIALS'));
    expect(await codesOf(spellings, link(b))).toEqual(every(spellings, 'INVALID_CREDENTIALS'));
    accepted(await linkByPhone(t, { linkToken, phone, code }, transport));
    expect(await codesOf(spellings, link(b))).toEqual(every(spellings, 'INVALID_CREDENTIALS'));
  });

  it('an mfaToken: INVALID_CODE in every other spelling, with a right code, before its use (no attempt of it spent) and after, on either instance', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const mfaToken = await mfaTokenByCode(t, user.phone);
    const verify = (server: TestServer, code: string) => async (value: string) => {
      const outcome = await verifyMfa(server, value, code, transport);
      return outcome.code === undefined ? undefined : refusal(outcome, transport).code;
    };
    const spellings = spellingsOf(mfaToken);
    expect(await codesOf(spellings, verify(t, codeAt(user.secret, step)))).toEqual(every(spellings, 'INVALID_CODE'));
    expect(await codesOf(spellings, verify(b, codeAt(user.secret, step)))).toEqual(every(spellings, 'INVALID_CODE'));
    accepted(await verifyMfa(t, mfaToken, codeAt(user.secret, step), transport));
    expect(await codesOf(spellings, verify(b, codeAt(user.secret, step + 1)))).toEqual(every(spellings, 'INVALID_CODE'));
  });

  it('a refresh token: UNAUTHENTICATED in every other spelling, to refresh or to log out, before its rotation and after it (within the grace window too), on either instance', async () => {
    const session = await signInWithCode(t);
    const spellings = spellingsOf(session.refreshToken);
    expect(await codesOf(spellings, refresh(t))).toEqual(every(spellings, 'UNAUTHENTICATED'));
    expect(await codesOf(spellings, refresh(b))).toEqual(every(spellings, 'UNAUTHENTICATED'));
    expect(await codesOf(spellings, logout(b))).toEqual(every(spellings, 'UNAUTHENTICATED'));
    expect(await refresh(t)(session.refreshToken)).toBeUndefined();
    expect(await codesOf(spellings, refresh(b))).toEqual(every(spellings, 'UNAUTHENTICATED'));
  });
});

describe.each([['HS256', {}], ['ES256', { JWT_ALGORITHM: 'ES256' }], ['EdDSA', { JWT_ALGORITHM: 'EdDSA' }]] as const)('an access token signed with %s', (_alg, keys) => {
  const server = useTestServer(() => ({ ...keys }));

  it.each(TRANSPORTS)('in any other spelling is UNAUTHENTICATED on %s, and its own spelling still signs in', async (transport: Transport) => {
    const session = await signInWithCode(server);
    // An HTTP header's value loses the whitespace around it on the way: a second space after the scheme does not.
    const spellings = [...spellingsOf(session.accessToken, { whitespace: false }), { name: 'a second space after Bearer', value: ` ${session.accessToken}` }];
    // The code and its reason: a token that is not one (never `expired`, which would send the client to refresh).
    const me = async (token: string) => {
      const res = transport === 'REST' ? await server.http.get('/api/v1/users/me', { token }) : await server.http.gql(MeDocument, {}, { token });
      const code = codeOf(res, transport, 401);
      return code && `${code} ${transport === 'REST' ? res.body.reason : res.body.errors[0].extensions.reason}`;
    };
    expect(await me(session.accessToken)).toBeUndefined();
    expect(await codesOf(spellings, me)).toEqual(every(spellings, 'UNAUTHENTICATED invalid'));
    expect(await me(session.accessToken)).toBeUndefined();
  });
});
