// HTTP hardening: security headers, no-store, CORS allow-list, oversized headers, TRUST_PROXY, and
// where access tokens are (not) read from.
import { describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { GOOD_PASSWORD, registerUser, signInWithCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { errorOf } from '../graphql/support.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';

const SEND = '/api/v1/auth/send-code';
const ME = '/api/v1/users/me';
const BIG = JSON.stringify({ phone: '+8613800138000', padding: 'x'.repeat(200 * 1024) });

const t = useTestServer();

const raw = (path: string, rawBody: string, headers: Record<string, string> = {}, method = 'POST') =>
  t.http.request(method, path, { rawBody, headers: { 'content-type': 'application/json', ...headers } });
const gql = (query: string, server = t, headers: Record<string, string> = {}) => server.http.post('/graphql', { query }, { headers });

/** Runs each request and checks its status, so that a header check below never looks at the wrong response. */
async function collect(requests: [label: string, status: number, request: () => Promise<HttpResult>][]) {
  const results: [string, HttpResult][] = [];
  for (const [label, status, request] of requests) {
    const res = await request();
    expect({ label, status: res.status }).toEqual({ label, status });
    results.push([label, res]);
  }
  return results;
}

describe('security headers', () => {
  it('are on REST and GraphQL responses, successes and errors alike', async () => {
    const s = await signInWithCode(t);
    const results = await collect([
      ['REST 200', 200, () => t.http.get('/api/v1/auth/config')],
      ['REST 200 with a token', 200, () => t.http.get(ME, { token: s.accessToken })],
      ['REST 401', 401, () => t.http.get(ME)],
      ['REST 404', 404, () => t.http.get('/api/v1/nope')],
      ['REST 400 (not JSON)', 400, () => raw(SEND, '{')],
      ['REST 413', 413, () => raw(SEND, BIG)],
      ['REST 429', 429, () => t.http.post(SEND, { phone: s.phone })],
      ['GraphQL 200', 200, () => gql('{ config { registrationEnabled } }')],
      ['GraphQL 200 with UNAUTHENTICATED', 200, () => gql('{ me { id } }')],
      ['GraphQL 400', 400, () => gql('{ nope }')],
      ['GraphQL 413', 413, () => raw('/graphql', BIG)],
      ['GraphQL landing page', 200, () => t.http.get('/graphql', { headers: { accept: 'text/html' } })],
      ['health', 200, () => t.http.get('/healthz')],
    ]);
    for (const [label, res] of results) {
      const h = res.headers;
      expect({ label, hsts: h.get('strict-transport-security'), nosniff: h.get('x-content-type-options'), poweredBy: h.get('x-powered-by') }).toEqual({
        label,
        hsts: 'max-age=31536000; includeSubDomains',
        nosniff: 'nosniff',
        poweredBy: null,
      });
      expect({ label, csp: h.get('content-security-policy'), referrer: h.get('referrer-policy') }).toEqual({
        label,
        csp: expect.stringContaining("frame-ancestors 'none'"),
        referrer: 'no-referrer',
      });
      if (label === 'GraphQL landing page') continue;
      // The API set (OWASP REST Security Cheat Sheet): framing refused outright, no headers that only act on documents.
      const documentOnly = ['x-xss-protection', 'x-dns-prefetch-control', 'x-download-options', 'origin-agent-cluster', 'x-permitted-cross-domain-policies'];
      expect({ label, frame: h.get('x-frame-options'), documentOnly: documentOnly.filter((name) => h.has(name)) }).toEqual({ label, frame: 'DENY', documentOnly: [] });
    }
  });

  it('answers no-store API responses without an ETag: no cache keeps them to revalidate', async () => {
    const s = await signInWithCode(t);
    const me = await t.http.get(ME, { token: s.accessToken });
    expect({ status: me.status, cacheControl: me.headers.get('cache-control'), etag: me.headers.get('etag') }).toEqual({ status: 200, cacheControl: 'no-store', etag: null });
    const gqlMe = await gql('{ me { id } }', t, { authorization: `Bearer ${s.accessToken}` });
    expect({ status: gqlMe.status, cacheControl: gqlMe.headers.get('cache-control'), etag: gqlMe.headers.get('etag') }).toEqual({ status: 200, cacheControl: 'no-store', etag: null });
  });
});

describe('Cache-Control: no-store', () => {
  it('is on every /api/v1/auth and /api/v1/users/me response, success or error, and on every GraphQL answer', async () => {
    const phone = newPhone();
    const codeOnly = await signInWithCode(t);
    await t.http.post(SEND, { phone, purpose: 'register' });
    const code = await t.codeFor(phone, 'register');
    let s = { accessToken: '', refreshToken: '' };
    const loginPhone = newPhone();
    const results = await collect([
      ['GET config', 200, () => t.http.get('/api/v1/auth/config')],
      ['GET config, path in capitals (Express routes it)', 200, () => t.http.get('/API/V1/AUTH/config')],
      ['send-code 200', 200, () => t.http.post(SEND, { phone: loginPhone })],
      ['send-code 429', 429, () => t.http.post(SEND, { phone: loginPhone })],
      ['send-code 400', 400, () => t.http.post(SEND, { phone: 'nope' })],
      ['send-code 400 (not JSON)', 400, () => raw(SEND, '{"phone":')],
      ['send-code 413', 413, () => raw(SEND, BIG)],
      ['login 200', 200, async () => t.http.post('/api/v1/auth/login', { phone: loginPhone, code: await t.codeFor(loginPhone) })],
      ['login 400', 400, () => t.http.post('/api/v1/auth/login', { phone: loginPhone, code: '000000' })],
      ['register 400', 400, () => t.http.post('/api/v1/auth/register', { phone, code, password: 'short' })],
      ['register 201', 201, async () => {
        const res = await t.http.post('/api/v1/auth/register', { phone, code, password: GOOD_PASSWORD });
        s = res.body;
        return res;
      }],
      ['login-password 200', 200, () => t.http.post('/api/v1/auth/login-password', { phone, password: GOOD_PASSWORD })],
      ['login-password 401', 401, () => t.http.post('/api/v1/auth/login-password', { phone, password: 'wrong-password' })],
      ['refresh 200', 200, async () => {
        const res = await t.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken });
        s = res.body;
        return res;
      }],
      ['refresh 401', 401, () => t.http.post('/api/v1/auth/refresh', { refreshToken: 'A'.repeat(43) })],
      ['reset-password 400', 400, () => t.http.post('/api/v1/auth/reset-password', { phone, code: '000000', newPassword: 'fresh-meadow-77' })],
      ['auth 404', 404, () => t.http.get('/api/v1/auth/nope')],
      ['me 200', 200, () => t.http.get(ME, { token: s.accessToken })],
      ['me 401', 401, () => t.http.get(ME, { token: 'garbage' })],
      ['PATCH me 200', 200, () => t.http.request('PATCH', ME, { token: s.accessToken, body: { nickname: 'Ann' } })],
      ['PATCH me 413', 413, () => raw(ME, BIG, { authorization: `Bearer ${s.accessToken}` }, 'PATCH')],
      ['sessions 200', 200, () => t.http.get(`${ME}/sessions`, { token: s.accessToken })],
      ['sessions 401', 401, () => t.http.get(`${ME}/sessions`)],
      ['stats 200', 200, () => t.http.get(`${ME}/stats`, { token: s.accessToken })],
      ['security-events 200', 200, () => t.http.get(`${ME}/security-events`, { token: s.accessToken })],
      ['security-events 400', 400, () => t.http.get(`${ME}/security-events?limit=0`, { token: s.accessToken })],
      ['security-events 401', 401, () => t.http.get(`${ME}/security-events`)],
      ['password 204', 204, () => t.http.request('PUT', `${ME}/password`, { token: s.accessToken, body: { currentPassword: GOOD_PASSWORD, newPassword: 'fresh-meadow-77' } })],
      ['password 400', 400, () => t.http.request('PUT', `${ME}/password`, { token: s.accessToken, body: { newPassword: 'short' } })],
      ['logout 204', 204, () => t.http.post('/api/v1/auth/logout', {}, { token: codeOnly.accessToken })],
      ['logout 401', 401, () => t.http.post('/api/v1/auth/logout', {}, { token: codeOnly.accessToken })],
      ['GraphQL 200', 200, () => gql('{ config { registrationEnabled } }')],
      ['GraphQL 200 with an error', 200, () => gql('{ me { id } }')],
      ['GraphQL GET query 200', 200, async () => {
        const res = await t.http.get(`/graphql?query=${encodeURIComponent('{ config { registrationEnabled } }')}`, { headers: { 'apollo-require-preflight': 'true' } });
        expect(typeof res.body.data.config.registrationEnabled).toBe('boolean');
        return res;
      }],
      ['GraphQL GET landing page', 200, () => t.http.get('/graphql', { headers: { accept: 'text/html' } })],
      ['GraphQL 400', 400, () => gql('{ nope }')],
      ['GraphQL 400 (not JSON)', 400, () => raw('/graphql', '{"query":')],
      ['GraphQL 413', 413, () => raw('/graphql', BIG)],
    ]);
    const missing = results.filter(([, res]) => res.headers.get('cache-control') !== 'no-store').map(([label]) => label);
    expect(missing).toEqual([]);
  });
});

describe('CORS', () => {
  const APP = 'https://app.example.com';
  const cors = useTestServer({ CORS_ORIGINS: APP });
  const corsHeaders = (res: HttpResult) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
  const preflight = (server: TestServer, origin: string, path = '/graphql') =>
    server.http.request('OPTIONS', path, {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });

  it('allows a configured origin on requests and on preflights, without credentials', async () => {
    for (const res of [
      await cors.http.get('/api/v1/auth/config', { headers: { origin: APP } }),
      await gql('{ config { registrationEnabled } }', cors, { origin: APP }),
    ]) {
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('vary')).toMatch(/origin/i);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    for (const path of ['/graphql', '/api/v1/auth/login-password']) {
      const res = await preflight(cors, APP, path);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('gives an unknown origin no Access-Control-* header at all', async () => {
    for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.net', 'http://app.example.com', 'null']) {
      const responses = [
        await cors.http.get('/api/v1/auth/config', { headers: { origin } }),
        await gql('{ config { registrationEnabled } }', cors, { origin }),
        await preflight(cors, origin),
      ];
      for (const res of responses) expect({ origin, headers: corsHeaders(res) }).toEqual({ origin, headers: [] });
    }
    // Without CORS_ORIGINS no origin is allowed.
    expect(corsHeaders(await preflight(t, APP))).toEqual([]);
    expect(corsHeaders(await t.http.get('/api/v1/auth/config', { headers: { origin: APP } }))).toEqual([]);
  });
});

describe('oversized request headers', () => {
  /** Sends raw bytes (fetch would refuse such headers) and returns what the server answered. */
  function rawExchange(request: string): Promise<string> {
    const { hostname, port } = new URL(t.url);
    return new Promise((resolve, reject) => {
      let answer = '';
      const socket = connect(Number(port), hostname, () => socket.write(request));
      socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
      socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
      socket.on('error', (error) => (answer ? undefined : reject(error)));
      socket.on('close', () => resolve(answer));
    });
  }

  it('are answered with 431 and the server keeps serving', async () => {
    const cookie = `session=${'x'.repeat(40 * 1024)}`;
    for (const path of ['/api/v1/auth/config', '/graphql']) {
      const answer = await rawExchange(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    }
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await t.http.get('/api/v1/auth/config')).status).toBe(200);
  });
});

describe('TRUST_PROXY', () => {
  const sessionIps = async (server: TestServer, token: string) =>
    ((await server.http.get(`${ME}/sessions`, { token })).body as { ip: string }[]).map((session) => session.ip);

  it('is off by default: X-Forwarded-For does not change the recorded address', async () => {
    const phone = newPhone();
    const xff = { 'x-forwarded-for': '198.51.100.7' };
    await t.http.post(SEND, { phone }, { headers: xff });
    const login = await t.http.post('/api/v1/auth/login', { phone, code: await t.codeFor(phone) }, { headers: xff });
    expect(await sessionIps(t, login.body.accessToken)).toEqual(['127.0.0.1']);
  });

  describe('set to loopback', () => {
    const proxied = useTestServer({ TRUST_PROXY: 'loopback', SEND_CODE_PER_IP_HOURLY: '1' });
    const send = (ip: string, phone = newPhone()) => proxied.http.post(SEND, { phone }, { headers: { 'x-forwarded-for': ip } });

    it('counts the per-IP send-code limit per forwarded address', async () => {
      expect((await send('203.0.113.1')).status).toBe(200);
      expectRateLimited(await send('203.0.113.1'), 3600);
      expect((await send('203.0.113.2')).status).toBe(200);
      expect((await proxied.http.post(SEND, { phone: newPhone() })).status).toBe(200); // the proxy's own address
    });

    it('records the forwarded address on the session', async () => {
      const phone = newPhone();
      expect((await send('198.51.100.7', phone)).status).toBe(200);
      const login = await proxied.http.post('/api/v1/auth/login', { phone, code: await proxied.codeFor(phone) }, {
        headers: { 'x-forwarded-for': '198.51.100.7' },
      });
      expect(await sessionIps(proxied, login.body.accessToken)).toEqual(['198.51.100.7']);
    });
  });
});

describe('access tokens', () => {
  it('are read from the Authorization header only: not from the query string, a cookie or the body', async () => {
    const s = await registerUser(t);
    const token = s.accessToken;
    const cookie = `access_token=${token}; token=${token}; Authorization=Bearer%20${token}`;
    expectProblem(await t.http.get(`${ME}?access_token=${token}`), 401, 'UNAUTHENTICATED');
    expectProblem(await t.http.get(ME, { headers: { cookie } }), 401, 'UNAUTHENTICATED');
    const body = { accessToken: token, access_token: token, token, authorization: `Bearer ${token}` };
    expectProblem(await t.http.post('/api/v1/auth/logout', body), 401, 'UNAUTHENTICATED');
    expectProblem(await t.http.request('PATCH', ME, { body: { ...body, nickname: 'Mallory' } }), 401, 'UNAUTHENTICATED');

    const me = '{ me { id } }';
    errorOf(await t.http.post(`/graphql?access_token=${token}`, { query: me }), 'UNAUTHENTICATED');
    errorOf(await t.http.post('/graphql', { query: me }, { headers: { cookie } }), 'UNAUTHENTICATED');
    errorOf(await t.http.post('/graphql', { query: me, ...body, extensions: { authorization: `Bearer ${token}` } }), 'UNAUTHENTICATED');

    // The same token in the header works, and nothing above logged the session out.
    const ok = await t.http.get(ME, { token });
    expect(ok.status).toBe(200);
    expect(ok.body.nickname).not.toBe('Mallory');
  });
});
