// A provider that is down, failing, slow or serving the wrong keys never stops the service nor the
// phone sign-ins: its own sign-ins answer IDENTITY_PROVIDER_ERROR (502) until it is back, and then
// work again without a restart (API.md 9.1). One service, OIDC_TIMEOUT_MS 500, with one test
// provider per outage so that each starts from its own state: down before the service starts,
// stopped while it runs, answering 500, hanging, serving a JWKS without the token's key, rotating
// its key. Throughout, the service writes no error-level line and answers no 5xx but 502.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { signInWithCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { sleep } from '../helpers/wait.js';
import { ExternalSignInUrlDocument } from '../generated/graphql.js';
import { errorOf } from '../graphql/support.js';
import { expectProblem } from '../rest/support.js';
import { authorizeJson, callbackOf, identityEnv, navigate, startQuery, webFlowHooks, returnedTo, startFrontend, walkProvider, type Frontend } from './flow-support.js';
import { freePort } from '../operability/support.js';
import { generateSigningKey, signIdToken } from './provider-keys.js';
import { startProvider, type TestProvider } from './provider.js';
import { exchangeOf, FRONTEND, idToken, OIDC, type IdTokenBody } from './support.js';

const TIMEOUT_MS = 500;
/** The retry pause after a failed discovery (providers.ts), and a margin. */
const RETRY_PAUSE_MS = 2_000 + 150;
/** The pause between two JWKS fetches for a key it lacks (providers.ts), and a margin. */
const JWKS_PAUSE_MS = 5_000 + 500;
/** Never a hang: an answer well before any client gives up (the exact timeout is a test of its own). */
const ANSWER_BOUND_MS = 2_000;

const ACCOUNTS = { erin: { name: 'Erin' }, sam: { name: 'Sam' }, rita: { name: 'Rita' } };
const IDS = ['early', 'steady', 'broken', 'slow', 'stuck', 'stalled', 'keyless', 'keeping', 'dropping'] as const;
type Id = (typeof IDS)[number];

let base = '';
let env: Record<string, string> = {};
let app: Frontend;
let returnTo = '';
const ops = {} as Record<Id, TestProvider>;
/** An ID token of `early` issued before it went down (valid for an hour). */
let earlyToken: IdTokenBody;

const providerOptions = (id: Id) => ({ clients: [{ clientId: 'web', clientSecret: `${id}-secret`, redirectUris: [callbackOf(base, id)] }], accounts: ACCOUNTS });

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await startFrontend();
  returnTo = app.url('/signed-in');
  for (const id of IDS) ops[id] = await startProvider(providerOptions(id));
  earlyToken = await issue('early', 'erin');
  await ops.early.stop();
  env = {
    PORT: String(port),
    ...identityEnv(base, IDS.map((id) => ({ id, op: ops[id], clientId: 'web', clientSecret: `${id}-secret` })), [returnTo]),
    OIDC_TIMEOUT_MS: String(TIMEOUT_MS),
  };
});

const t = useTestServer(() => env, { captureLogs: true });
webFlowHooks([t], () => ({ providers: IDS.map((id) => ops[id]), app }));

/** `work`, and how long it took. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** An ID token `provider` issues for `sub`, with its own nonce, as an app sends it. */
const issue = (provider: Id, sub = 'sam') => idToken(ops[provider], sub);
const sendIdToken = (provider: Id, body: IdTokenBody) => t.http.post(`${OIDC}/${provider}/id-token`, body);
const authorize = (provider: Id) => authorizeJson(t, `${OIDC}/${provider}/authorize`, returnTo);

/** An ID token the service verified: an identity no account has, so PHONE_VERIFICATION_REQUIRED. */
function expectVerified(res: HttpResult): void {
  expectProblem(res, 401, 'PHONE_VERIFICATION_REQUIRED');
}

/** The provider's own failure, told as such, and answered within the bound. */
function expectProviderError(answer: { value: HttpResult; ms: number }): void {
  expectProblem(answer.value, 502, 'IDENTITY_PROVIDER_ERROR');
  expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
}

/** A web flow of `provider` started at the service and walked through the provider's pages, up to its callback (not requested yet). */
async function pendingCallback(provider: Id, login = 'rita'): Promise<string> {
  const started = await authorize(provider);
  expect(started.status).toBe(200);
  return (await walkProvider(started.body.url, { login, until: callbackOf(base, provider) })).href;
}

/** The service's answer to the provider's return: where it sends the browser. */
async function callback(url: string): Promise<{ value: Record<string, string>; ms: number }> {
  const answer = await timed(() => navigate(url));
  expect(answer.value.status).toBe(302);
  return { value: returnedTo(answer.value.headers.get('location')!, returnTo), ms: answer.ms };
}

/** A phone sign-in, which no provider's state may touch, and how long it took. */
const phoneSignIn = () => timed(() => signInWithCode(t));

/** Retries `attempt` (each answer 502 IDENTITY_PROVIDER_ERROR until it is not) for up to `ms`; the first other answer. */
async function untilNotProviderError(attempt: () => Promise<HttpResult>, ms: number): Promise<HttpResult> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await attempt();
    if (res.status !== 502 || Date.now() > deadline) return res;
    expectProblem(res, 502, 'IDENTITY_PROVIDER_ERROR');
    await sleep(250);
  }
}

describe('a provider down before the service starts', () => {
  it('leaves the service ready and the phone sign-in working; its own sign-ins answer IDENTITY_PROVIDER_ERROR at once', async () => {
    expect((await t.http.get('/readyz')).status).toBe(200);
    expect((await phoneSignIn()).ms).toBeLessThan(ANSWER_BOUND_MS);

    expectProviderError(await timed(() => authorize('early')));
    const navigation = await timed(() => navigate(`${base}${OIDC}/early/authorize${startQuery(returnTo)}`));
    expect(navigation.value.headers.get('location')).toBeNull();
    expectProviderError(navigation);
    expectProviderError(await timed(() => sendIdToken('early', earlyToken)));
    const graphql = await timed(() => t.http.gql(ExternalSignInUrlDocument, { provider: 'early', returnTo, codeChallenge: FRONTEND.challenge }));
    errorOf(graphql.value, 'IDENTITY_PROVIDER_ERROR');
    expect(graphql.ms).toBeLessThan(ANSWER_BOUND_MS);

    // The other providers are not held back by this one.
    expect((await authorize('steady')).status).toBe(200);
    expect((await t.http.get('/readyz')).status).toBe(200);
  });

  it('works once the provider is started again on the same port, without a restart of the service, after the retry pause', async () => {
    const failed = Date.now();
    expectProblem(await authorize('early'), 502, 'IDENTITY_PROVIDER_ERROR');
    ops.early = await startProvider({ ...providerOptions('early'), port: ops.early.port, keys: [...ops.early.keys] });
    // Within the pause after a failed discovery it is not asked again, though it is back (checked
    // only while well within the pause, as a slow machine may have taken longer to get here).
    if (Date.now() - failed < 1_500) {
      expectProviderError(await timed(() => authorize('early')));
      expect(ops.early.requests).toEqual([]);
    }

    await sleep(Math.max(0, failed + RETRY_PAUSE_MS - Date.now()));
    const started = await authorize('early');
    expect(started.status).toBe(200);
    expect(new URL(started.body.url).origin).toBe(ops.early.issuer);
    expectVerified(await sendIdToken('early', earlyToken));
    const back = (await callback((await walkProvider(started.body.url, { login: 'rita', until: callbackOf(base, 'early') })).href)).value;
    expect(Object.keys(back)).toEqual(['result']);
    expectVerified(await t.http.post(`${OIDC}/exchange`, exchangeOf(back.result)));
  });
});

describe('a provider stopped while the service runs', () => {
  it('fails the sign-ins that need it with IDENTITY_PROVIDER_ERROR, serves the rest from its cache, leaves the phone sign-in alone, and recovers', async () => {
    const op = ops.steady;
    expectVerified(await sendIdToken('steady', await issue('steady')));
    const pending = await pendingCallback('steady');
    const cachedKeyToken = await issue('steady');
    const { claims } = await op.issueIdToken({ clientId: 'web', sub: 'sam', nonce: 'unknown-key' });
    const keys = [...op.keys];
    await op.stop();

    expect((await phoneSignIn()).ms).toBeLessThan(ANSWER_BOUND_MS);
    // The code cannot be exchanged: back to the frontend with the error, not a 5xx, not a hang.
    const returned = await callback(pending);
    expect(returned.value).toEqual({ error: 'IDENTITY_PROVIDER_ERROR' });
    expect(returned.ms).toBeLessThan(ANSWER_BOUND_MS);
    // A token under a key the service does not have needs the provider's JWKS.
    const unknownKey = { idToken: await signIdToken(await generateSigningKey(), claims), nonce: 'unknown-key' };
    expectProviderError(await timed(() => sendIdToken('steady', unknownKey)));
    // What needs nothing from the provider but what the service holds may go on (the contract asks
    // only that it be the provider's error when it fails): a token under a key fetched before, and
    // the start of a web flow from the cached metadata (the browser then meets the outage there).
    const cached = await timed(() => sendIdToken('steady', cachedKeyToken));
    if (cached.value.status === 502) expectProviderError(cached);
    else expectVerified(cached.value);
    expect(cached.ms).toBeLessThan(ANSWER_BOUND_MS);
    const start = await timed(() => authorize('steady'));
    if (start.value.status === 200) expect(new URL(start.value.body.url).origin).toBe(op.issuer);
    else expectProviderError(start);
    expect(start.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect((await t.http.get('/readyz')).status).toBe(200);

    ops.steady = await startProvider({ ...providerOptions('steady'), port: op.port, keys });
    expectVerified(await sendIdToken('steady', await issue('steady')));
    const back = (await callback(await pendingCallback('steady'))).value;
    expectVerified(await t.http.post(`${OIDC}/exchange`, exchangeOf(back.result)));
  });
});

describe('a provider answering 500', () => {
  it('answers IDENTITY_PROVIDER_ERROR when its discovery, its JWKS or its token endpoint answers 500, and recovers without a restart', async () => {
    const op = ops.broken;
    const token = await issue('broken');
    await op.setFault('error500');
    const failed = Date.now();
    expectProviderError(await timed(() => authorize('broken')));
    expectProviderError(await timed(() => sendIdToken('broken', token)));
    expect((await phoneSignIn()).ms).toBeLessThan(ANSWER_BOUND_MS);

    await op.setFault(undefined);
    await sleep(Math.max(0, failed + RETRY_PAUSE_MS - Date.now()));
    // Discovered now, its JWKS not fetched yet.
    const pending = await pendingCallback('broken');
    await op.setFault('error500');
    const asked = op.requests.length;
    expectProviderError(await timed(() => sendIdToken('broken', token)));
    expect(op.requests.slice(asked)).toEqual(['GET /jwks']);
    expect((await callback(pending)).value).toEqual({ error: 'IDENTITY_PROVIDER_ERROR' });
    expect(op.requests.at(-1)).toBe('POST /token');

    await op.setFault(undefined);
    expectVerified(await sendIdToken('broken', token));
    const back = (await callback(await pendingCallback('broken'))).value;
    expectVerified(await t.http.post(`${OIDC}/exchange`, exchangeOf(back.result)));
  });
});

describe('a provider that hangs', () => {
  it('answers IDENTITY_PROVIDER_ERROR without hanging, at discovery, JWKS and token endpoint, while the service answers everything else; then recovers', async () => {
    const op = ops.slow;
    const token = await issue('slow');
    await op.setFault('hang');
    const asked = op.requests.length;
    let answered = false;
    const hanging = timed(() => authorize('slow')).finally(() => (answered = true));
    // Meanwhile the service answers the rest, before the provider's request gives up.
    await sleep(50);
    expect((await t.http.get('/readyz')).status).toBe(200);
    await phoneSignIn();
    expect(answered).toBe(false);
    const discovery = await hanging;
    const failed = Date.now();
    expectProviderError(discovery);
    expect(discovery.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(op.requests.slice(asked)).toEqual(['GET /.well-known/openid-configuration']);

    await op.setFault(undefined);
    await sleep(Math.max(0, failed + RETRY_PAUSE_MS - Date.now()));
    const pending = await pendingCallback('slow');
    await op.setFault('hang');
    const jwks = await timed(() => sendIdToken('slow', token));
    expectProviderError(jwks);
    expect(jwks.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(op.requests.at(-1)).toBe('GET /jwks');
    const returned = await callback(pending);
    expect(returned.value).toEqual({ error: 'IDENTITY_PROVIDER_ERROR' });
    expect(returned.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(op.requests.at(-1)).toBe('POST /token');

    await op.setFault(undefined);
    expectVerified(await sendIdToken('slow', token));
    expect(Object.keys((await callback(await pendingCallback('slow'))).value)).toEqual(['result']);
  });

  it('gives up on it after OIDC_TIMEOUT_MS, not at the next whole second', async () => {
    // `stuck` hangs before it is ever discovered; `stalled`, once a code of it waits at the callback.
    const pending = await pendingCallback('stalled');
    await ops.stuck.setFault('hang');
    await ops.stalled.setFault('hang');
    const [discovery, tokenEndpoint] = await Promise.all([timed(() => authorize('stuck')), callback(pending)]);
    expectProblem(discovery.value, 502, 'IDENTITY_PROVIDER_ERROR');
    expect(tokenEndpoint.value).toEqual({ error: 'IDENTITY_PROVIDER_ERROR' });

    const late = Object.entries({ discovery: discovery.ms, tokenEndpoint: tokenEndpoint.ms })
      .filter(([, ms]) => ms < TIMEOUT_MS - 50 || ms >= TIMEOUT_MS + 300)
      .map(([request, ms]) => `${request} gave up after ${Math.round(ms)} ms`);
    expect(late).toEqual([]);
  });
});

describe("a provider whose JWKS lacks the token's key", () => {
  it('answers IDENTITY_PROVIDER_ERROR, and accepts the token once the key is served, within the JWKS refetch pause', async () => {
    const op = ops.keyless;
    const token = await issue('keyless');
    await op.setFault('jwksWithoutKey');
    expectProviderError(await timed(() => sendIdToken('keyless', token)));
    expect(op.requests).toContain('GET /jwks');
    // Asked again at once: the JWKS is not fetched again within its pause, nor is the answer other.
    const asked = op.requests.length;
    expectProviderError(await timed(() => sendIdToken('keyless', token)));
    expect(op.requests.length).toBe(asked);
    expect((await phoneSignIn()).ms).toBeLessThan(ANSWER_BOUND_MS);

    await op.setFault(undefined);
    const started = Date.now();
    expectVerified(await untilNotProviderError(() => sendIdToken('keyless', token), JWKS_PAUSE_MS));
    expect(Date.now() - started).toBeLessThan(JWKS_PAUSE_MS);
  });
});

describe('a key rotation at the provider', () => {
  it('accepts the ID tokens of the new key without a restart, whether the JWKS keeps the previous key or drops it', async () => {
    const before = { keeping: await issue('keeping'), dropping: await issue('dropping') };
    const old = { keeping: await issue('keeping'), dropping: await issue('dropping') };
    expectVerified(await sendIdToken('keeping', before.keeping));
    expectVerified(await sendIdToken('dropping', before.dropping));
    const fetched = Date.now();

    await ops.keeping.rotateKey({ keepPrevious: true });
    await ops.dropping.rotateKey({ keepPrevious: false });
    const after = { keeping: await issue('keeping'), dropping: await issue('dropping') };
    for (const id of ['keeping', 'dropping'] as const) {
      expectVerified(await untilNotProviderError(() => sendIdToken(id, after[id]), JWKS_PAUSE_MS));
    }
    expect(Date.now() - fetched).toBeLessThan(JWKS_PAUSE_MS + 1_000);
    // A token of the previous key: still good while the provider publishes it.
    expectVerified(await sendIdToken('keeping', old.keeping));
    // Once the provider dropped it, a token of the previous key is refused (as a key the provider does not publish).
    const withdrawn = await sendIdToken('dropping', old.dropping);
    if (withdrawn.status === 401) expectProblem(withdrawn, 401, 'INVALID_CREDENTIALS');
    else expectProblem(withdrawn, 502, 'IDENTITY_PROVIDER_ERROR');
  });

  it('completes web sign-ins whose ID token is signed with the new key without a restart, within the JWKS refetch pause', async () => {
    const first = (await callback(await pendingCallback('keeping'))).value;
    expect(Object.keys(first)).toEqual(['result']);
    const fetched = Date.now();
    await ops.keeping.rotateKey({ keepPrevious: true });
    let back: Record<string, string> = {};
    while (Date.now() - fetched < JWKS_PAUSE_MS) {
      back = (await callback(await pendingCallback('keeping'))).value;
      if (back.result) break;
      expect(back).toEqual({ error: 'IDENTITY_PROVIDER_ERROR' });
      await sleep(500);
    }
    expect(Object.keys(back)).toEqual(['result']);
    expectVerified(await t.http.post(`${OIDC}/exchange`, exchangeOf(back.result)));
  });
});
