import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { UUID, expectUser } from '../helpers/assertions.js';
import { claimsOf, decodeSegment, encodeSegment, forgeToken } from '../helpers/tokens.js';
import { expectProblem } from './support.js';

const ME = '/api/v1/users/me';

const t = useTestServer();

const me = (authorization?: string) => t.http.get(ME, { headers: authorization === undefined ? {} : { authorization } });

describe('GET /api/v1/users/me', () => {
  it('returns the signed-in User', async () => {
    const s = await signInWithCode(t);
    const res = await t.http.get(ME, { token: s.accessToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectUser(res.body, 'REST', { id: s.userId, phone: s.phone, nickname: `User${s.phone.slice(-4)}`, hasPassword: false });
    expect(res.body).toEqual(s.body.user);
  });

  it('issues an HS256 access token naming its key (kid) with the contract claims', async () => {
    const s = await signInWithCode(t);
    const [header, , signature] = s.accessToken.split('.');
    expect(decodeSegment(header!)).toEqual({ alg: 'HS256', typ: 'JWT', kid: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) });
    expect(signature!.length).toBeGreaterThan(0);
    const claims = claimsOf(s.accessToken);
    expect(Object.keys(claims).sort()).toEqual(['amr', 'aud', 'auth_time', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    expect(claims).toMatchObject({ sub: s.userId, iss: 'meeting-accounts', aud: 'meeting-app', amr: ['sms'] });
    expect(claims.sid).toMatch(UUID);
    expect(claims.exp - claims.iat).toBe(900);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(30);
    // The sign-in is when its factor was proven (OIDC auth_time).
    expect(Math.abs(claims.auth_time! - claims.iat)).toBeLessThanOrEqual(1);
  });

  it('accepts a token signed like the service signs them (control for the forgeries below)', async () => {
    const s = await signInWithCode(t);
    const res = await me(`Bearer ${forgeToken({ sub: s.userId, sid: claimsOf(s.accessToken).sid })}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(s.userId);
  });

  it('refuses a request without Authorization with 401 UNAUTHENTICATED and WWW-Authenticate', async () => {
    const res = await me();
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it.each([
    ['an empty header', ''],
    ['the bare scheme', 'Bearer'],
    ['garbage', 'Bearer garbage'],
    ['three garbage segments', 'Bearer aaa.bbb.ccc'],
    ['Basic credentials', 'Basic dXNlcjpwYXNzd29yZA=='],
  ])('refuses %s', async (_what, header) => {
    expectProblem(await me(header), 401, 'UNAUTHENTICATED');
  });

  it('refuses a real token without the Bearer scheme', async () => {
    const s = await signInWithCode(t);
    expectProblem(await me(s.accessToken), 401, 'UNAUTHENTICATED');
  });

  it('refuses an expired token', async () => {
    const s = await signInWithCode(t);
    expectProblem(await me(`Bearer ${forgeToken({ sub: s.userId, sid: claimsOf(s.accessToken).sid }, { expiresIn: -10 })}`), 401, 'UNAUTHENTICATED');
  });

  it('refuses a token whose signature was tampered with', async () => {
    const s = await signInWithCode(t);
    const [h, p, sig] = s.accessToken.split('.') as [string, string, string];
    const flipped = sig.slice(0, 10) + (sig[10] === 'A' ? 'B' : 'A') + sig.slice(11);
    expectProblem(await me(`Bearer ${h}.${p}.${flipped}`), 401, 'UNAUTHENTICATED');
    expectProblem(await me(`Bearer ${h}.${p}.`), 401, 'UNAUTHENTICATED');
  });

  it('refuses a token whose payload was changed to name another user', async () => {
    const victim = await signInWithCode(t);
    const attacker = await signInWithCode(t);
    const [h, p, sig] = attacker.accessToken.split('.') as [string, string, string];
    const payload = encodeSegment({ ...decodeSegment(p), sub: victim.userId, sid: claimsOf(victim.accessToken).sid });
    expectProblem(await me(`Bearer ${h}.${payload}.${sig}`), 401, 'UNAUTHENTICATED');
  });

  it('refuses an unsigned token (alg none)', async () => {
    const s = await signInWithCode(t);
    const header = encodeSegment({ alg: 'none', typ: 'JWT' });
    const payload = s.accessToken.split('.')[1];
    expectProblem(await me(`Bearer ${header}.${payload}.`), 401, 'UNAUTHENTICATED');
    const noneUpper = encodeSegment({ alg: 'None', typ: 'JWT' });
    expectProblem(await me(`Bearer ${noneUpper}.${payload}.`), 401, 'UNAUTHENTICATED');
  });

  it.each([
    ['a wrong issuer', { issuer: 'someone-else' }],
    ['a wrong audience', { audience: 'another-app' }],
    ['a wrong secret', { secret: 'another-secret-that-is-at-least-32-characters' }],
    ['another algorithm (HS512)', { algorithm: 'HS512' as const }],
  ])('refuses a token with %s', async (_what, change) => {
    const s = await signInWithCode(t);
    expectProblem(await me(`Bearer ${forgeToken({ sub: s.userId, sid: claimsOf(s.accessToken).sid }, change)}`), 401, 'UNAUTHENTICATED');
  });

  it('refuses a validly signed token whose session belongs to another user', async () => {
    const a = await signInWithCode(t);
    const b = await signInWithCode(t);
    expectProblem(await me(`Bearer ${forgeToken({ sub: b.userId, sid: claimsOf(a.accessToken).sid })}`), 401, 'UNAUTHENTICATED');
  });

  it('refuses a validly signed token for an unknown session', async () => {
    const s = await signInWithCode(t);
    expectProblem(await me(`Bearer ${forgeToken({ sub: s.userId, sid: randomUUID() })}`), 401, 'UNAUTHENTICATED');
  });

  it('refuses a validly signed token whose sub or sid is not a UUID', async () => {
    const s = await signInWithCode(t);
    expectProblem(await me(`Bearer ${forgeToken({ sub: s.userId, sid: 'not-a-uuid' })}`), 401, 'UNAUTHENTICATED');
    expectProblem(await me(`Bearer ${forgeToken({ sub: "1' or '1'='1", sid: claimsOf(s.accessToken).sid })}`), 401, 'UNAUTHENTICATED');
  });

  it('refuses the refresh token used as a bearer token', async () => {
    const s = await signInWithCode(t);
    expectProblem(await me(`Bearer ${s.refreshToken}`), 401, 'UNAUTHENTICATED');
  });

  it('refuses the access token of a session that has expired', async () => {
    const s = await signInWithCode(t);
    await t.sql(`update sessions set expires_at = now() - interval '1 second' where id = $1`, [claimsOf(s.accessToken).sid]);
    expectProblem(await t.http.get(ME, { token: s.accessToken }), 401, 'UNAUTHENTICATED');
  });
});
