import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { LoginWithPasswordDocument, LogoutDocument, MeDocument, RefreshTokenDocument } from '../generated/graphql.js';
import { clearRateLimits, GOOD_PASSWORD, registerUser, signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { expectAuthPayload } from '../helpers/assertions.js';
import { claimsOf, encodeSegment, forgeToken } from '../helpers/tokens.js';
import { dataOf, errorOf, gqlLogin, gqlRegister } from './support.js';

const t = useTestServer();

const me = (token?: string, headers?: Record<string, string>) => t.http.gql(MeDocument, {}, { token, headers });
const refresh = (refreshToken: unknown) => t.http.gql(RefreshTokenDocument, { refreshToken } as any);
const logout = (token: string | undefined, allSessions?: boolean) =>
  t.http.gql(LogoutDocument, allSessions === undefined ? {} : { allSessions }, { token });
const liveSessions = async () => (await t.sql<{ n: number }>('select count(*)::int as n from sessions where revoked_at is null'))[0]!.n;

async function expectSignedOut(accessToken: string | undefined, refreshToken?: string) {
  const res = await me(accessToken);
  errorOf(res, 'UNAUTHENTICATED');
  expect(res.body.data ?? null).toBeNull();
  if (refreshToken) errorOf(await refresh(refreshToken), 'UNAUTHENTICATED');
}

describe('me query', () => {
  it('returns the same User as REST /users/me for the same token', async () => {
    for (const session of [await gqlRegister(t), await signInWithCode(t)]) {
      const gql = dataOf(await me(session.accessToken)).me;
      const rest = await t.http.get('/api/v1/users/me', { token: session.accessToken });
      expect(rest.status).toBe(200);
      expect(gql).toEqual(rest.body);
      expect(gql.phone).toBe(session.phone);
    }
  });

  it('accepts a token forged with the real key and live claims (control for the cases below)', async () => {
    const session = await gqlLogin(t);
    expect(dataOf(await me(forgeToken(claimsOf(session.accessToken)))).me.id).toBe(session.user.id);
  });

  it('is UNAUTHENTICATED without a token or with a malformed one', async () => {
    const session = await gqlLogin(t);
    await expectSignedOut(undefined);
    for (const token of ['garbage', 'a.b.c', `${session.accessToken}x`]) await expectSignedOut(token);
    errorOf(await me(undefined, { authorization: session.accessToken }), 'UNAUTHENTICATED');
    errorOf(await me(undefined, { authorization: `Basic ${session.accessToken}` }), 'UNAUTHENTICATED');
  });

  it('is UNAUTHENTICATED with an expired token', async () => {
    const claims = claimsOf((await gqlLogin(t)).accessToken);
    const now = Math.floor(Date.now() / 1000);
    await expectSignedOut(forgeToken(claims, { claims: { iat: now - 1000, exp: now - 10 } }));
  });

  it('is UNAUTHENTICATED with a tampered token that claims another user', async () => {
    const victim = await gqlLogin(t);
    const attacker = await gqlLogin(t);
    const [header, , signature] = attacker.accessToken.split('.');
    const payload = { ...claimsOf(attacker.accessToken), sub: victim.user.id, sid: claimsOf(victim.accessToken).sid };
    await expectSignedOut(`${header}.${encodeSegment(payload)}.${signature}`);
  });

  it('is UNAUTHENTICATED with an unsigned token (alg none)', async () => {
    const claims = claimsOf((await gqlLogin(t)).accessToken);
    await expectSignedOut(`${encodeSegment({ alg: 'none', typ: 'JWT' })}.${encodeSegment(claims)}.`);
  });

  it('is UNAUTHENTICATED with a token signed by another key, for a session that does not exist, or for another audience or issuer', async () => {
    const claims = claimsOf((await gqlLogin(t)).accessToken);
    await expectSignedOut(forgeToken(claims, { secret: 'another-secret-that-is-at-least-32-characters' }));
    await expectSignedOut(forgeToken({ ...claims, sid: '00000000-0000-4000-8000-000000000000' }));
    await expectSignedOut(forgeToken({ ...claims, sid: 'not-a-uuid' }));
    await expectSignedOut(forgeToken(claims, { audience: 'someone-else' }));
    await expectSignedOut(forgeToken(claims, { issuer: 'someone-else' }));
  });
});

describe('refreshToken mutation', () => {
  it('rotates: a new working pair for the same user, and the old refresh token stops working once the new one is used', async () => {
    const session = await gqlRegister(t);
    const rotated = dataOf(await refresh(session.refreshToken)).refreshToken;
    expectAuthPayload(rotated, 'GraphQL', { isNewUser: false, user: { phone: session.phone } });
    expect(rotated.user.id).toBe(session.user.id);
    expect(rotated.refreshToken).not.toBe(session.refreshToken);
    expect(rotated.accessToken).not.toBe(session.accessToken);
    expect(claimsOf(rotated.accessToken).sid).toBe(claimsOf(session.accessToken).sid);
    expect(dataOf(await me(rotated.accessToken)).me.id).toBe(session.user.id);
    dataOf(await refresh(rotated.refreshToken));
    expect(errorOf(await refresh(session.refreshToken), 'UNAUTHENTICATED').extensions?.reason).toBe('invalid');
  });

  it('answers a token presented again within the grace window with the same new refresh token, and the session lives on', async () => {
    const session = await gqlLogin(t);
    const rotated = dataOf(await refresh(session.refreshToken)).refreshToken;
    const again = dataOf(await refresh(session.refreshToken)).refreshToken;
    expect(again.refreshToken).toBe(rotated.refreshToken);
    dataOf(await me(again.accessToken));
    dataOf(await me(rotated.accessToken));
    dataOf(await refresh(rotated.refreshToken));
  });

  it('revokes the whole session when a used token comes back after the grace window', async () => {
    const session = await gqlLogin(t);
    const rotated = dataOf(await refresh(session.refreshToken)).refreshToken;
    await t.sql("update refresh_tokens set used_at = now() - interval '11 seconds' where used_at is not null");
    errorOf(await refresh(session.refreshToken), 'UNAUTHENTICATED');
    await expectSignedOut(rotated.accessToken, rotated.refreshToken);
  });

  it('is UNAUTHENTICATED for an unknown or expired refresh token', async () => {
    const session = await gqlLogin(t);
    errorOf(await refresh('x'.repeat(43)), 'UNAUTHENTICATED');
    errorOf(await refresh(randomBytes(32).toString('base64url')), 'UNAUTHENTICATED');
    await t.sql("update refresh_tokens set expires_at = now() - interval '1 second'");
    errorOf(await refresh(session.refreshToken), 'UNAUTHENTICATED');
  });

  it('answers a missing or over-long refresh token with VALIDATION_FAILED', async () => {
    const missing = errorOf(await t.http.gql(RefreshTokenDocument, {} as any), 'VALIDATION_FAILED');
    expect(missing.extensions?.fields).toEqual({ refreshToken: 'is required' });
    const wrongType = errorOf(await refresh(42), 'VALIDATION_FAILED');
    expect(wrongType.extensions?.fields).toEqual({ refreshToken: expect.any(String) });
    const long = errorOf(await refresh('r'.repeat(1000)), 'VALIDATION_FAILED');
    expect(long.extensions?.fields).toEqual({ refreshToken: expect.any(String) });
  });
});

describe('logout mutation', () => {
  it('revokes the current session only, by default', async () => {
    const first = await gqlRegister(t);
    const second = dataOf(await t.http.gql(LoginWithPasswordDocument, { input: { phone: first.phone, password: GOOD_PASSWORD } }));
    expect(dataOf(await logout(first.accessToken)).logout).toBe(true);
    await expectSignedOut(first.accessToken, first.refreshToken);
    const rest = await t.http.get('/api/v1/users/me', { token: first.accessToken });
    expect(rest.status).toBe(401);
    expect(dataOf(await me(second.loginWithPassword.accessToken)).me.id).toBe(first.user.id);
    expect(await liveSessions()).toBe(1);
  });

  it('with allSessions: false behaves as the default', async () => {
    const first = await gqlRegister(t);
    await clearRateLimits(t);
    const second = await gqlLogin(t, first.phone);
    expect(dataOf(await logout(first.accessToken, false)).logout).toBe(true);
    await expectSignedOut(first.accessToken);
    dataOf(await me(second.accessToken));
  });

  it('with allSessions: true revokes every session of the user, and no one else’s', async () => {
    const user = await registerUser(t);
    const sessions = [user];
    for (let i = 0; i < 2; i++) {
      const res = dataOf(await t.http.gql(LoginWithPasswordDocument, { input: { phone: user.phone, password: GOOD_PASSWORD } }));
      sessions.push({ ...user, accessToken: res.loginWithPassword.accessToken, refreshToken: res.loginWithPassword.refreshToken });
    }
    const bystander = await gqlLogin(t);
    expect(dataOf(await logout(sessions[1]!.accessToken, true)).logout).toBe(true);
    for (const session of sessions) await expectSignedOut(session.accessToken, session.refreshToken);
    expect(await liveSessions()).toBe(1);
    dataOf(await me(bystander.accessToken));
  });

  it('is UNAUTHENTICATED without a valid token, and twice with the same token', async () => {
    const session = await gqlLogin(t);
    errorOf(await logout(undefined), 'UNAUTHENTICATED');
    errorOf(await logout('garbage', true), 'UNAUTHENTICATED');
    expect(await liveSessions()).toBe(1);
    dataOf(await logout(session.accessToken));
    errorOf(await logout(session.accessToken), 'UNAUTHENTICATED');
  });
});
