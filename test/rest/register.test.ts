import { describe, expect, it } from '@jest/globals';
import { clearRateLimits, GOOD_PASSWORD, requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectAuthPayload, wrongCode } from '../helpers/assertions.js';
import { expectNoLeaks, expectProblem } from './support.js';

const REGISTER = '/api/v1/auth/register';

const t = useTestServer();
const closed = useTestServer({ REGISTRATION_ENABLED: 'false' }); // registration switched off

async function registerWith(password: string, extra: Record<string, unknown> = {}, phone = newPhone()) {
  const code = await requestCode(t, phone, 'register');
  return { phone, code, res: await t.http.post(REGISTER, { phone, code, password, ...extra }) };
}

describe('POST /api/v1/auth/register', () => {
  it('creates the account with 201 and an AuthPayload, with the default nickname', async () => {
    const { phone, res } = await registerWith(GOOD_PASSWORD);
    expect(res.status).toBe(201);
    expectAuthPayload(res.body, 'REST', { isNewUser: true, user: { phone, nickname: `User${phone.slice(-4)}`, hasPassword: true } });
    const me = await t.http.get('/api/v1/users/me', { token: res.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body.user);
  });

  it('then lets the user sign in with that password', async () => {
    const { phone, res } = await registerWith(GOOD_PASSWORD);
    const login = await t.http.post('/api/v1/auth/login-password', { phone, password: GOOD_PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body.isNewUser).toBe(false);
    expect(login.body.user.id).toBe(res.body.user.id);
  });

  it('stores the password only as a bcrypt hash, which no response contains', async () => {
    const { phone, res } = await registerWith(GOOD_PASSWORD);
    const [row] = await t.sql<{ password_hash: string }>('select password_hash from users where phone = $1', [phone]);
    expect(row!.password_hash).toMatch(/^\$2[aby]\$\d\d\$/);
    const login = await t.http.post('/api/v1/auth/login-password', { phone, password: GOOD_PASSWORD });
    const me = await t.http.get('/api/v1/users/me', { token: res.body.accessToken });
    for (const r of [res, login, me]) {
      const text = JSON.stringify(r.body);
      expect(text).not.toContain(row!.password_hash);
      expect(text).not.toContain(GOOD_PASSWORD);
      expect(text).not.toMatch(/hash/i);
      expectNoLeaks(r);
    }
  });

  it('takes a custom nickname, trimmed', async () => {
    const { res } = await registerWith(GOOD_PASSWORD, { nickname: '  Ada 🚀  ' });
    expect(res.status).toBe(201);
    expect(res.body.user.nickname).toBe('Ada 🚀');
  });

  it('uses the default nickname when nickname is null', async () => {
    const { phone, res } = await registerWith(GOOD_PASSWORD, { nickname: null });
    expect(res.status).toBe(201);
    expect(res.body.user.nickname).toBe(`User${phone.slice(-4)}`);
  });

  it.each([
    ['blank', '   '],
    ['33 characters', 'x'.repeat(33)],
    ['a control character', 'Ada\u0007'],
    ['not a string', 42],
  ])('rejects a nickname that is %s with VALIDATION_FAILED', async (_what, nickname) => {
    const { res } = await registerWith(GOOD_PASSWORD, { nickname });
    const problem = expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(Object.keys(problem.fields)).toEqual(['nickname']);
  });

  it.each([
    ['7 characters', 'abc1234'],
    ['a common password', 'password123'],
    ['another common password', 'qwertyuiop'],
    ['73 bytes of UTF-8', 'a' + '€'.repeat(24)],
    ['75 bytes of UTF-8', '€'.repeat(25)],
  ])('rejects %s with WEAK_PASSWORD', async (_what, password) => {
    const { res } = await registerWith(password);
    expectProblem(res, 400, 'WEAK_PASSWORD');
    expect(await t.sql('select id from users')).toEqual([]);
  });

  it('rejects the phone number as password, in national, international and E.164 digits', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    for (const password of [phone.slice(3), phone.slice(1), phone]) {
      expectProblem(await t.http.post(REGISTER, { phone, code, password }), 400, 'WEAK_PASSWORD');
    }
  });

  it('accepts a password of exactly 8 characters and one of exactly 72 bytes', async () => {
    const eight = await registerWith('kq7#vLm2');
    expect(eight.res.status).toBe(201);
    const password = '€'.repeat(24); // 72 bytes
    const { phone, res } = await registerWith(password);
    expect(res.status).toBe(201);
    const login = await t.http.post('/api/v1/auth/login-password', { phone, password });
    expect(login.status).toBe(200);
    // bcrypt must see every byte: a prefix is not the password.
    expectProblem(await t.http.post('/api/v1/auth/login-password', { phone, password: '€'.repeat(23) }), 401, 'INVALID_CREDENTIALS');
  });

  it('keeps the code usable after a weak password is refused', async () => {
    const { phone, code, res } = await registerWith('short');
    expectProblem(res, 400, 'WEAK_PASSWORD');
    expect((await t.http.post(REGISTER, { phone, code, password: GOOD_PASSWORD })).status).toBe(201);
  });

  it('rejects a phone that already has an account with 409 PHONE_ALREADY_REGISTERED', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    await clearRateLimits(t);
    await signInWithCode(t, phone); // the account appears between send-code and register
    expectProblem(await t.http.post(REGISTER, { phone, code, password: GOOD_PASSWORD }), 409, 'PHONE_ALREADY_REGISTERED');
  });

  it('rejects a wrong, login-purpose or used code with INVALID_CODE', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    expectProblem(await t.http.post(REGISTER, { phone, code: wrongCode(code), password: GOOD_PASSWORD }), 400, 'INVALID_CODE');

    const other = newPhone();
    const loginCode = await requestCode(t, other, 'login');
    expectProblem(await t.http.post(REGISTER, { phone: other, code: loginCode, password: GOOD_PASSWORD }), 400, 'INVALID_CODE');

    expect((await t.http.post(REGISTER, { phone, code, password: GOOD_PASSWORD })).status).toBe(201);
    // Same code again: used up. The code is checked before the phone, so that only the holder of a
    // valid code learns that a phone has an account.
    expectProblem(await t.http.post(REGISTER, { phone, code, password: GOOD_PASSWORD }), 400, 'INVALID_CODE');
  });

  it('rejects an invalid phone with INVALID_PHONE', async () => {
    expectProblem(await t.http.post(REGISTER, { phone: '+8612345', code: '123456', password: GOOD_PASSWORD }), 400, 'INVALID_PHONE');
  });

  it('rejects missing or wrongly typed fields with VALIDATION_FAILED, naming each', async () => {
    const problem = expectProblem(await t.http.post(REGISTER, { phone: 8613800138000, password: true }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(problem.fields).sort()).toEqual(['code', 'password', 'phone']);
  });

  it('accepts the national form, ignores unknown fields and returns E.164', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    const res = await t.http.post(REGISTER, { phone: phone.slice(3), code, password: GOOD_PASSWORD, role: 'admin', hasPassword: false });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ phone, hasPassword: true });
  });
});

describe('register with registration switched off', () => {
  it('refuses with 403 REGISTRATION_DISABLED and creates nothing', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register'); // sent while the other instance still allows sign-up
    expectProblem(await closed.http.post(REGISTER, { phone, code, password: GOOD_PASSWORD }), 403, 'REGISTRATION_DISABLED');
    expect(await t.sql('select id from users')).toEqual([]);
  });
});
