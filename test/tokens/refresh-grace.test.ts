import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { RefreshTokenDocument } from '../generated/graphql.js';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { expectProblem } from '../rest/support.js';
import { expectAccepted, expectRefusedFor } from './support.js';

// API.md 10.5: a refresh token presented again within the grace window (REFRESH_REUSE_GRACE_SECONDS,
// 10 by default) gets the same new refresh token its first refresh returned, and a fresh access token,
// so two tabs refreshing at once both stay signed in; after the window it is reuse, as before.

const t = useTestServer();
const peer = useTestServer(); // a second instance on the same database

/** One refresh over either transport and instance: the new pair, or the refusal's code and reason. */
async function refresh(server: TestServer, transport: 'REST' | 'GraphQL', refreshToken: string): Promise<{ refreshToken?: string; accessToken?: string; refused?: string }> {
  if (transport === 'REST') {
    const res = await server.http.post('/api/v1/auth/refresh', { refreshToken });
    if (res.status === 200) return { refreshToken: res.body.refreshToken, accessToken: res.body.accessToken };
    return { refused: `${res.status} ${res.body.code} ${res.body.reason}` };
  }
  const res = await server.http.gql(RefreshTokenDocument, { refreshToken });
  const pair = res.body.data?.refreshToken;
  if (pair) return { refreshToken: pair.refreshToken, accessToken: pair.accessToken };
  const error = res.body.errors?.[0]?.extensions;
  return { refused: `401 ${error?.code} ${error?.reason}` };
}

const sessionOf = (accessToken: string) => claimsOf(accessToken).sid;
const tokenRows = (sessionId: string) =>
  t.sql<{ token_hash: string; used: boolean }>('select token_hash, used_at is not null as used from refresh_tokens where session_id = $1 order by created_at', [sessionId]);
const revokedAt = async (sessionId: string) => (await t.sql<{ revoked_at: unknown }>('select revoked_at from sessions where id = $1', [sessionId]))[0]?.revoked_at;
const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

describe.each(['REST', 'GraphQL'] as const)('a refresh token presented again within the grace window, over %s', (transport) => {
  it('gets the same new refresh token and a fresh access token; the session lives on and its successor is stored once, hashed', async () => {
    const s = await signInWithCode(t);
    const first = await refresh(t, transport, s.refreshToken);
    const again = await refresh(peer, transport, s.refreshToken);
    expect(again.refused).toBeUndefined();
    expect(again.refreshToken).toBe(first.refreshToken);
    expect(again.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(again.accessToken).not.toBe(first.accessToken);
    expect(sessionOf(again.accessToken!)).toBe(sessionOf(s.accessToken));
    await expectAccepted(t, again.accessToken!, s.userId);
    await expectAccepted(t, first.accessToken!, s.userId);

    const rows = await tokenRows(sessionOf(s.accessToken));
    expect(rows).toEqual([
      { token_hash: sha256(s.refreshToken), used: true },
      { token_hash: sha256(first.refreshToken!), used: false },
    ]);
    expect(JSON.stringify(await t.sql('select * from refresh_tokens'))).not.toContain(first.refreshToken);
    expect(await revokedAt(sessionOf(s.accessToken))).toBeNull();
    // The successor goes on as any refresh token.
    expect((await refresh(t, transport, first.refreshToken!)).refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('does not bring back a successor that was used already: refused invalid, and the session lives on with its newest token', async () => {
    const s = await signInWithCode(t);
    const child = await refresh(t, transport, s.refreshToken);
    const grandchild = await refresh(t, transport, child.refreshToken!);
    expect(grandchild.refreshToken).toBeDefined();
    expect(await refresh(peer, transport, s.refreshToken)).toEqual({ refused: '401 UNAUTHENTICATED invalid' });
    expect(await revokedAt(sessionOf(s.accessToken))).toBeNull();
    await expectAccepted(t, grandchild.accessToken!, s.userId);
    // The child, used within its own window, still gets the grandchild.
    expect((await refresh(t, transport, child.refreshToken!)).refreshToken).toBe(grandchild.refreshToken);
    expect((await refresh(t, transport, grandchild.refreshToken!)).refreshToken).toBeDefined();
  });

  it('gets no token once the session ended in between: UNAUTHENTICATED session_ended', async () => {
    const s = await signInWithCode(t);
    const child = await refresh(t, transport, s.refreshToken);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: child.accessToken })).status).toBe(204);
    expect(await refresh(peer, transport, s.refreshToken)).toEqual({ refused: '401 UNAUTHENTICATED session_ended' });
    expect(await refresh(t, transport, child.refreshToken!)).toEqual({ refused: '401 UNAUTHENTICATED session_ended' });
  });

  it('is reuse after the window: the session is revoked and no token is given', async () => {
    const s = await signInWithCode(t);
    const child = await refresh(t, transport, s.refreshToken);
    await t.sql(`update refresh_tokens set used_at = now() - interval '11 seconds' where token_hash = $1`, [sha256(s.refreshToken)]);
    expect(await refresh(peer, transport, s.refreshToken)).toEqual({ refused: '401 UNAUTHENTICATED session_ended' });
    expect(await revokedAt(sessionOf(s.accessToken))).not.toBeNull();
    await expectRefusedFor(t, `Bearer ${child.accessToken}`, 'session_ended');
    const reuse = await t.sql<{ n: number }>(`select count(*)::int as n from security_events where type = 'REFRESH_REUSE' and session_id = $1`, [sessionOf(s.accessToken)]);
    expect(reuse[0]!.n).toBe(1);
  });
});

describe('many parallel refreshes of one refresh token, on two instances and both transports', () => {
  it('all succeed with the same new refresh token; exactly one successor is stored and the session is not revoked', async () => {
    const s = await signInWithCode(t);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => refresh(i % 2 === 0 ? t : peer, i % 4 < 2 ? 'REST' : 'GraphQL', s.refreshToken)),
    );
    expect(results.filter((r) => r.refused)).toEqual([]);
    expect(new Set(results.map((r) => r.refreshToken)).size).toBe(1);
    expect(new Set(results.map((r) => r.accessToken)).size).toBe(16);
    const rows = await tokenRows(sessionOf(s.accessToken));
    expect(rows).toEqual([
      { token_hash: sha256(s.refreshToken), used: true },
      { token_hash: sha256(results[0]!.refreshToken!), used: false },
    ]);
    expect(await revokedAt(sessionOf(s.accessToken))).toBeNull();
    await expectAccepted(peer, results[15]!.accessToken!, s.userId);
    const reuse = await t.sql<{ n: number }>(`select count(*)::int as n from security_events where type = 'REFRESH_REUSE' and session_id = $1`, [sessionOf(s.accessToken)]);
    expect(reuse[0]!.n).toBe(0);
  });
});

describe('with REFRESH_REUSE_GRACE_SECONDS=0', () => {
  const strict = useTestServer({ REFRESH_REUSE_GRACE_SECONDS: '0' });

  it('a used refresh token is reuse at once: its session is revoked', async () => {
    const s = await signInWithCode(strict);
    expect((await strict.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken })).status).toBe(200);
    expect(expectProblem(await strict.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken }), 401, 'UNAUTHENTICATED').reason).toBe('session_ended');
  });
});
