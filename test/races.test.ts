import { describe, expect, it } from '@jest/globals';
import { LoginDocument, MeDocument, RefreshTokenDocument, RegisterDocument, SendCodeDocument } from './generated/graphql.js';
import { GOOD_PASSWORD, requestCode, signInWithCode } from './helpers/factories.js';
import type { GraphQLResponse, HttpResult } from './helpers/http.js';
import { newPhone, useTestServer } from './helpers/server.js';

// These races are about one code used many times at once: the per-address limit on wrong codes,
// which refuses parallel attempts beyond its 10 (test/hardening/code-failures.test.ts), is set aside.
const t = useTestServer({ CODE_FAILURES_PER_PHONE_IP: '1000' });

/** The single value of a one-row query, as a number (count(*) comes back as a string). */
const count = async (text: string, values: unknown[] = []) => Number(Object.values((await t.sql(text, values))[0] ?? { n: 0 })[0]);
const times = <T>(n: number, make: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => make(i)));
const gqlCode = (res: HttpResult<GraphQLResponse<unknown>>) => res.body.errors?.[0]?.extensions?.code;
const restCode = (res: HttpResult) => (res.status < 300 ? 'OK' : res.body?.code);
/** Tally of outcomes, e.g. { OK: 1, INVALID_CODE: 19 }. */
const tally = (codes: (string | undefined)[]) =>
  codes.reduce<Record<string, number>>((acc, c) => ({ ...acc, [c ?? 'OK']: (acc[c ?? 'OK'] ?? 0) + 1 }), {});

function expectNoServerErrors(responses: HttpResult[]) {
  expect(responses.map((r) => r.status).filter((s) => s >= 500)).toEqual([]);
}

function wrongCodes(code: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => ((Number(code) + 1 + i) % 1_000_000).toString().padStart(6, '0'));
}

describe('one login code used by 20 parallel requests', () => {
  it('signs in exactly once over REST', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const responses = await times(20, () => t.http.post('/api/v1/auth/login', { phone, code }));
    expectNoServerErrors(responses);
    expect(tally(responses.map(restCode))).toEqual({ OK: 1, INVALID_CODE: 19 });
    expect(responses.filter((r) => r.status === 400)).toHaveLength(19);
    expect(await count('select count(*) from sessions')).toBe(1);
    expect(await count('select count(*) from users')).toBe(1);
  });

  it('signs in exactly once over GraphQL', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const responses = await times(20, () => t.http.gql(LoginDocument, { input: { phone, code } }));
    expectNoServerErrors(responses);
    expect(tally(responses.map(gqlCode))).toEqual({ OK: 1, INVALID_CODE: 19 });
    expect(responses.filter((r) => r.body.data?.login).length).toBe(1);
    expect(await count('select count(*) from sessions')).toBe(1);
    expect(await count('select count(*) from users')).toBe(1);
  });
});

describe('50 parallel wrong guesses at one code', () => {
  it('evaluate at most 5 guesses and burn the code', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const attempts = () => count('select attempts as n from verification_codes where phone = $1', [phone]);
    let seen = 0;
    let done = false;
    const watcher = (async () => {
      while (!done) {
        seen = Math.max(seen, await attempts());
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const guesses = wrongCodes(code, 50);
    const responses = await Promise.all(
      guesses.map((guess, i) =>
        i % 2 === 0
          ? t.http.post('/api/v1/auth/login', { phone, code: guess })
          : t.http.gql(LoginDocument, { input: { phone, code: guess } }),
      ),
    );
    done = true;
    await watcher;
    expectNoServerErrors(responses);
    const codes = responses.map((r, i) => (i % 2 === 0 ? restCode(r) : gqlCode(r as HttpResult<GraphQLResponse<unknown>>)));
    expect(tally(codes)).toEqual({ INVALID_CODE: 50 });
    expect(seen).toBeLessThanOrEqual(5);
    expect(await attempts()).toBe(5);

    const right = await t.http.post('/api/v1/auth/login', { phone, code });
    expect({ status: right.status, code: right.body.code }).toEqual({ status: 400, code: 'INVALID_CODE' });
    expect(await count('select count(*) from users')).toBe(0);
  });
});

describe('10 parallel registrations of one phone with one code', () => {
  it('create exactly one account over REST', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    const responses = await times(10, () => t.http.post('/api/v1/auth/register', { phone, code, password: GOOD_PASSWORD }));
    expectNoServerErrors(responses);
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const loser of responses.filter((r) => r.status !== 201)) {
      expect([[400, 'INVALID_CODE'], [409, 'PHONE_ALREADY_REGISTERED']]).toContainEqual([loser.status, loser.body.code]);
    }
    expect(await count('select count(*) from users where phone = $1', [phone])).toBe(1);
    expect(await count('select count(*) from sessions')).toBe(1);
  });

  it('create exactly one account over GraphQL', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    const responses = await times(10, () => t.http.gql(RegisterDocument, { input: { phone, code, password: GOOD_PASSWORD } }));
    expectNoServerErrors(responses);
    const outcomes = tally(responses.map(gqlCode));
    expect(outcomes.OK).toBe(1);
    expect(Object.keys(outcomes).filter((c) => !['OK', 'INVALID_CODE', 'PHONE_ALREADY_REGISTERED'].includes(c))).toEqual([]);
    expect(await count('select count(*) from users where phone = $1', [phone])).toBe(1);
  });
});

describe('10 parallel refreshes of one refresh token', () => {
  // Within the grace window every one of them gets the one successor (API.md 10.5), stored once.
  it('rotate exactly once over REST: all get the same new token, and the session lives on', async () => {
    const session = await signInWithCode(t);
    const responses = await times(10, () => t.http.post('/api/v1/auth/refresh', { refreshToken: session.refreshToken }));
    expectNoServerErrors(responses);
    expect(tally(responses.map(restCode))).toEqual({ OK: 10 });
    expect(new Set(responses.map((r) => r.body.refreshToken)).size).toBe(1);
    expect(await count('select count(*) from refresh_tokens where used_at is null')).toBe(1);
    const winner = responses[0]!.body;
    const me = await t.http.get('/api/v1/users/me', { token: winner.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(session.userId);
    const next = await t.http.post('/api/v1/auth/refresh', { refreshToken: winner.refreshToken });
    expect(next.status).toBe(200);
    expect(await count('select count(*) from sessions where revoked_at is null')).toBe(1);
  });

  it('rotate exactly once over GraphQL: all get the same new token, and the session lives on', async () => {
    const session = await signInWithCode(t);
    const responses = await times(10, () => t.http.gql(RefreshTokenDocument, { refreshToken: session.refreshToken }));
    expectNoServerErrors(responses);
    expect(tally(responses.map(gqlCode))).toEqual({ OK: 10 });
    expect(new Set(responses.map((r) => r.body.data?.refreshToken.refreshToken)).size).toBe(1);
    expect(await count('select count(*) from refresh_tokens where used_at is null')).toBe(1);
    const winner = responses[0]!.body.data!.refreshToken;
    const me = await t.http.gql(MeDocument, {}, { token: winner.accessToken });
    expect(me.body.data?.me.id).toBe(session.userId);
    const next = await t.http.gql(RefreshTokenDocument, { refreshToken: winner.refreshToken });
    expect(next.body.errors).toBeUndefined();
    expect(next.body.data?.refreshToken.user.id).toBe(session.userId);
  });
});

describe('10 parallel send-code requests for one phone', () => {
  it('send exactly one SMS over REST; the rest are 429 with Retry-After', async () => {
    const phone = newPhone();
    const responses = await times(10, () => t.http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }));
    expectNoServerErrors(responses);
    expect(tally(responses.map(restCode))).toEqual({ OK: 1, RATE_LIMITED: 9 });
    for (const loser of responses.filter((r) => r.status !== 200)) {
      expect(loser.status).toBe(429);
      expect(Number(loser.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await t.outbox()).filter((m) => m.phone === phone)).toHaveLength(1);
  });

  it('send exactly one SMS over GraphQL, whatever the purpose; the rest are RATE_LIMITED', async () => {
    const phone = newPhone();
    const purposes = ['LOGIN', 'REGISTER'] as const;
    const responses = await times(10, (i) => t.http.gql(SendCodeDocument, { input: { phone, purpose: purposes[i % 2] } }));
    expectNoServerErrors(responses);
    expect(tally(responses.map(gqlCode))).toEqual({ OK: 1, RATE_LIMITED: 9 });
    for (const loser of responses.filter((r) => r.body.errors)) {
      expect(typeof loser.body.errors![0]!.extensions?.retryAfter).toBe('number');
      expect(loser.headers.get('retry-after')).toBe(String(loser.body.errors![0]!.extensions?.retryAfter));
    }
    expect(await t.outbox()).toHaveLength(1);
  });
});
