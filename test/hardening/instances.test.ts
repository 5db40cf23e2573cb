// "Every limit holds across several instances of the service that share one database" (API.md
// section 5): two instances, A and B, of one deployment, with counters in PostgreSQL, then in Redis.
// The Redis half needs a Redis server: `npm test` starts one of its own unless TEST_REDIS_URL is set,
// and skips it with a printed reason only when there is no redis-server to start (never in CI).
import { describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode } from '../helpers/factories.js';
import { describeWithRedis, instancePair, type Pair } from '../helpers/instances.js';
import { newPhone, type TestServer } from '../helpers/server.js';
import { errorOf } from '../graphql/support.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';
import { wrongCode } from '../helpers/assertions.js';


/** Where a counter must be found (and where it must not). */
interface CounterStore {
  expectCounter(key: string, atLeast: number): Promise<void>;
}

const gqlSendCode = (server: TestServer, phone: string) =>
  server.http.post('/graphql', { query: 'mutation($p: String!) { sendCode(input: { phone: $p }) { expiresIn } }', variables: { p: phone } });
const gqlLogin = (server: TestServer, phone: string, code: string) =>
  server.http.post('/graphql', { query: 'mutation($i: CodeLoginInput!) { login(input: $i) { accessToken } }', variables: { i: { phone, code } } });
const gqlPasswordLogin = (server: TestServer, phone: string, password: string) =>
  server.http.post('/graphql', {
    query: 'mutation($i: PasswordLoginInput!) { loginWithPassword(input: $i) { accessToken } }',
    variables: { i: { phone, password } },
  });

function sharedLimits(pair: Pair, store: CounterStore): void {
  it('enforces on B the send-code interval reached on A', async () => {
    const phone = newPhone();
    expect((await pair.a.http.post('/api/v1/auth/send-code', { phone })).status).toBe(200);
    expectRateLimited(await pair.b.http.post('/api/v1/auth/send-code', { phone, purpose: 'register' }), 60);
    errorOf(await gqlSendCode(pair.b, phone), 'RATE_LIMITED');
    expect((await pair.b.outbox()).filter((m) => m.phone === phone)).toEqual([]);
    await store.expectCounter(`send-code:phone:${phone}:interval`, 1);
  });

  it('counts the per-address send-code limit (20 an hour) over both instances', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await (i % 2 === 0 ? pair.a : pair.b).http.post('/api/v1/auth/send-code', { phone: newPhone() });
      expect(res.status).toBe(200);
    }
    expectRateLimited(await pair.a.http.post('/api/v1/auth/send-code', { phone: newPhone() }), 3600);
    expectRateLimited(await pair.b.http.post('/api/v1/auth/send-code', { phone: newPhone() }), 3600);
    await store.expectCounter('send-code:ip:127.0.0.1', 20);
  });

  it('burns a code after 5 wrong guesses spread over A and B', async () => {
    const phone = newPhone();
    const code = await requestCode(pair.a, phone);
    for (let i = 0; i < 3; i++) expectProblem(await pair.a.http.post('/api/v1/auth/login', { phone, code: wrongCode(code) }), 400, 'INVALID_CODE');
    for (let i = 0; i < 2; i++) errorOf(await gqlLogin(pair.b, phone, wrongCode(code)), 'INVALID_CODE');
    expectProblem(await pair.b.http.post('/api/v1/auth/login', { phone, code }), 400, 'INVALID_CODE');
    expectProblem(await pair.a.http.post('/api/v1/auth/login', { phone, code }), 400, 'INVALID_CODE');
    expect(await pair.a.sql('select count(*)::int as n from users')).toEqual([{ n: 0 }]);
  });

  it('counts password failures on A and B together: the sixth attempt is refused on both', async () => {
    const user = await registerUser(pair.a);
    for (let i = 0; i < 3; i++) {
      expectProblem(await pair.a.http.post('/api/v1/auth/login-password', { phone: user.phone, password: `wrong-${i}-password` }), 401, 'INVALID_CREDENTIALS');
    }
    for (let i = 3; i < 5; i++) errorOf(await gqlPasswordLogin(pair.b, user.phone, `wrong-${i}-password`), 'INVALID_CREDENTIALS');
    expectRateLimited(await pair.a.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD }), 900);
    errorOf(await gqlPasswordLogin(pair.b, user.phone, GOOD_PASSWORD), 'RATE_LIMITED');
    await store.expectCounter(`login-fail:phone-ip:${user.phone}:127.0.0.1`, 5);
  });

  it('refuses on B the access and refresh tokens of a session logged out on A', async () => {
    const s = await signInWithCode(pair.a);
    expect((await pair.b.http.get('/api/v1/users/me', { token: s.accessToken })).status).toBe(200);
    expect((await pair.a.http.post('/api/v1/auth/logout', {}, { token: s.accessToken })).status).toBe(204);
    expectProblem(await pair.b.http.get('/api/v1/users/me', { token: s.accessToken }), 401, 'UNAUTHENTICATED');
    errorOf(await pair.b.http.post('/graphql', { query: '{ me { id } }' }, { token: s.accessToken }), 'UNAUTHENTICATED');
    expectProblem(await pair.b.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken }), 401, 'UNAUTHENTICATED');
  });

  it('answers on B a refresh token just rotated on A with the same new one, accepts the new one there, and then refuses the old one', async () => {
    const s = await signInWithCode(pair.a);
    const rotated = await pair.a.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken });
    expect(rotated.status).toBe(200);
    const again = await pair.b.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken });
    expect({ status: again.status, refreshToken: again.body.refreshToken }).toEqual({ status: 200, refreshToken: rotated.body.refreshToken });
    const next = await pair.b.http.post('/api/v1/auth/refresh', { refreshToken: rotated.body.refreshToken });
    expect(next.status).toBe(200);
    expect(next.body.user.id).toBe(s.userId);
    expectProblem(await pair.b.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken }), 401, 'UNAUTHENTICATED');
  });
}

describe('two instances with counters in PostgreSQL', () => {
  const pair = instancePair(() => ({}));
  sharedLimits(pair, {
    async expectCounter(key, atLeast) {
      const rows = await pair.a.sql<{ count: number }>('select count from rate_limits where key = $1', [key]);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.count).toBeGreaterThanOrEqual(atLeast);
    },
  });
});

describeWithRedis('two instances with counters in Redis', ({ env, prefix, client: redis }) => {
  const pair = instancePair(() => env);

  sharedLimits(pair, {
    async expectCounter(key, atLeast) {
      expect(Number(await redis().get(`${prefix}rl:${key}`))).toBeGreaterThanOrEqual(atLeast);
      expect(await redis().pttl(`${prefix}rl:${key}`)).toBeGreaterThan(0);
      expect(await pair.a.sql('select key from rate_limits')).toEqual([]);
    },
  });

  it('keeps its counters under REDIS_KEY_PREFIX only', async () => {
    const phone = newPhone();
    expect((await pair.a.http.post('/api/v1/auth/send-code', { phone })).status).toBe(200);
    const keys = (await redis().keys('*')).filter((k) => k.includes(phone));
    expect(keys.sort()).toEqual([`${prefix}rl:send-code:phone:${phone}:day`, `${prefix}rl:send-code:phone:${phone}:hour`, `${prefix}rl:send-code:phone:${phone}:interval`]);
  });
});
