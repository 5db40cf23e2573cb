// A sign-in by code (or password) racing the deletion of its account. The two are serialised on the
// account's row: either the sign-in commits first (200; the deletion then ends its session, and the
// log shows the SIGN_IN before the ACCOUNT_DELETED), or the deletion does (400 INVALID_CODE, or 401
// INVALID_CREDENTIALS for a password: as for a code or password of an account that does not exist).
// Never a 500 (the session's foreign key), never tokens of a session that never existed.
import { describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, requestCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { type TestServer, useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { expectProblem } from '../rest/support.js';
import { deleteAccount, MANY_CODES, race, type Transport } from './deletion-race-support.js';

const ROUNDS = 15;
const t = useTestServer(MANY_CODES);

type Method = 'code' | 'password';

function signIn(t: TestServer, transport: Transport, method: Method, phone: string, secret: string): Promise<HttpResult> {
  if (transport === 'REST') {
    return method === 'code'
      ? t.http.post('/api/v1/auth/login', { phone, code: secret })
      : t.http.post('/api/v1/auth/login-password', { phone, password: secret });
  }
  return method === 'code'
    ? t.http.post('/graphql', { query: 'mutation($i: CodeLoginInput!) { login(input: $i) { accessToken } }', variables: { i: { phone, code: secret } } })
    : t.http.post('/graphql', { query: 'mutation($i: PasswordLoginInput!) { loginWithPassword(input: $i) { accessToken } }', variables: { i: { phone, password: secret } } });
}

describe.each<{ transport: Transport; method: Method }>([
  { transport: 'REST', method: 'code' },
  { transport: 'GraphQL', method: 'code' },
  { transport: 'REST', method: 'password' },
  { transport: 'GraphQL', method: 'password' },
])('a sign-in by $method over $transport racing the deletion of its account', ({ transport, method }) => {
  it(`answers 200 with a session that existed before the deletion, or a clean 4xx, in each of ${ROUNDS} rounds`, async () => {
    const outcomes: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const user = await registerUser(t);
      const deleteCode = await requestCode(t, user.phone, 'delete-account');
      const secret = method === 'code' ? await requestCode(t, user.phone, 'login') : GOOD_PASSWORD;
      // Spread the start of the sign-in over the deletion's few milliseconds, so both orders occur.
      const [deleted, signedIn] = await race(
        round % 4,
        () => deleteAccount(t, transport, user.accessToken, deleteCode),
        () => signIn(t, transport, method, user.phone, secret),
      );
      expect(deleted.status).toBeLessThan(300);
      if (transport === 'GraphQL') expect(deleted.body).toEqual({ data: { deleteAccount: true } });

      const token = transport === 'REST' ? signedIn.body?.accessToken : signedIn.body?.data?.[method === 'code' ? 'login' : 'loginWithPassword']?.accessToken;
      if (token) {
        expect(signedIn.status).toBe(200);
        // The session was created and committed before the deletion, which then ended it.
        const { sid } = claimsOf(token);
        const order = await t.sql<{ type: string }>(
          "select type from security_events where (type = 'SIGN_IN' and session_id = $1) or (type = 'ACCOUNT_DELETED' and session_id = $2) order by id",
          [sid, claimsOf(user.accessToken).sid],
        );
        expect(order.map((e) => e.type)).toEqual(['SIGN_IN', 'ACCOUNT_DELETED']);
        expectProblem(await t.http.get('/api/v1/users/me', { token }), 401, 'UNAUTHENTICATED');
        outcomes.signedInFirst = (outcomes.signedInFirst ?? 0) + 1;
      } else {
        const code = method === 'code' ? 'INVALID_CODE' : 'INVALID_CREDENTIALS';
        if (transport === 'REST') expectProblem(signedIn, method === 'code' ? 400 : 401, code);
        else expect(signedIn.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual([code]);
        outcomes.deletedFirst = (outcomes.deletedFirst ?? 0) + 1;
      }
      expect(await t.sql('select id from sessions where user_id = $1', [user.userId])).toEqual([]);
      expect(await t.sql('select id from users where phone = $1', [user.phone])).toEqual([]);
    }
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(ROUNDS);
  });
});
