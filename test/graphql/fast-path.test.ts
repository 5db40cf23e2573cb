import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { answerOf, countDispatched, expectSameAnswers, expectSamePaths, type Sent } from '../helpers/side-by-side.js';

// POST /graphql takes a lean path past Express's router and body parser (src/graphql/fast-path.ts).
// The same requests to a server with the lean path and to one without it must get the same answers:
// status, headers and body, byte for byte but for the request's own id.
const CORS_ORIGIN = 'https://app.example.com';
const env = { CORS_ORIGINS: CORS_ORIGIN };
const lean = useTestServer(env);
const plain = useTestServer(env, { fastPaths: false });

/** Requests under /graphql dispatched by Express (the server's app.handle), by server. */
const dispatched = countDispatched([lean, plain], '/graphql');
/** Requests Apollo answered on the lean server (the others were known queries, see KnownQueries). */
let byApollo = 0;
const restores: (() => void)[] = [];
beforeEach(() => {
  const apollo = lean.server.apollo;
  const execute = apollo.executeHTTPGraphQLRequest.bind(apollo);
  byApollo = 0;
  apollo.executeHTTPGraphQLRequest = (request) => {
    byApollo++;
    return execute(request);
  };
  restores.push(() => {
    apollo.executeHTTPGraphQLRequest = execute;
  });
});
afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});

const answer = (t: TestServer, request: Sent) => answerOf(t, { path: '/graphql', method: 'POST', ...request });
const expectSame = (request: Sent) => expectSameAnswers(lean, plain, request, { path: '/graphql', method: 'POST' });

const json = (token?: string, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  ...(token && { authorization: `Bearer ${token}` }),
  ...extra,
});

describe('POST /graphql without the router answers as with it', () => {
  it('answers the same to queries, errors and refusals, taking the lean path exactly for plain JSON POSTs', async () => {
    const me = await signInWithCode(lean);
    const token = me.accessToken;
    const query = (q: string, variables?: unknown) => JSON.stringify({ query: q, ...(variables !== undefined && { variables }) });
    const leanCases: Sent[] = [
      { headers: json(token), body: query('{ me { id phone nickname } }') },
      { headers: json(), body: query('{ me { id } }') },
      { headers: json(token, { origin: CORS_ORIGIN }), body: query('{ me { id } }') },
      { headers: json(token, { origin: 'https://evil.example' }), body: query('{ me { id } }') },
      { headers: json(token, { accept: 'application/graphql-response+json' }), body: query('{ me { nope } }') },
      { headers: json(token, { accept: 'text/html' }), body: query('{ me { id } }') },
      { headers: { ...json(token), 'content-type': 'application/json; charset=UTF-8' }, body: query('{ me { id } }') },
      { headers: json(token), body: `\uFEFF${query('{ me { id } }')}` },
      { headers: json(token), body: '  \n{"query": "{ me { id } }"}' },
      { headers: json(token), body: '{"query": ' },
      { headers: json(token), body: '"{ me { id } }"' },
      { headers: json(token), body: 'null' },
      { headers: json(token), body: '[{"query": "{ me { id } }"}]' },
      { headers: json(token), body: '{}' },
      { headers: json(token), body: query('{ me { id ') },
      { headers: json(token), body: query('{ me { id } }', 'not an object') },
      { headers: json(token), body: query(`{ me { ${'id '.repeat(1200)}} }`) },
      { headers: json(token), body: query('mutation { sendCode(input: { phone: "12" }) { expiresIn } }') },
      { headers: json(token), body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }) },
    ];
    await expectSamePaths({ lean, plain, dispatched }, leanCases, { path: '/graphql', method: 'POST' }, false);
    const first = await expectSame(leanCases[0]!);
    expect(JSON.parse(first.body)).toEqual({ data: { me: { id: me.userId, phone: me.phone, nickname: expect.any(String) } } });
    expect(first.headers['cache-control']).toBe('no-store');

    // Everything else goes through Express on both servers, and is answered the same too.
    const expressCases: Sent[] = [
      { path: '/graphql?x=1', headers: json(token), body: query('{ me { id } }') },
      { headers: { ...json(token), 'content-type': 'application/json; charset=latin1' }, body: query('{ me { id } }') },
      { headers: { ...json(token), 'content-type': 'text/plain' }, body: query('{ me { id } }') },
      { headers: json(token), body: '' },
      { headers: json(token), body: query(`{ me { id } } ${'#'.repeat(110 * 1024)}`) },
      { method: 'GET', path: `/graphql?query=${encodeURIComponent('{ me { id } }')}`, headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': '1' } },
      { method: 'PUT', headers: json(token), body: query('{ me { id } }') },
    ];
    await expectSamePaths({ lean, plain, dispatched }, expressCases, { path: '/graphql', method: 'POST' }, true);
    expect(dispatched.get(plain)).toBe(leanCases.length + 1 + expressCases.length);
  });

  it('answers a query Apollo answered before past Apollo, as Apollo answers it, and only such a query', async () => {
    const me = await signInWithCode(lean);
    const token = me.accessToken;
    const body = (fields: Record<string, unknown>) => JSON.stringify(fields);
    const firstScreen = 'query FirstScreen { me { id phone nickname avatarUrl hasPassword createdAt lastLoginAt } mySessions { id current } myStats { activeSessions daysSinceRegistration } myMfa { totp passkeys recoveryCodesLeft } }';
    /** Sends `request` twice to each server; whether the lean server's second answer came from Apollo. */
    const twice = async (request: Sent): Promise<boolean> => {
      await expectSame(request);
      const before = byApollo;
      await expectSame(request);
      return byApollo > before;
    };
    // Known after one answer: the same text, operation name and Accept.
    expect(await twice({ headers: json(token), body: body({ query: '{ me { id phone nickname } }' }) })).toBe(false);
    expect(await twice({ headers: json(token), body: body({ query: firstScreen, operationName: 'FirstScreen', variables: {} }) })).toBe(false);
    expect(await twice({ headers: json(token, { accept: 'application/graphql-response+json' }), body: body({ query: '{ me { id phone nickname } }' }) })).toBe(false);
    expect(await twice({ headers: json(token, { accept: 'application/json, */*' }), body: body({ query: '{ me { id } }', variables: null }) })).toBe(false);
    // A known query whose execution fails (no token, an ended session) is answered by Apollo: its errors as always.
    const unknownCaller = { headers: json(), body: body({ query: '{ me { id phone nickname } }' }) };
    let before = byApollo;
    const refused = await expectSame(unknownCaller);
    expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(byApollo).toBe(before + 1);
    // Never known: variables, extensions, a mutation, introspection and federation's fields, a failed answer.
    const phone = me.phone;
    for (const request of [
      { headers: json(token), body: body({ query: 'query Me($x: Boolean) { me { id } }', variables: { x: true } }) },
      { headers: json(token), body: body({ query: '{ me { id } }', extensions: { client: 'web' } }) },
      { headers: json(token), body: body({ query: `mutation { sendCode(input: { phone: "${phone}" }) { expiresIn } }` }) },
      { headers: json(token), body: body({ query: '{ __typename me { id } }' }) },
      { headers: json(token), body: body({ query: '{ _service { sdl } }' }) },
      { headers: json(token), body: body({ query: '{ me { nope } }' }) },
    ]) {
      before = byApollo;
      await expectSame(request);
      await expectSame(request);
      expect({ request: request.body, byApollo: byApollo - before }).toEqual({ request: request.body, byApollo: 2 });
    }
    // A session ended since: the known query's execution fails, and Apollo answers UNAUTHENTICATED.
    expect((await lean.http.post('/api/v1/auth/logout', {}, { token })).status).toBe(204);
    before = byApollo;
    const ended = await answer(lean, { headers: json(token), body: body({ query: '{ me { id phone nickname } }' }) });
    expect({ status: ended.status, code: JSON.parse(ended.body).errors[0].extensions.code, byApollo: byApollo - before }).toEqual({ status: 200, code: 'UNAUTHENTICATED', byApollo: 1 });
  });
});
