// The second factor at sign-in: MFA_REQUIRED after a right first factor, then auth/mfa/verify with
// a TOTP or recovery code, on both transports.
import { describe, expect, it } from '@jest/globals';
import { LoginWithPasswordDocument, RefreshTokenDocument, VerifyMfaDocument } from '../generated/graphql.js';
import { dataOf, errorOf } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser, requestCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';
import { codeAt, enrolledUser, eventTypes, mfaTokenByCode, mfaTokenByPassword, SERVER_ENV, steadyStep, VERIFY } from './support.js';

const t = useTestServer(SERVER_ENV);

describe('a sign-in of an account with TOTP on', () => {
  it('answers MFA_REQUIRED with a token and the methods, for a password (REST problem body)', async () => {
    const user = await enrolledUser(t, await steadyStep());
    const res = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
    const body = expectProblem(res, 401, 'MFA_REQUIRED');
    expect(body.mfaToken).toMatch(/^[\w-]{43}$/);
    expect(body.mfaMethods).toEqual(['totp', 'recovery']);
    expect(res.body).not.toHaveProperty('accessToken');
  });

  it('answers MFA_REQUIRED in the GraphQL extensions, for a password and for an SMS code', async () => {
    const user = await enrolledUser(t, await steadyStep());
    const byPassword = errorOf(await t.http.gql(LoginWithPasswordDocument, { input: { phone: user.phone, password: GOOD_PASSWORD } }), 'MFA_REQUIRED');
    expect(byPassword.extensions).toMatchObject({ code: 'MFA_REQUIRED', mfaToken: expect.stringMatching(/^[\w-]{43}$/), mfaMethods: ['totp', 'recovery'] });
    const code = await requestCode(t, user.phone, 'login');
    const byCode = await t.http.post('/graphql', { query: 'mutation($i: CodeLoginInput!) { login(input: $i) { accessToken } }', variables: { i: { phone: user.phone, code } } });
    expect(errorOf(byCode, 'MFA_REQUIRED').extensions).toMatchObject({ mfaToken: expect.any(String), mfaMethods: ['totp', 'recovery'] });
    expect(byCode.body.data).toBeNull();
  });

  it('signs in with a TOTP code: the tokens name password, otp and mfa, kept through refresh (REST)', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, user.phone);
    const res = await t.http.post(VERIFY, { mfaToken: token, code: codeAt(user.secret, step) });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.userId);
    expect(res.body.isNewUser).toBe(false);
    expect(claimsOf(res.body.accessToken).amr).toEqual(['pwd', 'otp', 'mfa']);
    const refreshed = await t.http.post('/api/v1/auth/refresh', { refreshToken: res.body.refreshToken });
    expect(claimsOf(refreshed.body.accessToken).amr).toEqual(['pwd', 'otp', 'mfa']);
    const types = await eventTypes(t, user.userId);
    expect(types.filter((type) => type === 'SIGN_IN')).toHaveLength(2); // registration, then this one
    expect(types).toContain('MFA_ENABLED');
  });

  it('signs in by SMS code and TOTP over GraphQL: amr sms, otp, mfa, kept through refresh', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByCode(t, user.phone);
    const payload = dataOf(await t.http.gql(VerifyMfaDocument, { input: { mfaToken: token, code: codeAt(user.secret, step) } })).verifyMfa;
    expect(payload.user.id).toBe(user.userId);
    expect(claimsOf(payload.accessToken).amr).toEqual(['sms', 'otp', 'mfa']);
    const refreshed = dataOf(await t.http.gql(RefreshTokenDocument, { refreshToken: payload.refreshToken })).refreshToken;
    expect(claimsOf(refreshed.accessToken).amr).toEqual(['sms', 'otp', 'mfa']);
  });

  it('accepts a TOTP code once: the same code on a new token is INVALID_CODE, the next step still works', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const code = codeAt(user.secret, step);
    expect((await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code })).status).toBe(200);
    expectProblem(await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code }), 400, 'INVALID_CODE');
    const gql = await t.http.gql(VerifyMfaDocument, { input: { mfaToken: await mfaTokenByPassword(t, user.phone), code } });
    errorOf(gql, 'INVALID_CODE');
    // The code the enrolment was confirmed with is used too.
    expectProblem(await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: codeAt(user.secret, user.confirmedStep) }), 400, 'INVALID_CODE');
    expect((await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: codeAt(user.secret, step + 1) })).status).toBe(200);
  });

  it('accepts a code of the step before (one step of drift) and refuses one two steps back or ahead', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    // Forget the step the enrolment used, so that only the drift window judges.
    await t.sql('update totp_factors set last_used_step = null where user_id = $1', [user.userId]);
    const token = await mfaTokenByPassword(t, user.phone);
    expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: codeAt(user.secret, step - 2) }), 400, 'INVALID_CODE');
    expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: codeAt(user.secret, step + 2) }), 400, 'INVALID_CODE');
    expect((await t.http.post(VERIFY, { mfaToken: token, code: codeAt(user.secret, step - 1) })).status).toBe(200);
  });

  it('ends the token after five wrong codes: the right code is INVALID_CODE from then on', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, user.phone);
    const right = codeAt(user.secret, step);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: wrong }), 400, 'INVALID_CODE');
    expect((await t.sql('select attempts from mfa_challenges where user_id = $1', [user.userId]))[0]).toEqual({ attempts: 5 });
    expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: right }), 400, 'INVALID_CODE');
    errorOf(await t.http.gql(VerifyMfaDocument, { input: { mfaToken: token, code: right } }), 'INVALID_CODE');
    // The wrong codes are on record (the first of the streak: see SignInFailureLog).
    expect(await eventTypes(t, user.userId)).toContain('MFA_FAILED');
  });

  it('treats 5- and 7-digit codes and garbage as wrong codes', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, user.phone);
    const right = codeAt(user.secret, step);
    for (const code of [right.slice(0, 5), `${right}0`, 'abc', '!!!!!!', '12345678901234567890']) {
      expectProblem(await t.http.post(VERIFY, { mfaToken: token, code }), 400, 'INVALID_CODE');
    }
    // Five wrong codes: the token is dead.
    expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: right }), 400, 'INVALID_CODE');
  });

  it('refuses an expired token, a used one and an unknown one', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const expired = await mfaTokenByPassword(t, user.phone);
    await t.sql(`update mfa_challenges set expires_at = now() - interval '1 second'`);
    expectProblem(await t.http.post(VERIFY, { mfaToken: expired, code: codeAt(user.secret, step) }), 400, 'INVALID_CODE');
    const used = await mfaTokenByPassword(t, user.phone);
    expect((await t.http.post(VERIFY, { mfaToken: used, code: codeAt(user.secret, step) })).status).toBe(200);
    expectProblem(await t.http.post(VERIFY, { mfaToken: used, code: codeAt(user.secret, step + 1) }), 400, 'INVALID_CODE');
    expectProblem(await t.http.post(VERIFY, { mfaToken: 'x'.repeat(43), code: codeAt(user.secret, step + 1) }), 400, 'INVALID_CODE');
    errorOf(await t.http.gql(VerifyMfaDocument, { input: { mfaToken: 'nothing', code: '123456' } }), 'INVALID_CODE');
  });

  it("refuses account B's valid code on account A's token", async () => {
    const step = await steadyStep();
    const a = await enrolledUser(t, step);
    const b = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, a.phone);
    expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: codeAt(b.secret, step) }), 400, 'INVALID_CODE');
    expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: b.recoveryCodes[0] }), 400, 'INVALID_CODE');
    // B's code was not spent by A's attempt.
    expect((await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, b.phone), code: codeAt(b.secret, step) })).status).toBe(200);
  });

  it('accepts a recovery code once, typed with spaces and in upper case', async () => {
    const user = await enrolledUser(t, await steadyStep());
    const [first, second] = user.recoveryCodes as [string, string];
    expect(first).toMatch(/^[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}$/);
    const typed = ` ${first.replace('-', ' ').toUpperCase()} `;
    const res = await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: typed });
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.accessToken).amr).toEqual(['pwd', 'otp', 'mfa']);
    expectProblem(await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: first }), 400, 'INVALID_CODE');
    const gql = await t.http.gql(VerifyMfaDocument, { input: { mfaToken: await mfaTokenByPassword(t, user.phone), code: second.replace('-', '') } });
    expect(dataOf(gql).verifyMfa.user.id).toBe(user.userId);
    expect((await t.http.get('/api/v1/users/me/mfa', { token: res.body.accessToken })).body.recoveryCodesLeft).toBe(8);
    expect((await eventTypes(t, user.userId)).filter((type) => type === 'RECOVERY_CODE_USED')).toHaveLength(2);
  });

  it('answers ACCOUNT_BLOCKED when the account was blocked after its first factor', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const token = await mfaTokenByPassword(t, user.phone);
    const another = await mfaTokenByPassword(t, user.phone);
    await t.sql('update users set blocked_at = now() where id = $1', [user.userId]);
    expectProblem(await t.http.post(VERIFY, { mfaToken: token, code: codeAt(user.secret, step) }), 403, 'ACCOUNT_BLOCKED');
    errorOf(await t.http.gql(VerifyMfaDocument, { input: { mfaToken: another, code: codeAt(user.secret, step + 1) } }), 'ACCOUNT_BLOCKED');
    // A blocked account gets no token at all.
    expectProblem(await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD }), 403, 'ACCOUNT_BLOCKED');
  });

  it('signs in without a second factor while TOTP is only pending', async () => {
    const user = await registerUser(t);
    expect((await t.http.post('/api/v1/users/me/mfa/totp', undefined, { token: user.accessToken })).status).toBe(200);
    const res = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.accessToken).amr).toEqual(['pwd']);
  });

  it('answers VALIDATION_FAILED for a missing or wrongly typed mfaToken or code', async () => {
    const cases: [unknown, string][] = [
      [{ code: '123456' }, 'mfaToken'],
      [{ mfaToken: 'x' }, 'code'],
      [{ mfaToken: 'x', code: 123456 }, 'code'],
      [{ mfaToken: ['x'], code: '123456' }, 'mfaToken'],
      [{ mfaToken: 'x', code: '1'.repeat(33) }, 'code'],
    ];
    for (const [body, field] of cases) {
      expect(Object.keys(expectProblem(await t.http.post(VERIFY, body), 400, 'VALIDATION_FAILED').fields)).toEqual([field]);
    }
    expectProblem(await t.http.post(VERIFY), 400, 'VALIDATION_FAILED');
    const gql = await t.http.post('/graphql', { query: 'mutation { verifyMfa(input: { mfaToken: "x" }) { accessToken } }' });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    errorOf(await t.http.gql(VerifyMfaDocument, { input: { mfaToken: 'x', code: '1'.repeat(33) } }), 'VALIDATION_FAILED');
  });
});

describe('wrong second-factor codes of one account', () => {
  const limited = useTestServer({ ...SERVER_ENV, MFA_FAILURES_PER_ACCOUNT_HOURLY: '3' });

  it('are limited per account: RATE_LIMITED with Retry-After before the code is looked at, on a new token too', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(limited, step);
    const token = await mfaTokenByPassword(limited, user.phone);
    for (let i = 0; i < 3; i++) expectProblem(await limited.http.post(VERIFY, { mfaToken: token, code: '000000' === codeAt(user.secret, step) ? '111111' : '000000' }), 400, 'INVALID_CODE');
    expectRateLimited(await limited.http.post(VERIFY, { mfaToken: token, code: codeAt(user.secret, step) }), 3600);
    const fresh = await mfaTokenByPassword(limited, user.phone);
    expectRateLimited(await limited.http.post(VERIFY, { mfaToken: fresh, code: codeAt(user.secret, step) }), 3600);
    errorOf(await limited.http.gql(VerifyMfaDocument, { input: { mfaToken: fresh, code: codeAt(user.secret, step) } }), 'RATE_LIMITED');
    // Another account is not affected.
    const other = await enrolledUser(limited, step);
    expect((await limited.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(limited, other.phone), code: codeAt(other.secret, step) })).status).toBe(200);
  });

  it('are limited per account and address like password failures (5 per 15 minutes by default)', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const wrong = '000000' === codeAt(user.secret, step) ? '111111' : '000000';
    const first = await mfaTokenByPassword(t, user.phone);
    for (let i = 0; i < 5; i++) expectProblem(await t.http.post(VERIFY, { mfaToken: first, code: wrong }), 400, 'INVALID_CODE');
    expectRateLimited(await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: codeAt(user.secret, step) }), 900);
  });
});
