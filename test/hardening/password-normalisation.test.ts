// Passwords are judged normalised (NFKC, format characters removed, trimmed) and hashed in NFKC:
// register, change and reset refuse whitespace-only passwords and padded or full-width common ones
// with WEAK_PASSWORD on both transports; a password typed on another keyboard signs in; and a hash
// made before normalisation still verifies the password exactly as it was typed.
import { describe, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { errorOf } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser, requestCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';

const t = useTestServer({ SEND_CODE_INTERVAL_SECONDS: '0' });

const WEAK = [
  ['eight spaces', ' '.repeat(8)],
  ['eight tabs', '\t'.repeat(8)],
  ['eight no-break spaces', '\u00a0'.repeat(8)],
  ['ideographic spaces and a zero-width space', '\u3000'.repeat(7) + '\u200b'],
  ['a listed password padded with a space', 'password '],
  ['a listed password padded with a zero-width space', '\u200bpassword'],
  ['a listed password in full-width letters', 'ｐａｓｓｗｏｒｄ'],
] as const;

type Transport = 'REST' | 'GraphQL';

function expectWeak(res: HttpResult, transport: Transport, field: string): void {
  if (transport === 'REST') expect(expectProblem(res, 400, 'WEAK_PASSWORD').fields).toEqual({ [field]: expect.any(String) });
  else expect(errorOf(res, 'WEAK_PASSWORD').extensions?.fields).toEqual({ [field]: expect.any(String) });
}

const gql = (t: TestServer, query: string, variables: Record<string, unknown>, token?: string) => t.http.post('/graphql', { query, variables }, { token });

describe.each<Transport>(['REST', 'GraphQL'])('over %s', (transport) => {
  it.each(WEAK)('register refuses %s with WEAK_PASSWORD', async (_name, password) => {
    const phone = newPhone();
    const res =
      transport === 'REST'
        ? await t.http.post('/api/v1/auth/register', { phone, code: '123456', password })
        : await gql(t, 'mutation($i: RegisterInput!) { register(input: $i) { accessToken } }', { i: { phone, code: '123456', password } });
    expectWeak(res, transport, 'password');
  });

  it('change and reset refuse each of them with WEAK_PASSWORD, and the password stays', async () => {
    const user = await registerUser(t);
    for (const [, newPassword] of WEAK) {
      const change =
        transport === 'REST'
          ? await t.http.request('PUT', '/api/v1/users/me/password', { token: user.accessToken, body: { currentPassword: GOOD_PASSWORD, newPassword } })
          : await gql(t, 'mutation($i: ChangePasswordInput!) { changePassword(input: $i) }', { i: { currentPassword: GOOD_PASSWORD, newPassword } }, user.accessToken);
      expectWeak(change, transport, 'newPassword');
      const reset =
        transport === 'REST'
          ? await t.http.post('/api/v1/auth/reset-password', { phone: user.phone, code: '123456', newPassword })
          : await gql(t, 'mutation($i: ResetPasswordInput!) { resetPassword(input: $i) }', { i: { phone: user.phone, code: '123456', newPassword } });
      expectWeak(reset, transport, 'newPassword');
    }
    expect((await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD })).status).toBe(200);
  });
});

describe('the NFKC form of the password is the one hashed', () => {
  const login = (phone: string, password: string) => t.http.post('/api/v1/auth/login-password', { phone, password });

  it('signs in with the password typed in full-width letters or plain, an accent composed or not: one password', async () => {
    const user = await registerUser(t, newPhone(), 'ｃａｆｅ\u0301-ｈａｒｂｏｒ-４２');
    expect((await login(user.phone, 'caf\u00e9-harbor-42')).status).toBe(200);
    const res = await gql(t, 'mutation($i: PasswordLoginInput!) { loginWithPassword(input: $i) { accessToken } }', { i: { phone: user.phone, password: 'ｃａｆé-ｈａｒｂｏｒ-４２' } });
    expect(res.body.data?.loginWithPassword?.accessToken).toEqual(expect.any(String));
    // Only the form changes: a padded password is another one.
    expectProblem(await login(user.phone, 'caf\u00e9-harbor-42 '), 401, 'INVALID_CREDENTIALS');
    expectProblem(await login(user.phone, 'cafe-harbor-42'), 401, 'INVALID_CREDENTIALS');
  });

  it('still verifies a hash made before normalisation against the password as it was typed', async () => {
    const user = await registerUser(t);
    const typed = 'ｃｏｐｐｅｒ\u00a0lantern 77';
    await t.sql('update users set password_hash = $1 where id = $2', [bcrypt.hashSync(typed, 4), user.userId]);
    expect((await login(user.phone, typed)).status).toBe(200);
    // Its NFKC form was never hashed.
    expectProblem(await login(user.phone, 'copper lantern 77'), 401, 'INVALID_CREDENTIALS');
    // A reset stores the NFKC form from then on: either spelling signs in.
    const code = await requestCode(t, user.phone, 'reset-password');
    expect((await t.http.post('/api/v1/auth/reset-password', { phone: user.phone, code, newPassword: typed })).status).toBe(204);
    expect((await login(user.phone, 'copper lantern 77')).status).toBe(200);
    expect((await login(user.phone, typed)).status).toBe(200);
  });
});
