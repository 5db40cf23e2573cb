import { describe, expect, it } from '@jest/globals';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { countDispatched, expectSameAnswers, expectSamePaths, type Sent } from '../helpers/side-by-side.js';
import { claimsOf, forgeToken } from '../helpers/tokens.js';

// GET /api/v1/users/me is answered past Express's router (withLeanGet in src/graphql/fast-path.ts).
// The same requests to a server that takes that path and to one that does not must get the same
// answers: status, headers and body, byte for byte but for the request's own id.
const CORS_ORIGIN = 'https://app.example.com';
const env = { CORS_ORIGINS: CORS_ORIGIN };
const lean = useTestServer(env);
const plain = useTestServer(env, { fastPaths: false });

/** Requests under /api/v1/users dispatched by Express (the server's app.handle), by server. */
const dispatched = countDispatched([lean, plain], '/api/v1/users');

const expectSame = (request: Sent) => expectSameAnswers(lean, plain, request, { path: '/api/v1/users/me', method: 'GET' });

describe('GET /api/v1/users/me without the router answers as with it', () => {
  it('answers the same to the account, refusals and CORS, taking the lean path exactly for a plain GET of the route', async () => {
    const me = await signInWithCode(lean);
    const ended = await signInWithCode(lean);
    expect((await lean.http.post('/api/v1/auth/logout', {}, { token: ended.accessToken })).status).toBe(204);
    const bearer = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
    const subject = { sub: me.userId, sid: claimsOf(me.accessToken).sid };
    const leanCases: Sent[] = [
      { headers: bearer(me.accessToken) },
      { headers: bearer(me.accessToken, { origin: CORS_ORIGIN }) },
      { headers: bearer(me.accessToken, { origin: 'https://evil.example' }) },
      { headers: bearer(me.accessToken, { accept: 'text/html' }) },
      {},
      { headers: { authorization: 'Basic abc' } },
      { headers: bearer('not-a-token', { 'accept-language': 'zh-CN' }) },
      { headers: bearer(forgeToken(subject, { expiresIn: -60 })) },
      { headers: bearer(forgeToken(subject, { secret: 'another-secret-that-is-at-least-32-characters' })) },
      { headers: bearer(ended.accessToken) },
    ];
    await expectSamePaths({ lean, plain, dispatched }, leanCases, { path: '/api/v1/users/me', method: 'GET' }, false);
    const first = await expectSame(leanCases[0]!);
    expect({ status: first.status, id: JSON.parse(first.body).id, cache: first.headers['cache-control'] }).toEqual({ status: 200, id: me.userId, cache: 'no-store' });
    expect(JSON.parse((await expectSame(leanCases[4]!)).body).code).toBe('UNAUTHENTICATED');

    // Everything else goes through Express on both servers, and is answered the same too.
    const expressCases: Sent[] = [
      { path: '/api/v1/users/me?x=1', headers: bearer(me.accessToken) },
      { path: '/api/v1/users/me/', headers: bearer(me.accessToken) },
      { path: '/API/v1/users/ME', headers: bearer(me.accessToken) },
      { method: 'HEAD', headers: bearer(me.accessToken) },
      { method: 'OPTIONS', headers: { origin: CORS_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } },
      { method: 'PATCH', headers: bearer(me.accessToken, { 'content-type': 'application/json' }), body: JSON.stringify({ nickname: 'Lean Route' }) },
      { path: '/api/v1/users/me/sessions', headers: bearer(me.accessToken) },
    ];
    await expectSamePaths({ lean, plain, dispatched }, expressCases, { path: '/api/v1/users/me', method: 'GET' }, true);
    expect(dispatched.get(plain)).toBe(leanCases.length + 2 + expressCases.length);
  });
});
