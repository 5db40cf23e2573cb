import { describe, expect, it } from '@jest/globals';
import { MeDocument } from '../generated/client/graphql.js';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf, forgeToken } from '../helpers/tokens.js';

// Two dozen accounts signed in by code from one address.
const t = useTestServer({ SEND_CODE_PER_IP_HOURLY: '1000' });

/**
 * The per-request session checks of requests in flight together are asked of the database in one
 * statement. Whatever else shares its batch, each request must get its own account, and a session
 * that has ended, or that belongs to another account than its token names, must be refused.
 */
describe('session checks of concurrent requests', () => {
  async function signedIn(count: number): Promise<Session[]> {
    const sessions: Session[] = [];
    for (let i = 0; i < count; i += 10) sessions.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => signInWithCode(t)))));
    return sessions;
  }

  it('answers each of many concurrent requests, on both transports, with its own account, and refuses the ended and mismatched sessions among them', async () => {
    const sessions = await signedIn(24);
    const ended = sessions.filter((_, i) => i % 3 === 0);
    for (const s of ended) expect((await t.http.post('/api/v1/auth/logout', {}, { token: s.accessToken })).status).toBe(204);
    const endedIds = new Set(ended.map((s) => s.userId));
    // A token naming one live account and another live account's session (signed with the service's
    // secret, as only a key holder could): the session is not the subject's, so it is refused.
    const [a, b] = sessions.filter((s) => !endedIds.has(s.userId));
    const crossed = forgeToken({ sub: a!.userId, sid: claimsOf(b!.accessToken).sid });

    for (let round = 0; round < 3; round++) {
      const [rest, graphql, mismatched] = await Promise.all([
        Promise.all(sessions.map((s) => t.http.get('/api/v1/users/me', { token: s.accessToken }))),
        Promise.all(sessions.map((s) => t.http.gql(MeDocument, {}, { token: s.accessToken }))),
        Promise.all([t.http.get('/api/v1/users/me', { token: crossed }), t.http.gql(MeDocument, {}, { token: crossed })]),
      ]);
      sessions.forEach((s, i) => {
        if (endedIds.has(s.userId)) {
          expect({ rest: rest[i]!.status, code: rest[i]!.body.code }).toEqual({ rest: 401, code: 'UNAUTHENTICATED' });
          expect(graphql[i]!.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
        } else {
          expect({ status: rest[i]!.status, id: rest[i]!.body.id, phone: rest[i]!.body.phone }).toEqual({ status: 200, id: s.userId, phone: s.phone });
          expect({ id: graphql[i]!.body.data?.me.id, phone: graphql[i]!.body.data?.me.phone }).toEqual({ id: s.userId, phone: s.phone });
        }
      });
      expect({ status: mismatched[0]!.status, code: mismatched[0]!.body.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
      expect(mismatched[1]!.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  it('sees a block at the very next request, whatever shares its batch', async () => {
    const [blocked, other] = await signedIn(2);
    await t.sql('update users set blocked_at = now() where id = $1', [blocked!.userId]);
    const [first, second] = await Promise.all([blocked, other].map((s) => t.http.get('/api/v1/users/me', { token: s!.accessToken })));
    expect(first!.status).toBe(401);
    expect({ status: second!.status, id: second!.body.id }).toEqual({ status: 200, id: other!.userId });
  });
});
