// Two instances of one deployment on one database, behind one public URL: a web flow started on one
// (bound to the frontend) is finished (callback and exchange) on the other, its state and result taken once over both; an
// ID token accepted by one is refused by the other. The test plays the load balancer: the provider
// sends the user to the deployment's PUBLIC_URL, and the test hands that request to the instance it
// picks.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { requestCode, signInWithCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { instancePair } from '../helpers/instances.js';
import { newPhone, type TestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { expectProblem } from '../rest/support.js';
import { authorizeJson, callbackOf, identityEnv, navigate, webFlowHooks, returnedTo, startFrontend, walkProvider, type Frontend } from './flow-support.js';
import { freePort } from '../operability/support.js';
import { startProvider, type TestProvider } from './provider.js';
import { exchangeOf, idToken, OIDC, sessionCount, type IdTokenBody } from './support.js';


/** The deployment's public URL: nothing listens there, the test routes each request to A or B. */
let front = '';
let env: Record<string, string> = {};
let op: TestProvider;
let app: Frontend;
let returnTo = '';

beforeAll(async () => {
  front = `http://127.0.0.1:${await freePort()}`;
  app = await startFrontend();
  returnTo = app.url('/signed-in');
  op = await startProvider({
    clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: [callbackOf(front, 'corp')] }],
    accounts: { alice: { name: 'Alice' }, bob: { name: 'Bob' }, nina: { name: 'Nina' } },
  });
  env = identityEnv(front, [{ id: 'corp', op, clientId: 'web', clientSecret: 'web-secret' }], [returnTo]);
});

const { a, b } = instancePair(() => env, { captureLogs: true });
webFlowHooks([a, b], () => ({ providers: [op], app }));

const EXCHANGE = `${OIDC}/exchange`;

/** A web flow started on `on` (as a signed-in user's link flow with `token`), walked through the provider's pages up to the deployment's callback. */
async function startedOn(on: TestServer, login: string, token?: string): Promise<URL> {
  const path = token ? '/api/v1/users/me/identities/corp/authorize' : `${OIDC}/corp/authorize`;
  const started = await authorizeJson(on, path, returnTo, { token });
  expect(started.status).toBe(200);
  return walkProvider(started.body.url, { login, until: callbackOf(front, 'corp') });
}

/** The provider's return to the deployment, handed to instance `to`. */
const returnOn = (to: TestServer, callback: URL) => navigate(`${to.url}${callback.pathname}${callback.search}`);

/** Where `answer` (a callback's) sends the browser: the frontend with its result or error. */
function sentBack(answer: HttpResult): Record<string, string> {
  expect(answer.status).toBe(302);
  return returnedTo(answer.headers.get('location')!, returnTo);
}

describe('a web flow over two instances', () => {
  it('started on A is finished on B, and the other way round, its state taken once over both', async () => {
    const callback = await startedOn(a, 'alice');
    const back = sentBack(await returnOn(b, callback));
    expect(Object.keys(back)).toEqual(['result']);
    expectProblem(await returnOn(a, callback), 400, 'VALIDATION_FAILED');
    expectProblem(await returnOn(b, callback), 400, 'VALIDATION_FAILED');

    const unknown = expectProblem(await b.http.post(EXCHANGE, exchangeOf(back.result)), 401, 'PHONE_VERIFICATION_REQUIRED');
    expectProblem(await a.http.post(EXCHANGE, exchangeOf(back.result)), 401, 'INVALID_CREDENTIALS');
    const phone = newPhone();
    const linked = await a.http.post(`${OIDC}/link`, { linkToken: unknown.linkToken, phone, code: await requestCode(a, phone) });
    expect(linked.status).toBe(200);

    const again = sentBack(await returnOn(a, await startedOn(b, 'alice')));
    const signedIn = await b.http.post(EXCHANGE, exchangeOf(again.result));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(linked.body.user.id);
    expect(claimsOf(signedIn.body.accessToken).amr).toEqual(['fed']);
  });

  it('returned to both at once with the same state: one instance sends a result, the other refuses', async () => {
    const callback = await startedOn(a, 'bob');
    const answers = await Promise.all([returnOn(a, callback), returnOn(b, callback)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([302, 400]);
    const back = sentBack(answers.find((answer) => answer.status === 302)!);
    expect(Object.keys(back)).toEqual(['result']);
    // The result, sent to both at once, is taken once.
    const exchanges = await Promise.all([a, b].map((on) => on.http.post(EXCHANGE, exchangeOf(back.result))));
    expect(exchanges.map((res) => res.body.code).sort()).toEqual(['INVALID_CREDENTIALS', 'PHONE_VERIFICATION_REQUIRED']);
  });

  it("signed in on A, links with a flow whose callback and exchange reach B", async () => {
    const owner = await signInWithCode(a);
    const back = sentBack(await returnOn(b, await startedOn(a, 'nina', owner.accessToken)));
    const linked = await b.http.post('/api/v1/users/me/identities/exchange', { result: back.result }, { token: owner.accessToken });
    expect(linked.status).toBe(201);
    expect((await a.http.get('/api/v1/users/me/identities', { token: owner.accessToken })).body).toEqual([linked.body]);
  });
});

describe('an ID token over two instances', () => {
  const issue = (sub: string) => idToken(op, sub);
  const send = (on: TestServer, body: IdTokenBody) => on.http.post(`${OIDC}/corp/id-token`, body);

  it('accepted by one is refused by the other, even when both judge it at the same moment', async () => {
    const first = await issue('alice');
    const unknown = expectProblem(await send(a, first), 401, 'PHONE_VERIFICATION_REQUIRED');
    expectProblem(await send(b, first), 401, 'INVALID_CREDENTIALS');
    const phone = newPhone();
    expect((await b.http.post(`${OIDC}/link`, { linkToken: unknown.linkToken, phone, code: await requestCode(b, phone) })).status).toBe(200);

    const second = await issue('alice');
    const signedIn = await send(b, second);
    expect(signedIn.status).toBe(200);
    expectProblem(await send(a, second), 401, 'INVALID_CREDENTIALS');

    const third = await issue('alice');
    const answers = await Promise.all([send(a, third), send(b, third)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 401]);
    expectProblem(answers.find((res) => res.status === 401)!, 401, 'INVALID_CREDENTIALS');
    expect(await sessionCount(a, signedIn.body.user.id)).toBe(3);
  });
});
