import { describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectAuthPayload } from '../helpers/assertions.js';
import { expectProblem, expectRateLimited } from './support.js';

const LOGIN = '/api/v1/auth/login-password';

const t = useTestServer();
const strictIp = useTestServer({ LOGIN_FAILURES_PER_IP_DAILY: '3' }); // 3 failures per IP per day

/** The parts of a problem that must not tell the three failure causes apart. */
const visible = (body: any) => ({ ...body, requestId: undefined });

describe('POST /api/v1/auth/login-password', () => {
  it('signs in with the right password', async () => {
    const user = await registerUser(t);
    const res = await t.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD });
    expect(res.status).toBe(200);
    expectAuthPayload(res.body, 'REST', { isNewUser: false, user: { phone: user.phone, hasPassword: true } });
    expect(res.body.user.id).toBe(user.userId);
    const me = await t.http.get('/api/v1/users/me', { token: res.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.userId);
  });

  it('accepts the national form of the phone', async () => {
    const user = await registerUser(t);
    const res = await t.http.post(LOGIN, { phone: user.phone.slice(3), password: GOOD_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.user.phone).toBe(user.phone);
  });

  it('opens a separate session per login; each token works', async () => {
    const user = await registerUser(t);
    const a = await t.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD });
    const b = await t.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD });
    expect(a.body.refreshToken).not.toBe(b.body.refreshToken);
    for (const token of [user.accessToken, a.body.accessToken, b.body.accessToken]) {
      expect((await t.http.get('/api/v1/users/me', { token })).status).toBe(200);
    }
  });

  it('answers unknown phone, wrong password and code-only account alike with 401 INVALID_CREDENTIALS', async () => {
    const withPassword = await registerUser(t);
    const codeOnly = await signInWithCode(t);
    const unknown = expectProblem(await t.http.post(LOGIN, { phone: newPhone(), password: GOOD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    const wrong = expectProblem(await t.http.post(LOGIN, { phone: withPassword.phone, password: 'not-the-password' }), 401, 'INVALID_CREDENTIALS');
    const noPassword = expectProblem(await t.http.post(LOGIN, { phone: codeOnly.phone, password: GOOD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expect(visible(wrong)).toEqual(visible(unknown));
    expect(visible(noPassword)).toEqual(visible(unknown));
  });

  it('compares the whole password, case-sensitively', async () => {
    const user = await registerUser(t);
    for (const password of [GOOD_PASSWORD.toUpperCase(), `${GOOD_PASSWORD} `, GOOD_PASSWORD.slice(0, -1)]) {
      expectProblem(await t.http.post(LOGIN, { phone: user.phone, password }), 401, 'INVALID_CREDENTIALS');
    }
  });

  it('rejects an invalid phone with INVALID_PHONE', async () => {
    expectProblem(await t.http.post(LOGIN, { phone: '+861065529988', password: GOOD_PASSWORD }), 400, 'INVALID_PHONE');
  });

  it('rejects a missing or wrongly typed password with VALIDATION_FAILED and fields', async () => {
    const phone = newPhone();
    for (const body of [{ phone }, { phone, password: 12345678 }, { phone, password: null }, { phone, password: { $ne: '' } }]) {
      const problem = expectProblem(await t.http.post(LOGIN, body), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['password']);
    }
  });
});

describe('login-password failure limits', () => {
  it('refuses a sixth attempt after five failures for (phone, IP) with 429 and Retry-After, even with the right password', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 5; i++) {
      expectProblem(await t.http.post(LOGIN, { phone: user.phone, password: `wrong-password-${i}` }), 401, 'INVALID_CREDENTIALS');
    }
    const locked = await t.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD });
    expect(expectRateLimited(locked, 900)).toBeGreaterThan(800);
    expectRateLimited(await t.http.post(LOGIN, { phone: user.phone.slice(3), password: GOOD_PASSWORD }), 900);
    // Another phone from the same address is not locked.
    const other = await registerUser(t);
    expect((await t.http.post(LOGIN, { phone: other.phone, password: GOOD_PASSWORD })).status).toBe(200);
  });

  it('counts failures against unknown phones too', async () => {
    const phone = newPhone();
    for (let i = 0; i < 5; i++) expectProblem(await t.http.post(LOGIN, { phone, password: GOOD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expectRateLimited(await t.http.post(LOGIN, { phone, password: GOOD_PASSWORD }), 900);
  });

  it('does not count a successful login as a failure', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 7; i++) expect((await t.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD })).status).toBe(200);
    for (let i = 0; i < 4; i++) expectProblem(await t.http.post(LOGIN, { phone: user.phone, password: 'wrong-password' }), 401, 'INVALID_CREDENTIALS');
    expect((await t.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD })).status).toBe(200);
    expectProblem(await t.http.post(LOGIN, { phone: user.phone, password: 'wrong-password' }), 401, 'INVALID_CREDENTIALS');
    expectRateLimited(await t.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD }), 900);
  });

  it('limits failures per IP per day across phones (LOGIN_FAILURES_PER_IP_DAILY)', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 3; i++) {
      expectProblem(await strictIp.http.post(LOGIN, { phone: newPhone(), password: GOOD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    }
    const locked = await strictIp.http.post(LOGIN, { phone: user.phone, password: GOOD_PASSWORD });
    expect(expectRateLimited(locked, 86400)).toBeGreaterThan(3600);
  });
});
