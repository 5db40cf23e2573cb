import { describe, expect, it } from '@jest/globals';
import { RefreshTokenDocument } from '../generated/graphql.js';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf, forgeToken } from '../helpers/tokens.js';
import { sleep } from '../helpers/wait.js';
import { expectProblem } from '../rest/support.js';
import { expectRefusedFor, refusalsOf } from './support.js';

// API.md 10.5: every UNAUTHENTICATED tells the client what to do next, as REST's problem member
// `reason` and GraphQL's `extensions.reason`.

const t = useTestServer();

const bearer = (token: string) => `Bearer ${token}`;
const subjectOf = (accessToken: string) => {
  const { sub, sid } = claimsOf(accessToken);
  return { sub, sid };
};

describe('reason of an UNAUTHENTICATED access token', () => {
  it('is missing without an Authorization header, or with a blank one', async () => {
    await expectRefusedFor(t, undefined, 'missing');
    await expectRefusedFor(t, '   ', 'missing');
  });

  it('is invalid for a header that holds no bearer token, a malformed token, a bad signature, another issuer or audience, or an unknown kid', async () => {
    const s = await signInWithCode(t);
    const subject = subjectOf(s.accessToken);
    const [header, payload, signature] = s.accessToken.split('.') as [string, string, string];
    const tampered = `${header}.${payload}.${signature.slice(0, -4)}${signature.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const authorization of [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      bearer('garbage'),
      bearer(tampered),
      bearer(forgeToken(subject, { secret: 'another-secret-another-secret-another-secret' })),
      bearer(forgeToken(subject, { audience: 'another-app' })),
      bearer(forgeToken(subject, { issuer: 'someone-else' })),
      bearer(forgeToken(subject, { kid: 'no-such-key' })),
    ]) {
      expect({ authorization, ...(await refusalsOf(t, authorization)) }).toEqual({
        authorization,
        rest: '401 UNAUTHENTICATED invalid',
        graphql: 'UNAUTHENTICATED invalid',
        express: 'UNAUTHENTICATED invalid',
      });
    }
    // The session itself is fine.
    expect((await refusalsOf(t, bearer(s.accessToken))).rest).toBe(`200 ${s.userId}`);
  });

  it('is expired for a well-signed token past its exp, even of a live session; invalid when it fails anything else too', async () => {
    const s = await signInWithCode(t);
    const subject = subjectOf(s.accessToken);
    await expectRefusedFor(t, bearer(forgeToken(subject, { expiresIn: -60 })), 'expired');
    await expectRefusedFor(t, bearer(forgeToken(subject, { expiresIn: -60, audience: 'another-app' })), 'invalid');
    await expectRefusedFor(t, bearer(forgeToken(subject, { expiresIn: -60, secret: 'another-secret-another-secret-another-secret' })), 'invalid');
    await expectRefusedFor(t, bearer(forgeToken(subject, { expiresIn: -60, claims: { sid: 'not-a-session' } })), 'invalid');
  });

  it('is expired for a token the service had accepted and remembered, once it expires', async () => {
    const s = await signInWithCode(t);
    const shortLived = forgeToken(subjectOf(s.accessToken), { expiresIn: 2 });
    expect(await refusalsOf(t, bearer(shortLived))).toEqual({ rest: `200 ${s.userId}`, graphql: `OK ${s.userId}`, express: `OK ${s.userId}` });
    await sleep(2_100);
    await expectRefusedFor(t, bearer(shortLived), 'expired');
  });

  it('is session_ended once the session was logged out or revoked, or its account blocked', async () => {
    const loggedOut = await signInWithCode(t);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: loggedOut.accessToken })).status).toBe(204);
    await expectRefusedFor(t, bearer(loggedOut.accessToken), 'session_ended');

    const revoked = await signInWithCode(t);
    await t.sql('update sessions set revoked_at = now() where id = $1', [claimsOf(revoked.accessToken).sid]);
    await expectRefusedFor(t, bearer(revoked.accessToken), 'session_ended');

    const blocked = await signInWithCode(t);
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'spam' where id = $1`, [blocked.userId]);
    await expectRefusedFor(t, bearer(blocked.accessToken), 'session_ended');
  });

  it('is right for each of many requests checked together (the session checks of one moment are one query)', async () => {
    const live = await signInWithCode(t);
    const ended = await signInWithCode(t);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: ended.accessToken })).status).toBe(204);
    const cases = [
      ...Array.from({ length: 8 }, () => ({ token: live.accessToken, expected: `200 ${live.userId}` })),
      ...Array.from({ length: 8 }, () => ({ token: ended.accessToken, expected: '401 UNAUTHENTICATED session_ended' })),
      ...Array.from({ length: 4 }, () => ({ token: forgeToken(subjectOf(live.accessToken), { expiresIn: -5 }), expected: '401 UNAUTHENTICATED expired' })),
    ];
    const answers = await Promise.all(
      cases.map(async ({ token }) => {
        const res = await t.http.get('/api/v1/users/me', { token });
        return res.status === 200 ? `200 ${res.body.id}` : `${res.status} ${res.body.code} ${res.body.reason}`;
      }),
    );
    expect(answers).toEqual(cases.map((c) => c.expected));
  });
});

describe('reason of a refused refresh token', () => {
  const refreshRest = (refreshToken: string) => t.http.post('/api/v1/auth/refresh', { refreshToken });
  const refreshGql = async (refreshToken: string) => (await t.http.gql(RefreshTokenDocument, { refreshToken })).body.errors?.[0]?.extensions;

  it('is invalid for an unknown token, session_ended for a token of a logged-out session', async () => {
    expect(expectProblem(await refreshRest('A'.repeat(43)), 401, 'UNAUTHENTICATED').reason).toBe('invalid');
    expect(await refreshGql('A'.repeat(43))).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'invalid' });

    const s = await signInWithCode(t);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: s.accessToken })).status).toBe(204);
    expect(expectProblem(await refreshRest(s.refreshToken), 401, 'UNAUTHENTICATED').reason).toBe('session_ended');
    expect(await refreshGql(s.refreshToken)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'session_ended' });
  });

  it('is session_ended for a token reused after the grace window (its session is revoked)', async () => {
    const s = await signInWithCode(t);
    const rotated = await refreshRest(s.refreshToken);
    expect(rotated.status).toBe(200);
    await t.sql(`update refresh_tokens set used_at = now() - interval '11 seconds' where used_at is not null`);
    expect(expectProblem(await refreshRest(s.refreshToken), 401, 'UNAUTHENTICATED').reason).toBe('session_ended');
    await expectRefusedFor(t, bearer(rotated.body.accessToken), 'session_ended');
    expect(await refreshGql(rotated.body.refreshToken)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'session_ended' });
  });
});
