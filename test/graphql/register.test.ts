import { describe, expect, it } from '@jest/globals';
import { ConfigDocument, LoginDocument, LoginWithPasswordDocument, RegisterDocument, SendCodeDocument } from '../generated/graphql.js';
import { clearRateLimits, GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectAuthPayload, wrongCode } from '../helpers/assertions.js';
import { dataOf, errorOf, gqlCode, gqlLogin } from './support.js';

const t = useTestServer();

const register = (input: Record<string, unknown>, server = t) => server.http.gql(RegisterDocument, { input } as any);
const userCount = async () => (await t.sql<{ n: number }>('select count(*)::int as n from users'))[0]!.n;

describe('register mutation', () => {
  it('creates an account with a password and a trimmed nickname', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone, 'REGISTER');
    const payload = dataOf(await register({ phone, code, password: GOOD_PASSWORD, nickname: '  Ada  ' })).register;
    expectAuthPayload(payload, 'GraphQL', { isNewUser: true, user: { phone } });
    expect(payload.user).toMatchObject({ nickname: 'Ada', hasPassword: true });
    const again = dataOf(await t.http.gql(LoginWithPasswordDocument, { input: { phone, password: GOOD_PASSWORD } }));
    expect(again.loginWithPassword.user.id).toBe(payload.user.id);
  });

  it('names the account User and the last four digits when no nickname is given', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone, 'REGISTER');
    const payload = dataOf(await register({ phone: phone.slice(3), code, password: GOOD_PASSWORD })).register;
    expect(payload.user.nickname).toBe(`User${phone.slice(-4)}`);
    expect(payload.user.phone).toBe(phone);
  });

  it('keeps a nickname of 32 emoji sequences intact', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone, 'REGISTER');
    const nickname = '👩‍💻'.repeat(32);
    expect(dataOf(await register({ phone, code, password: GOOD_PASSWORD, nickname })).register.user.nickname).toBe(nickname);
  });

  it.each([
    ['empty', ''],
    ['33 characters long', 'x'.repeat(33)],
    ['containing a control character', 'Ada\u0007'],
    ['far too long', 'y'.repeat(300)],
  ])('refuses a nickname that is %s with VALIDATION_FAILED on nickname', async (_name, nickname) => {
    const phone = newPhone();
    const code = await gqlCode(t, phone, 'REGISTER');
    const error = errorOf(await register({ phone, code, password: GOOD_PASSWORD, nickname }), 'VALIDATION_FAILED');
    expect(error.extensions?.fields).toEqual({ nickname: expect.any(String) });
    expect(await userCount()).toBe(0);
  });

  it('refuses weak passwords with WEAK_PASSWORD on password, and the code survives them', async () => {
    const phone = newPhone();
    const national = phone.slice(3);
    const code = await gqlCode(t, phone, 'REGISTER');
    const weak = [
      'short12', // 7 characters
      '密码太短了吗', // 6 characters, 18 bytes
      'password',
      'PASSWORD1',
      'iloveyou',
      national,
      phone.slice(1),
      phone,
      `0${national}`,
      '密'.repeat(25), // 75 bytes of UTF-8
      'a1'.repeat(36) + 'b', // 73 bytes
    ];
    for (const password of weak) {
      const error = errorOf(await register({ phone, code, password }), 'WEAK_PASSWORD');
      expect(error.extensions?.fields).toEqual({ password: expect.any(String) });
    }
    expect(await userCount()).toBe(0);
    dataOf(await register({ phone, code, password: GOOD_PASSWORD }));
  });

  it('accepts a password of exactly 72 bytes of UTF-8 and of exactly 8 characters', async () => {
    for (const password of ['密'.repeat(24), 'kx7#qpLm']) {
      const phone = newPhone();
      const code = await gqlCode(t, phone, 'REGISTER');
      dataOf(await register({ phone, code, password }));
      dataOf(await t.http.gql(LoginWithPasswordDocument, { input: { phone, password } }));
    }
  });

  it('refuses a login code, a wrong code or an expired code with INVALID_CODE', async () => {
    const phone = newPhone();
    const loginCode = await gqlCode(t, phone, 'LOGIN');
    errorOf(await register({ phone, code: loginCode, password: GOOD_PASSWORD }), 'INVALID_CODE');
    await clearRateLimits(t);
    const code = await gqlCode(t, phone, 'REGISTER');
    errorOf(await register({ phone, code: wrongCode(code), password: GOOD_PASSWORD }), 'INVALID_CODE');
    await t.sql("update verification_codes set expires_at = now() - interval '1 second' where phone = $1", [phone]);
    errorOf(await register({ phone, code, password: GOOD_PASSWORD }), 'INVALID_CODE');
    expect(await userCount()).toBe(0);
  });

  it('refuses a phone that has an account with PHONE_ALREADY_REGISTERED, told only to the holder of a valid register code', async () => {
    const existing = await registerUser(t);
    // A wrong code is INVALID_CODE for it as for any phone: no probing which phones have accounts.
    errorOf(await register({ phone: existing.phone, code: '123456', password: GOOD_PASSWORD }), 'INVALID_CODE');
    // A register code obtained before the phone signed in by code.
    const phone = newPhone();
    const code = await gqlCode(t, phone, 'REGISTER');
    await clearRateLimits(t);
    await gqlLogin(t, phone);
    errorOf(await register({ phone, code, password: GOOD_PASSWORD }), 'PHONE_ALREADY_REGISTERED');
    expect(await userCount()).toBe(2);
  });

  it('answers missing fields with VALIDATION_FAILED and a bad phone with INVALID_PHONE', async () => {
    const phone = newPhone();
    const missing = errorOf(await register({ phone, code: '123456' }), 'VALIDATION_FAILED');
    expect(missing.extensions?.fields).toEqual({ password: 'is required' });
    const long = errorOf(await register({ phone, code: '9'.repeat(40), password: GOOD_PASSWORD }), 'VALIDATION_FAILED');
    expect(long.extensions?.fields).toEqual({ code: expect.any(String) });
    errorOf(await register({ phone: '+8600000000000', code: '123456', password: GOOD_PASSWORD }), 'INVALID_PHONE');
  });
});

describe('with registration switched off', () => {
  const off = useTestServer({ REGISTRATION_ENABLED: 'false' });

  it('says so in config', async () => {
    expect(dataOf(await off.http.gql(ConfigDocument, {})).config.registrationEnabled).toBe(false);
  });

  it('refuses codes that would create an account with REGISTRATION_DISABLED, and sends none', async () => {
    for (const purpose of ['LOGIN', 'REGISTER'] as const) {
      errorOf(await off.http.gql(SendCodeDocument, { input: { phone: newPhone(), purpose } }), 'REGISTRATION_DISABLED');
    }
    expect(await off.outbox()).toEqual([]);
  });

  it('refuses register with REGISTRATION_DISABLED, and login by code for a new phone with INVALID_CODE unless the code is valid', async () => {
    const phone = newPhone();
    // Whether the phone has an account is not told for a wrong code (REGISTRATION_DISABLED comes
    // after a valid one: test/hardening/enumeration.test.ts).
    errorOf(await off.http.gql(LoginDocument, { input: { phone, code: '123456' } }), 'INVALID_CODE');
    errorOf(await register({ phone, code: '123456', password: GOOD_PASSWORD }, off), 'REGISTRATION_DISABLED');
    expect(await userCount()).toBe(0);
  });

  it('still signs in existing accounts by code and by password', async () => {
    const user = await registerUser(t);
    await clearRateLimits(t);
    dataOf(await off.http.gql(SendCodeDocument, { input: { phone: user.phone } }));
    const code = await off.codeFor(user.phone, 'login');
    const byCode = dataOf(await off.http.gql(LoginDocument, { input: { phone: user.phone, code } })).login;
    expectAuthPayload(byCode, 'GraphQL', { isNewUser: false, user: { phone: user.phone } });
    const byPassword = dataOf(await off.http.gql(LoginWithPasswordDocument, { input: { phone: user.phone, password: GOOD_PASSWORD } }));
    expect(byPassword.loginWithPassword.user.id).toBe(user.userId);
  });
});
