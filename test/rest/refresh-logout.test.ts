import { describe, expect, it } from '@jest/globals';
import { clearRateLimits, type Session, signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { expectAuthPayload } from '../helpers/assertions.js';
import { expectProblem } from './support.js';

const REFRESH = '/api/v1/auth/refresh';
const LOGOUT = '/api/v1/auth/logout';
const ME = '/api/v1/users/me';

const t = useTestServer();
const peer = useTestServer(); // a second instance on the same database

const meStatus = async (token: string) => (await t.http.get(ME, { token })).status;
const refresh = (refreshToken: string) => t.http.post(REFRESH, { refreshToken });

/** A second session of the same account (another device). */
async function secondSession(s: Session): Promise<Session> {
  await clearRateLimits(t);
  return signInWithCode(t, s.phone);
}

describe('POST /api/v1/auth/refresh', () => {
  it('returns a new token pair for the same account, without an access token', async () => {
    const s = await signInWithCode(t);
    const res = await refresh(s.refreshToken);
    expect(res.status).toBe(200);
    expectAuthPayload(res.body, 'REST', { isNewUser: false, user: { phone: s.phone } });
    expect(res.body.user.id).toBe(s.userId);
    expect(res.body.refreshToken).not.toBe(s.refreshToken);
    expect(res.body.accessToken).not.toBe(s.accessToken);
    expect(await meStatus(res.body.accessToken)).toBe(200);
  });

  it('stores refresh tokens only hashed', async () => {
    const s = await signInWithCode(t);
    const rows = await t.sql<{ token_hash: string }>('select token_hash from refresh_tokens');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await t.sql('select * from refresh_tokens'))).not.toContain(s.refreshToken);
    expect(JSON.stringify(await t.sql('select * from sessions'))).not.toContain(s.refreshToken);
  });

  it('rotates on every use: a chain of refreshes works', async () => {
    let token = (await signInWithCode(t)).refreshToken;
    for (let i = 0; i < 3; i++) {
      const res = await refresh(token);
      expect(res.status).toBe(200);
      token = res.body.refreshToken;
    }
  });

  it('answers the old refresh token within the grace window with the same new one, and refuses it once that one was used; the session lives on', async () => {
    const s = await signInWithCode(t);
    const rotated = await refresh(s.refreshToken);
    expect(rotated.status).toBe(200);
    const again = await refresh(s.refreshToken);
    expect(again.status).toBe(200);
    expect(again.body.refreshToken).toBe(rotated.body.refreshToken);
    expect(await meStatus(again.body.accessToken)).toBe(200);
    expect((await refresh(rotated.body.refreshToken)).status).toBe(200);
    expect(expectProblem(await refresh(s.refreshToken), 401, 'UNAUTHENTICATED').reason).toBe('invalid');
    expect(await meStatus(rotated.body.accessToken)).toBe(200);
  });

  it('revokes the whole session when a used refresh token comes back after the grace window', async () => {
    const s = await signInWithCode(t);
    const other = await secondSession(s);
    const rotated = await refresh(s.refreshToken);
    expect(rotated.status).toBe(200);
    await t.sql(`update refresh_tokens set used_at = now() - interval '11 seconds' where used_at is not null`);
    expectProblem(await refresh(s.refreshToken), 401, 'UNAUTHENTICATED');
    // The newest tokens of that session stop working at once...
    expectProblem(await t.http.get(ME, { token: rotated.body.accessToken }), 401, 'UNAUTHENTICATED');
    expectProblem(await refresh(rotated.body.refreshToken), 401, 'UNAUTHENTICATED');
    // ...while the user's other sessions are untouched.
    expect(await meStatus(other.accessToken)).toBe(200);
    expect((await refresh(other.refreshToken)).status).toBe(200);
  });

  it('gives every one of several concurrent refreshes with one token the same new refresh token', async () => {
    const s = await signInWithCode(t);
    const results = await Promise.all(Array.from({ length: 5 }, () => refresh(s.refreshToken)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.refreshToken)).size).toBe(1);
    for (const r of results) expect(await meStatus(r.body.accessToken)).toBe(200);
  });

  it('refuses an unknown refresh token with 401 UNAUTHENTICATED and WWW-Authenticate', async () => {
    const res = await refresh('A'.repeat(43));
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toContain('Bearer error="invalid_token"');
  });

  it('refuses an expired refresh token', async () => {
    const s = await signInWithCode(t);
    await t.sql(`update refresh_tokens set expires_at = now() - interval '1 second'`);
    expectProblem(await refresh(s.refreshToken), 401, 'UNAUTHENTICATED');
  });

  it('rejects an over-long refreshToken, such as an access token, with VALIDATION_FAILED', async () => {
    const s = await signInWithCode(t);
    expect(s.accessToken.length).toBeGreaterThan(256);
    const problem = expectProblem(await refresh(s.accessToken), 400, 'VALIDATION_FAILED');
    expect(Object.keys(problem.fields)).toEqual(['refreshToken']);
    expect(await meStatus(s.accessToken)).toBe(200);
  });

  it('rejects a missing or wrongly typed refreshToken with VALIDATION_FAILED', async () => {
    for (const body of [{}, { refreshToken: 12345 }, { refreshToken: null }, { token: 'x' }]) {
      const problem = expectProblem(await t.http.post(REFRESH, body), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['refreshToken']);
    }
  });
});

describe('POST /api/v1/auth/logout', () => {
  it('answers 204 and ends the current session: its access and refresh tokens stop working', async () => {
    const s = await signInWithCode(t);
    const res = await t.http.post(LOGOUT, {}, { token: s.accessToken });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expectProblem(await t.http.get(ME, { token: s.accessToken }), 401, 'UNAUTHENTICATED');
    expectProblem(await refresh(s.refreshToken), 401, 'UNAUTHENTICATED');
    expectProblem(await t.http.post(LOGOUT, {}, { token: s.accessToken }), 401, 'UNAUTHENTICATED');
  });

  it('takes effect on every instance at once', async () => {
    const s = await signInWithCode(t);
    expect((await peer.http.get(ME, { token: s.accessToken })).status).toBe(200);
    expect((await t.http.post(LOGOUT, {}, { token: s.accessToken })).status).toBe(204);
    expectProblem(await peer.http.get(ME, { token: s.accessToken }), 401, 'UNAUTHENTICATED');
    expectProblem(await peer.http.post(REFRESH, { refreshToken: s.refreshToken }), 401, 'UNAUTHENTICATED');
  });

  it('works without a body and leaves the other sessions alive', async () => {
    const s = await signInWithCode(t);
    const other = await secondSession(s);
    expect((await t.http.request('POST', LOGOUT, { token: s.accessToken })).status).toBe(204);
    expect(await meStatus(s.accessToken)).toBe(401);
    expect(await meStatus(other.accessToken)).toBe(200);
    expect((await refresh(other.refreshToken)).status).toBe(200);
  });

  it('ends only the current session when allSessions is false', async () => {
    const s = await signInWithCode(t);
    const other = await secondSession(s);
    expect((await t.http.post(LOGOUT, { allSessions: false }, { token: s.accessToken })).status).toBe(204);
    expect(await meStatus(s.accessToken)).toBe(401);
    expect(await meStatus(other.accessToken)).toBe(200);
  });

  it('ends every session of the user with allSessions, and no one else’s', async () => {
    const s = await signInWithCode(t);
    const other = await secondSession(s);
    const refreshed = await refresh(other.refreshToken);
    const stranger = await signInWithCode(t);
    expect((await t.http.post(LOGOUT, { allSessions: true }, { token: s.accessToken })).status).toBe(204);
    for (const token of [s.accessToken, other.accessToken, refreshed.body.accessToken]) {
      expectProblem(await t.http.get(ME, { token }), 401, 'UNAUTHENTICATED');
    }
    expectProblem(await refresh(s.refreshToken), 401, 'UNAUTHENTICATED');
    expectProblem(await refresh(refreshed.body.refreshToken), 401, 'UNAUTHENTICATED');
    expect(await meStatus(stranger.accessToken)).toBe(200);
  });

  it('needs a valid access token', async () => {
    const res = await t.http.post(LOGOUT, {});
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expectProblem(await t.http.post(LOGOUT, {}, { token: 'garbage' }), 401, 'UNAUTHENTICATED');
  });

  it('rejects a wrongly typed allSessions with VALIDATION_FAILED and keeps the session', async () => {
    const s = await signInWithCode(t);
    const problem = expectProblem(await t.http.post(LOGOUT, { allSessions: 'yes' }, { token: s.accessToken }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(problem.fields)).toEqual(['allSessions']);
    expect(await meStatus(s.accessToken)).toBe(200);
  });
});
