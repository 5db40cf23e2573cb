import { describe, expect, it } from '@jest/globals';
import { LogoutDocument } from '../generated/graphql.js';
import { clearRateLimits, signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { expectProblem } from '../rest/support.js';
import { expectAccepted, expectRefusedFor } from './support.js';

// API.md 10.5: logout takes a refresh token instead of a bearer token (POST /api/v1/auth/logout
// { refreshToken }, GraphQL logout(refreshToken:)) and ends that token's session.

const t = useTestServer();

interface Answer {
  /** 'OK', or the code and reason of the refusal. */
  outcome: string;
  fields?: string[];
}

/** One logout over a transport, with the body's refreshToken (any JSON value) and an optional bearer token. */
async function logout(transport: 'REST' | 'GraphQL', refreshToken: unknown, options: { token?: string; allSessions?: boolean } = {}): Promise<Answer> {
  const { token, allSessions } = options;
  if (transport === 'REST') {
    const res = await t.http.post('/api/v1/auth/logout', { refreshToken, allSessions }, { token });
    if (res.status === 204) return { outcome: 'OK' };
    const problem = expectProblem(res, res.status, res.body.code);
    return { outcome: [res.status, problem.code, problem.reason].filter(Boolean).join(' '), ...(problem.fields && { fields: Object.keys(problem.fields) }) };
  }
  const res = await t.http.request('POST', '/graphql', { token, body: { query: 'mutation($r: String, $a: Boolean) { logout(refreshToken: $r, allSessions: $a) }', variables: { r: refreshToken, a: allSessions } } });
  if (res.body.data?.logout === true) return { outcome: 'OK' };
  const error = res.body.errors?.[0]?.extensions ?? {};
  const status = error.code === 'VALIDATION_FAILED' ? 400 : 401;
  return { outcome: [status, error.code, error.reason].filter(Boolean).join(' '), ...(error.fields && { fields: Object.keys(error.fields) }) };
}

const refreshWith = (refreshToken: string) => t.http.post('/api/v1/auth/refresh', { refreshToken });

async function secondSession(s: Session): Promise<Session> {
  await clearRateLimits(t);
  return signInWithCode(t, s.phone);
}

describe.each(['REST', 'GraphQL'] as const)('logout with a refresh token, over %s', (transport) => {
  it('ends that session without an access token: its access token is then session_ended, its refresh token refused; another session of the account lives on', async () => {
    const s = await signInWithCode(t);
    const other = await secondSession(s);
    expect(await logout(transport, s.refreshToken)).toEqual({ outcome: 'OK' });
    await expectRefusedFor(t, `Bearer ${s.accessToken}`, 'session_ended');
    expect(expectProblem(await refreshWith(s.refreshToken), 401, 'UNAUTHENTICATED').reason).toBe('session_ended');
    await expectAccepted(t, other.accessToken, s.userId);
    expect((await refreshWith(other.refreshToken)).status).toBe(200);
    const [event] = await t.sql<{ type: string; session_id: string }>(`select type, session_id from security_events where user_id = $1 and type = 'LOGOUT'`, [s.userId]);
    expect(event).toEqual({ type: 'LOGOUT', session_id: claimsOf(s.accessToken).sid });
  });

  it('ends the session of a refresh token used within the grace window, and every session of the account with allSessions', async () => {
    const s = await signInWithCode(t);
    const rotated = await refreshWith(s.refreshToken);
    expect(rotated.status).toBe(200);
    expect(await logout(transport, s.refreshToken)).toEqual({ outcome: 'OK' });
    await expectRefusedFor(t, `Bearer ${rotated.body.accessToken}`, 'session_ended');

    const a = await signInWithCode(t);
    const b = await secondSession(a);
    const stranger = await signInWithCode(t);
    expect(await logout(transport, a.refreshToken, { allSessions: true })).toEqual({ outcome: 'OK' });
    await expectRefusedFor(t, `Bearer ${b.accessToken}`, 'session_ended');
    await expectAccepted(t, stranger.accessToken, stranger.userId);
  });

  it('refuses an unknown refresh token (invalid) and one of an ended session (session_ended), ending nothing', async () => {
    const s = await signInWithCode(t);
    expect(await logout(transport, 'A'.repeat(43))).toEqual({ outcome: '401 UNAUTHENTICATED invalid' });
    expect(await logout(transport, s.accessToken.slice(0, 200))).toEqual({ outcome: '401 UNAUTHENTICATED invalid' });
    await expectAccepted(t, s.accessToken, s.userId);
    expect(await logout(transport, s.refreshToken)).toEqual({ outcome: 'OK' });
    expect(await logout(transport, s.refreshToken)).toEqual({ outcome: '401 UNAUTHENTICATED session_ended' });

    const blocked = await signInWithCode(t);
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'spam' where id = $1`, [blocked.userId]);
    expect(await logout(transport, blocked.refreshToken)).toEqual({ outcome: '401 UNAUTHENTICATED session_ended' });
  });

  it('with a bearer token too, ends the refresh token’s session only when both are of one account', async () => {
    const s = await signInWithCode(t);
    const other = await secondSession(s);
    const stranger = await signInWithCode(t);
    expect(await logout(transport, stranger.refreshToken, { token: s.accessToken })).toEqual({ outcome: '401 UNAUTHENTICATED invalid' });
    await expectAccepted(t, stranger.accessToken, stranger.userId);
    await expectAccepted(t, s.accessToken, s.userId);
    // The account's other session: that one ends, the bearer's lives on.
    expect(await logout(transport, other.refreshToken, { token: s.accessToken })).toEqual({ outcome: 'OK' });
    await expectRefusedFor(t, `Bearer ${other.accessToken}`, 'session_ended');
    await expectAccepted(t, s.accessToken, s.userId);
    // A bearer token sent along is checked as always.
    expect(await logout(transport, s.refreshToken, { token: 'garbage' })).toEqual({ outcome: '401 UNAUTHENTICATED invalid' });
    await expectAccepted(t, s.accessToken, s.userId);
  });

  it('refuses a refreshToken that is not a string, empty or too long with VALIDATION_FAILED, ending nothing', async () => {
    const s = await signInWithCode(t);
    const bad: unknown[] = transport === 'REST' ? [12345, true, {}, ['x'], '', 'x'.repeat(257)] : ['', 'x'.repeat(257)];
    for (const refreshToken of bad) {
      expect({ refreshToken, ...(await logout(transport, refreshToken)) }).toEqual({ refreshToken, outcome: '400 VALIDATION_FAILED', fields: ['refreshToken'] });
    }
    await expectAccepted(t, s.accessToken, s.userId);
    expect((await refreshWith(s.refreshToken)).status).toBe(200);
  });

  it('without a refresh token still needs the bearer token: missing without one', async () => {
    expect(await logout(transport, undefined)).toEqual({ outcome: '401 UNAUTHENTICATED missing' });
    expect(await logout(transport, null)).toEqual({ outcome: '401 UNAUTHENTICATED missing' });
  });
});

describe('GraphQL logout(refreshToken:) through the typed operation', () => {
  it('takes the variable as the schema declares it, and refuses a wrongly typed one', async () => {
    const s = await signInWithCode(t);
    const res = await t.http.gql(LogoutDocument, { refreshToken: s.refreshToken });
    expect(res.body).toEqual({ data: { logout: true } });
    await expectRefusedFor(t, `Bearer ${s.accessToken}`, 'session_ended');
    const wrong = await t.http.request('POST', '/graphql', { body: { query: 'mutation($r: String) { logout(refreshToken: $r) }', variables: { r: 12345 } } });
    expect(wrong.body.errors?.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['VALIDATION_FAILED']);
  });
});
