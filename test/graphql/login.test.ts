import { describe, expect, it } from '@jest/globals';
import { LoginDocument, LoginWithPasswordDocument, MeDocument } from '../generated/graphql.js';
import { GOOD_PASSWORD, registerUser, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectAuthPayload, wrongCode } from '../helpers/assertions.js';
import { dataOf, errorOf, expectRetryAfter, gqlCode } from './support.js';

const t = useTestServer();

const login = (phone: unknown, code: unknown) => t.http.gql(LoginDocument, { input: { phone, code } } as any);
const loginWithPassword = (phone: unknown, password: unknown) =>
  t.http.gql(LoginWithPasswordDocument, { input: { phone, password } } as any);
const count = async (table: string) => (await t.sql<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;

describe('login mutation (SMS code)', () => {
  it('creates a code-only account for a new phone and signs it in', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone);
    const payload = dataOf(await login(phone, code)).login;
    expectAuthPayload(payload, 'GraphQL', { isNewUser: true, user: { phone } });
    expect(payload.user).toMatchObject({ nickname: `User${phone.slice(-4)}`, hasPassword: false });
    expect(await count('users')).toBe(1);
    expect(await count('sessions')).toBe(1);
    const me = dataOf(await t.http.gql(MeDocument, {}, { token: payload.accessToken })).me;
    expect(me).toEqual(payload.user);
  });

  it('signs in the existing account of the phone, in national form too, with isNewUser false', async () => {
    const existing = await registerUser(t);
    await t.sql('delete from rate_limits');
    const code = await gqlCode(t, existing.phone);
    const payload = dataOf(await login(existing.phone.slice(3), code)).login;
    expectAuthPayload(payload, 'GraphQL', { isNewUser: false, user: { phone: existing.phone } });
    expect(payload.user).toMatchObject({ id: existing.userId, hasPassword: true });
    expect(await count('users')).toBe(1);
  });

  it('refuses a wrong code with INVALID_CODE and creates no account', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone);
    errorOf(await login(phone, wrongCode(code)), 'INVALID_CODE');
    expect(await count('users')).toBe(0);
    expect(await count('sessions')).toBe(0);
  });

  it('refuses a code for a phone that was never sent one with INVALID_CODE', async () => {
    errorOf(await login(newPhone(), '123456'), 'INVALID_CODE');
  });

  it('accepts a code once: reusing it is INVALID_CODE', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone);
    dataOf(await login(phone, code));
    errorOf(await login(phone, code), 'INVALID_CODE');
    expect(await count('sessions')).toBe(1);
  });

  it('refuses a code sent for another purpose with INVALID_CODE', async () => {
    const phone = newPhone();
    const registerCode = await gqlCode(t, phone, 'REGISTER');
    errorOf(await login(phone, registerCode), 'INVALID_CODE');
    expect(await count('users')).toBe(0);
  });

  it('refuses an expired code with INVALID_CODE', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone);
    await t.sql("update verification_codes set expires_at = now() - interval '1 second' where phone = $1", [phone]);
    errorOf(await login(phone, code), 'INVALID_CODE');
  });

  it('still accepts the right code after 4 wrong guesses', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone);
    for (let i = 0; i < 4; i++) errorOf(await login(phone, wrongCode(code)), 'INVALID_CODE');
    expectAuthPayload(dataOf(await login(phone, code)).login, 'GraphQL', { isNewUser: true, user: { phone } });
  });

  it('burns the code after 5 wrong guesses: the right code is then INVALID_CODE', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone);
    for (let i = 0; i < 5; i++) errorOf(await login(phone, wrongCode(code)), 'INVALID_CODE');
    errorOf(await login(phone, code), 'INVALID_CODE');
    expect(await count('users')).toBe(0);
  });

  it('answers an over-long, missing or wrongly typed code with VALIDATION_FAILED naming the field', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone);
    const long = errorOf(await login(phone, '1'.repeat(40)), 'VALIDATION_FAILED');
    expect(long.extensions?.fields).toEqual({ code: expect.any(String) });
    const missing = errorOf(await t.http.gql(LoginDocument, { input: { phone } } as any), 'VALIDATION_FAILED');
    expect(missing.extensions?.fields).toEqual({ code: expect.any(String) });
    const typed = errorOf(await login(phone, 123456), 'VALIDATION_FAILED');
    expect(typed.extensions?.fields).toEqual({ code: expect.any(String) });
    const noInput = errorOf(await t.http.gql(LoginDocument, {} as any), 'VALIDATION_FAILED');
    expect(noInput.extensions?.fields).toEqual({ input: expect.any(String) });
    // None of these was a guess: the code still works.
    dataOf(await login(phone, code));
  });

  it('refuses an invalid phone with INVALID_PHONE', async () => {
    const error = errorOf(await login('+86123', '123456'), 'INVALID_PHONE');
    expect(error.extensions?.fields).toEqual({ phone: expect.any(String) });
  });
});

describe('loginWithPassword mutation', () => {
  it('signs in with phone and password, in E.164 or national form', async () => {
    const user = await registerUser(t);
    for (const phone of [user.phone, user.phone.slice(3)]) {
      const payload = dataOf(await loginWithPassword(phone, GOOD_PASSWORD)).loginWithPassword;
      expectAuthPayload(payload, 'GraphQL', { isNewUser: false, user: { phone: user.phone } });
      expect(payload.user).toMatchObject({ id: user.userId, hasPassword: true });
    }
    expect(await count('sessions')).toBe(3);
  });

  it('answers an unknown phone, a wrong password and a code-only account alike with INVALID_CREDENTIALS', async () => {
    const user = await registerUser(t);
    const codeOnly = await signInWithCode(t);
    const unknown = errorOf(await loginWithPassword(newPhone(), GOOD_PASSWORD), 'INVALID_CREDENTIALS');
    const wrong = errorOf(await loginWithPassword(user.phone, `${GOOD_PASSWORD}!`), 'INVALID_CREDENTIALS');
    const none = errorOf(await loginWithPassword(codeOnly.phone, GOOD_PASSWORD), 'INVALID_CREDENTIALS');
    expect(wrong.message).toBe(unknown.message);
    expect(none.message).toBe(unknown.message);
    expect(unknown.extensions?.fields).toBeUndefined();
  });

  it('does not accept a longer password whose first 72 bytes are the real one', async () => {
    const password = '密'.repeat(24); // 72 bytes of UTF-8
    const user = await registerUser(t, newPhone(), password);
    errorOf(await loginWithPassword(user.phone, `${password}x`), 'INVALID_CREDENTIALS');
    errorOf(await loginWithPassword(user.phone, `${password}${'y'.repeat(500)}`), 'INVALID_CREDENTIALS');
    dataOf(await loginWithPassword(user.phone, password));
  });

  it('rate-limits a phone after 5 failures from one address, even with the right password', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 4; i++) errorOf(await loginWithPassword(user.phone, `wrong-${i}-password`), 'INVALID_CREDENTIALS');
    // A success does not count as a failure.
    dataOf(await loginWithPassword(user.phone, GOOD_PASSWORD));
    errorOf(await loginWithPassword(user.phone, 'wrong-4-password'), 'INVALID_CREDENTIALS');
    const retryAfter = expectRetryAfter(await loginWithPassword(user.phone, 'wrong-5-password'));
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expectRetryAfter(await loginWithPassword(user.phone, GOOD_PASSWORD));
  });

  it('answers a missing password with VALIDATION_FAILED and a bad phone with INVALID_PHONE', async () => {
    const missing = errorOf(await t.http.gql(LoginWithPasswordDocument, { input: { phone: newPhone() } } as any), 'VALIDATION_FAILED');
    expect(missing.extensions?.fields).toEqual({ password: expect.any(String) });
    errorOf(await loginWithPassword('0000', GOOD_PASSWORD), 'INVALID_PHONE');
  });
});
