import { describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { wrongCode } from '../helpers/assertions.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';
import {
  ME,
  NEW_PASSWORD,
  PASSWORD,
  REFRESH,
  RESET,
  SERVER_ENV,
  SESSIONS,
  expectAccessWorks,
  expectNoContent,
  expectPasswordAccepted,
  expectSessionEnded,
  passwordLogin,
  sessionIdOf,
} from './support.js';

const t = useTestServer(SERVER_ENV);

const changePassword = (token: string, body: unknown) => t.http.request('PUT', PASSWORD, { token, body });

describe('POST /api/v1/auth/reset-password', () => {
  it('sets the new password with a reset-password code: 204, old password refused, new one accepted', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectNoContent(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }));
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, false);
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
  });

  it('accepts the national form of the phone', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectNoContent(await t.http.post(RESET, { phone: user.phone.slice(3), code, newPassword: NEW_PASSWORD }));
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
  });

  it('revokes every session of the account: old access and refresh tokens answer 401', async () => {
    const user = await registerUser(t);
    const second = await passwordLogin(t, user.phone);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectNoContent(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }));
    await expectSessionEnded(t, user);
    await expectSessionEnded(t, second);
    expect(await t.sql('select id from sessions where user_id = $1 and revoked_at is null', [user.userId])).toEqual([]);
  });

  it('refuses a weak password with 400 WEAK_PASSWORD, changes nothing, and the code stays usable', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    for (const weak of ['short1', 'password', '12345678', user.phone.slice(3)]) {
      expectProblem(await t.http.post(RESET, { phone: user.phone, code, newPassword: weak }), 400, 'WEAK_PASSWORD');
    }
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
    await expectAccessWorks(t, user);
    expectNoContent(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }));
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
  });

  it('answers send-code for an unknown phone exactly as for a known one, and sends no SMS to it', async () => {
    const user = await registerUser(t);
    const unknown = newPhone();
    const known = await t.http.post('/api/v1/auth/send-code', { phone: user.phone, purpose: 'reset-password' });
    const stranger = await t.http.post('/api/v1/auth/send-code', { phone: unknown, purpose: 'reset-password' });
    expect(known.status).toBe(200);
    expect({ status: stranger.status, body: stranger.body }).toEqual({ status: known.status, body: known.body });
    const outbox = await t.outbox();
    expect(outbox.filter((m) => m.phone === unknown)).toEqual([]);
    expect(outbox.filter((m) => m.phone === user.phone && m.purpose === 'reset-password')).toHaveLength(1);
  });

  it('refuses a reset for an unknown phone with 400 INVALID_CODE and creates no account', async () => {
    const phone = newPhone();
    expect((await t.http.post('/api/v1/auth/send-code', { phone, purpose: 'reset-password' })).status).toBe(200);
    expectProblem(await t.http.post(RESET, { phone, code: '123456', newPassword: NEW_PASSWORD }), 400, 'INVALID_CODE');
    expect(await t.sql('select id from users where phone = $1', [phone])).toEqual([]);
  });

  it('refuses a wrong code with 400 INVALID_CODE and keeps the old password', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectProblem(await t.http.post(RESET, { phone: user.phone, code: wrongCode(code), newPassword: NEW_PASSWORD }), 400, 'INVALID_CODE');
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
    await expectAccessWorks(t, user);
  });

  it('uses a code once: a second reset with it is 400 INVALID_CODE', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectNoContent(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }));
    expectProblem(await t.http.post(RESET, { phone: user.phone, code, newPassword: 'another-fine-pass-9' }), 400, 'INVALID_CODE');
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
  });

  it('gives a code-only account its first password', async () => {
    const user = await signInWithCode(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectNoContent(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }));
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
  });

  it('refuses a missing newPassword or code with 400 VALIDATION_FAILED', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expect(expectProblem(await t.http.post(RESET, { phone: user.phone, code }), 400, 'VALIDATION_FAILED').fields).toHaveProperty('newPassword');
    expect(expectProblem(await t.http.post(RESET, { phone: user.phone, newPassword: NEW_PASSWORD }), 400, 'VALIDATION_FAILED').fields).toHaveProperty('code');
  });
});

describe('PUT /api/v1/users/me/password', () => {
  it('changes the password with the right currentPassword: 204, old password refused, new one accepted', async () => {
    const user = await registerUser(t);
    expectNoContent(await changePassword(user.accessToken, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD }));
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, false);
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
  });

  it('revokes every other session and keeps the current one', async () => {
    const user = await registerUser(t);
    const current = await passwordLogin(t, user.phone);
    const third = await passwordLogin(t, user.phone);
    expectNoContent(await changePassword(current.accessToken, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD }));
    await expectSessionEnded(t, user);
    await expectSessionEnded(t, third);
    await expectAccessWorks(t, current);
    const me = await t.http.get(ME, { token: current.accessToken });
    expect(me.body).toMatchObject({ id: user.userId, hasPassword: true });
    const sessions = await t.http.get(SESSIONS, { token: current.accessToken });
    expect(sessions.body.map((s: any) => s.id)).toEqual([sessionIdOf(current.accessToken)]);
    // The current session's refresh token still rotates.
    expect((await t.http.post(REFRESH, { refreshToken: current.refreshToken })).status).toBe(200);
  });

  it('requires currentPassword when the account has one: 400 VALIDATION_FAILED naming it, nothing changed', async () => {
    const user = await registerUser(t);
    const other = await passwordLogin(t, user.phone);
    for (const body of [{ newPassword: NEW_PASSWORD }, { currentPassword: null, newPassword: NEW_PASSWORD }]) {
      const problem = expectProblem(await changePassword(user.accessToken, body), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['currentPassword']);
    }
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
    await expectAccessWorks(t, other);
  });

  it('refuses a wrong currentPassword with 401 INVALID_CREDENTIALS, nothing changed', async () => {
    const user = await registerUser(t);
    const other = await passwordLogin(t, user.phone);
    expectProblem(await changePassword(user.accessToken, { currentPassword: 'not-my-password', newPassword: NEW_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    await expectAccessWorks(t, user);
    await expectAccessWorks(t, other);
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, false);
  });

  it('throttles wrong current passwords like logins: after 5 failures 429 RATE_LIMITED with Retry-After, even when right', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 5; i++) {
      const res = await changePassword(user.accessToken, { currentPassword: `wrong-password-${i}`, newPassword: NEW_PASSWORD });
      expectProblem(res, 401, 'INVALID_CREDENTIALS');
    }
    const locked = await changePassword(user.accessToken, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD });
    expect(expectRateLimited(locked, 900)).toBeGreaterThan(800);
    // The counter is the sign-in's one: password login of this phone is locked too, and nothing changed.
    expectRateLimited(await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD }), 900);
    await t.sql('delete from rate_limits');
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
  });

  it('shares the failure counter with password sign-in: failed logins count against a change', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 5; i++) await expectPasswordAccepted(t, user.phone, `wrong-password-${i}`, false);
    expectRateLimited(await changePassword(user.accessToken, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD }), 900);
  });

  it('lets a code-only account set its first password without currentPassword', async () => {
    const user = await signInWithCode(t);
    const other = await signInWithCode(t, user.phone);
    expect((await t.http.get(ME, { token: user.accessToken })).body.hasPassword).toBe(false);
    expectNoContent(await changePassword(user.accessToken, { newPassword: NEW_PASSWORD }));
    const me = await t.http.get(ME, { token: user.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.hasPassword).toBe(true);
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
    await expectSessionEnded(t, other);
    // From now on the account has a password, so it must be given.
    expectProblem(await changePassword(user.accessToken, { newPassword: 'another-fine-pass-9' }), 400, 'VALIDATION_FAILED');
  });

  it('applies the password policy to newPassword: 400 WEAK_PASSWORD, nothing changed', async () => {
    const user = await registerUser(t);
    for (const weak of ['short1', 'password', user.phone.slice(3), 'é'.repeat(37)]) {
      expectProblem(await changePassword(user.accessToken, { currentPassword: GOOD_PASSWORD, newPassword: weak }), 400, 'WEAK_PASSWORD');
    }
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
  });

  it('refuses a missing or wrongly typed newPassword with 400 VALIDATION_FAILED', async () => {
    const user = await registerUser(t);
    for (const body of [{ currentPassword: GOOD_PASSWORD }, { currentPassword: GOOD_PASSWORD, newPassword: 12345678 }]) {
      const problem = expectProblem(await changePassword(user.accessToken, body), 400, 'VALIDATION_FAILED');
      expect(problem.fields).toHaveProperty('newPassword');
    }
  });
});
