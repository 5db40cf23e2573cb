// Wrong codes are limited like wrong passwords: CODE_FAILURES_PER_PHONE_IP (10) per phone and
// address in 15 minutes, CODE_FAILURES_PER_IP_DAILY (100) per address, for every use of a code
// (login, register, reset-password, delete-account), then 429 RATE_LIMITED with Retry-After; and a
// flood of them cannot push a user's real events off the first page of their security log.
import { describe, expect, it } from '@jest/globals';
import { errorOf, expectRetryAfter } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode } from '../helpers/factories.js';
import { describeWithRedis, instancePair, type Pair } from '../helpers/instances.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';

type Transport = 'REST' | 'GraphQL';
type Use = 'login' | 'register' | 'reset-password' | 'delete-account';
const as = (ip: string) => ({ 'x-forwarded-for': ip });

/** One use of `code` for `phone` (delete-account: by the signed-in `token`), from `ip`. */
function use(t: TestServer, transport: Transport, what: Use, phone: string, code: string, ip: string, token?: string): Promise<HttpResult> {
  const headers = as(ip);
  const gql = (query: string, variables: Record<string, unknown>) => t.http.post('/graphql', { query, variables }, { headers, token });
  switch (what) {
    case 'login':
      return transport === 'REST'
        ? t.http.post('/api/v1/auth/login', { phone, code }, { headers })
        : gql('mutation($i: CodeLoginInput!) { login(input: $i) { accessToken } }', { i: { phone, code } });
    case 'register':
      return transport === 'REST'
        ? t.http.post('/api/v1/auth/register', { phone, code, password: GOOD_PASSWORD }, { headers })
        : gql('mutation($i: RegisterInput!) { register(input: $i) { accessToken } }', { i: { phone, code, password: GOOD_PASSWORD } });
    case 'reset-password':
      return transport === 'REST'
        ? t.http.post('/api/v1/auth/reset-password', { phone, code, newPassword: 'amber-violin-58' }, { headers })
        : gql('mutation($i: ResetPasswordInput!) { resetPassword(input: $i) }', { i: { phone, code, newPassword: 'amber-violin-58' } });
    case 'delete-account':
      return transport === 'REST'
        ? t.http.request('DELETE', '/api/v1/users/me', { body: { code }, headers, token })
        : gql('mutation($c: String!) { deleteAccount(code: $c) }', { c: code });
  }
}

function expectInvalidCode(res: HttpResult, transport: Transport): void {
  if (transport === 'REST') expectProblem(res, 400, 'INVALID_CODE');
  else errorOf(res, 'INVALID_CODE');
}

function expectLimited(res: HttpResult, transport: Transport, maxSeconds: number): void {
  if (transport === 'REST') expectRateLimited(res, maxSeconds);
  else expect(expectRetryAfter(res)).toBeLessThanOrEqual(maxSeconds);
}

const wrong = (i: number) => String(100000 + i);

describe('per phone and address (CODE_FAILURES_PER_PHONE_IP, 10 in 15 minutes)', () => {
  const t = useTestServer({ TRUST_PROXY: 'loopback', SEND_CODE_INTERVAL_SECONDS: '0' });

  const cases: { transport: Transport; what: Use }[] = [];
  for (const transport of ['REST', 'GraphQL'] as const) {
    for (const what of ['login', 'register', 'reset-password', 'delete-account'] as const) cases.push({ transport, what });
  }

  it.each(cases)('over $transport, $what: ten wrong codes, then RATE_LIMITED for that address even with the right code; another address is not held', async ({ transport, what }) => {
    const account = what === 'register' ? undefined : await signInWithCode(t);
    const phone = account?.phone ?? newPhone();
    const code = await requestCode(t, phone, what);
    for (let i = 0; i < 10; i++) {
      // The code's own five attempts burn it on the way: every answer is still INVALID_CODE.
      expectInvalidCode(await use(t, transport, what, phone, wrong(i), '198.51.100.1', account?.accessToken), transport);
    }
    expectLimited(await use(t, transport, what, phone, code, '198.51.100.1', account?.accessToken), transport, 900);
    const fresh = await requestCode(t, phone, what);
    expectLimited(await use(t, transport, what, phone, fresh, '198.51.100.1', account?.accessToken), transport, 900);
    const other = await use(t, transport, what, phone, fresh, '198.51.100.2', account?.accessToken);
    expect(other.status).toBeLessThan(300);
    expect(other.body.errors).toBeUndefined();
  });

  it('lets at most 10 of 300 parallel wrong codes be judged; the rest are RATE_LIMITED, none is a server error', async () => {
    const { phone } = await signInWithCode(t);
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => use(t, i % 2 ? 'GraphQL' : 'REST', 'login', phone, wrong(i), '198.51.100.3')),
    );
    const codes = answers.map((r) => (r.body.errors ? r.body.errors[0].extensions.code : r.body.code));
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    expect(codes.filter((c) => c === 'INVALID_CODE').length).toBeLessThanOrEqual(10);
    expect(codes.filter((c) => c !== 'INVALID_CODE' && c !== 'RATE_LIMITED')).toEqual([]);
    const failed = await t.sql<{ n: number }>("select count(*)::int as n from security_events where type = 'SIGN_IN_FAILED' and phone_masked like $1 and at > now() - interval '1 minute'", [`%${phone.slice(-4)}`]);
    expect(failed[0]!.n).toBeLessThanOrEqual(1);
  });
});

/** Wrong codes sent to two instances in turn: the eleventh is refused by whichever gets it. */
async function acrossInstances({ a, b }: Pair): Promise<void> {
  const { phone } = await signInWithCode(a);
  for (let i = 0; i < 10; i++) expectInvalidCode(await use(i % 2 ? b : a, 'REST', 'login', phone, wrong(i), '198.51.100.4'), 'REST');
  expectLimited(await use(a, 'GraphQL', 'login', phone, wrong(10), '198.51.100.4'), 'GraphQL', 900);
  expectLimited(await use(b, 'REST', 'login', phone, wrong(11), '198.51.100.4'), 'REST', 900);
}

describe('across two instances sharing PostgreSQL', () => {
  const pair = instancePair(() => ({ TRUST_PROXY: 'loopback' }));
  it('holds the per phone and address limit', () => acrossInstances(pair));
});

describeWithRedis('across two instances sharing Redis', (redis) => {
  const pair = instancePair(() => ({ ...redis.env, TRUST_PROXY: 'loopback' }));
  it('holds the per phone and address limit', () => acrossInstances(pair));
});

describe('per address per day (CODE_FAILURES_PER_IP_DAILY)', () => {
  const t = useTestServer({ TRUST_PROXY: 'loopback', CODE_FAILURES_PER_IP_DAILY: '6' });

  it('refuses the address across phones and purposes once it sent that many wrong codes, on both transports', async () => {
    for (let i = 0; i < 6; i++) {
      const transport = i % 2 ? 'GraphQL' : 'REST';
      expectInvalidCode(await use(t, transport, i % 3 ? 'login' : 'register', newPhone(), wrong(i), '198.51.100.9'), transport);
    }
    expectLimited(await use(t, 'REST', 'login', newPhone(), wrong(7), '198.51.100.9'), 'REST', 86400);
    expectLimited(await use(t, 'GraphQL', 'register', newPhone(), wrong(8), '198.51.100.9'), 'GraphQL', 86400);
    expectInvalidCode(await use(t, 'REST', 'login', newPhone(), wrong(9), '198.51.100.10'), 'REST');
  });
});

describe("a flood of wrong codes and passwords in a user's security log", () => {
  const t = useTestServer({ TRUST_PROXY: 'loopback', SEND_CODE_INTERVAL_SECONDS: '0' });

  it('keeps the real sign-ins on the first page after 50 wrong codes and 50 wrong passwords from 50 addresses, on both transports', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 3; i++) {
      const code = await requestCode(t, user.phone);
      expect((await t.http.post('/api/v1/auth/login', { phone: user.phone, code }, { headers: as('192.0.2.1') })).status).toBe(200);
    }
    await requestCode(t, user.phone); // a live code to guess at, as an attacker would find
    for (let i = 0; i < 50; i++) {
      const ip = `203.0.113.${i + 1}`;
      const transport = i % 2 ? 'GraphQL' : 'REST';
      const res = await use(t, transport, 'login', user.phone, wrong(i), ip);
      expectInvalidCode(res, transport);
      const password = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: `guess-${i}-password` }, { headers: as(ip) });
      expectProblem(password, 401, 'INVALID_CREDENTIALS');
    }
    const last = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD }, { headers: as('192.0.2.1') });
    expect(last.status).toBe(200);
    const token = last.body.accessToken as string;

    const rest = await t.http.get('/api/v1/users/me/security-events', { token });
    expect(rest.status).toBe(200);
    const page = rest.body.items.map((e: { type: string; method: string | null }) => `${e.type}:${e.method}`);
    expect(page.filter((e: string) => e === 'SIGN_IN:CODE')).toHaveLength(4); // registration and three sign-ins
    expect(page[0]).toBe('SIGN_IN:PASSWORD');
    expect(page.filter((e: string) => e === 'SIGN_IN_FAILED:CODE')).toHaveLength(1);
    expect(page.filter((e: string) => e === 'SIGN_IN_FAILED:PASSWORD')).toHaveLength(1);

    const gql = await t.http.post('/graphql', { query: '{ mySecurityEvents(first: 20) { edges { node { type method } } } }' }, { token });
    expect(gql.body.data.mySecurityEvents.edges.map((e: { node: { type: string; method: string | null } }) => `${e.node.type}:${e.node.method}`)).toEqual(page);
  });

  it("records a failure again once the user signed in since: each streak's first failure is in the log", async () => {
    const user = await signInWithCode(t);
    const failAt = async (ip: string) => expectInvalidCode(await use(t, 'REST', 'login', user.phone, wrong(1), ip), 'REST');
    await failAt('203.0.113.1');
    await failAt('203.0.113.2');
    const code = await requestCode(t, user.phone);
    const again = await t.http.post('/api/v1/auth/login', { phone: user.phone, code });
    expect(again.status).toBe(200);
    await failAt('203.0.113.3');
    const events = (await t.http.get('/api/v1/users/me/security-events', { token: again.body.accessToken })).body.items;
    expect(events.map((e: { type: string; ip: string }) => [e.type, e.ip])).toEqual([
      ['SIGN_IN_FAILED', '203.0.113.3'],
      ['SIGN_IN', '127.0.0.1'],
      ['CODE_SENT', '127.0.0.1'],
      ['SIGN_IN_FAILED', '203.0.113.1'],
      // The first code went to a phone with no account yet: no one's event.
      ['SIGN_IN', '127.0.0.1'],
    ]);
  });
});
