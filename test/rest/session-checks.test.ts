import { describe, expect, it } from '@jest/globals';
import { MeDocument } from '../generated/client/graphql.js';
import { GOOD_PASSWORD, registerUser, signInWithCode, type Session } from '../helpers/factories.js';
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

  it("gives each of concurrent first screens its own account's sessions, listed and counted from one read", async () => {
    // Accounts with one, two and three sessions, their first screens asked together and alone.
    const accounts: Session[][] = [];
    for (let n = 1; n <= 6; n++) {
      const first = await registerUser(t);
      const more: Session[] = [];
      for (let i = 0; i < n % 3; i++) {
        const res = await t.http.post('/api/v1/auth/login-password', { phone: first.phone, password: GOOD_PASSWORD });
        expect(res.status).toBe(200);
        more.push({ ...first, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken });
      }
      accounts.push([first, ...more]);
    }
    const query = 'query FirstScreen { me { id } mySessions { id current } myStats { activeSessions } myMfa { totp recoveryCodesLeft passkeys } }';
    const ask = (s: Session) => t.http.request('POST', '/graphql', { token: s.accessToken, body: { query } });
    for (const together of [true, false]) {
      const answers = together ? await Promise.all(accounts.map((a) => ask(a.at(-1)!))) : [await ask(accounts[0]!.at(-1)!)];
      answers.forEach((res, i) => {
        const own = accounts[i]!;
        const data = res.body.data;
        expect(res.body.errors).toBeUndefined();
        expect(data.me.id).toBe(own[0]!.userId);
        expect(data.mySessions.map((x: { id: string }) => x.id).sort()).toEqual(own.map((x) => claimsOf(x.accessToken).sid).sort());
        expect(data.mySessions.filter((x: { current: boolean }) => x.current).map((x: { id: string }) => x.id)).toEqual([claimsOf(own.at(-1)!.accessToken).sid]);
        expect(data.myStats.activeSessions).toBe(own.length);
        expect(data.myMfa).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 });
      });
    }
  });
});
