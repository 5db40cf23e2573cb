// The dormant-account rule (carriers recycle numbers): a sign-in by SMS code to an account unused
// for PHONE_DORMANT_DAYS that has another factor answers SECOND_PROOF_REQUIRED, finished with that
// factor at auth/second-proof (completeSecondProof), on both transports against the real database.
import { describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { codeAt, enrolledUser, mfaTokenByPassword, steadyStep } from '../mfa/support.js';
import { accepted, addPasskey, newLoginChallenge, passkeyLogin, registrationOptions } from '../passkeys/support.js';
import {
  codeLogin,
  eventTypes,
  expectRefused,
  makeDormant,
  proofRequired,
  secondProof,
  sessionCount,
  signedIn,
  TRANSPORTS,
  verifyMfa,
} from './support.js';

/** The page origin the software authenticator signs for, and one the service accepts. */
const ORIGIN = 'https://meet.example.com:8443';
const t = useTestServer({ SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_PHONE_HOURLY: '50', SEND_CODE_PER_PHONE_DAILY: '50', WEBAUTHN_ORIGINS: ORIGIN });

describe.each(TRANSPORTS)('a dormant account signing in by SMS code, over %s', (transport) => {
  it('with a password: SECOND_PROOF_REQUIRED (no session), then the password signs in with amr sms and pwd', async () => {
    const user = await registerUser(t);
    await makeDormant(t, user.userId);
    const before = await sessionCount(t, user.userId);
    const { proofToken, methods } = await proofRequired(t, user.phone, transport);
    expect(methods).toEqual(['password']);
    expect(await sessionCount(t, user.userId)).toBe(before);
    const payload = signedIn(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport));
    expect(payload.user.id).toBe(user.userId);
    expect(claimsOf(payload.accessToken).amr).toEqual(['sms', 'pwd']);
    expect((await eventTypes(t, user.userId)).at(-1)).toBe('SIGN_IN');
    // Single use: the same token again is an unknown one.
    expectRefused(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport), transport, 400, 'INVALID_CODE');
    // Signed in now: no longer dormant, the next code sign-in goes through.
    signedIn(await codeLogin(t, user.phone, transport));
  });

  it('with TOTP: a TOTP code is the second proof and the second factor at once (no MFA_REQUIRED after it)', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    await makeDormant(t, user.userId);
    const { proofToken, methods } = await proofRequired(t, user.phone, transport);
    expect(methods).toEqual(['password', 'totp', 'recovery']);
    const payload = signedIn(await secondProof(t, { proofToken, totp: codeAt(user.secret, step) }, transport));
    expect(payload.user.id).toBe(user.userId);
    expect(claimsOf(payload.accessToken).amr).toEqual(['sms', 'otp', 'mfa']);
  });

  it('with TOTP: a recovery code signs in too, used up and recorded', async () => {
    const user = await enrolledUser(t, await steadyStep());
    await makeDormant(t, user.userId);
    const { proofToken } = await proofRequired(t, user.phone, transport);
    const payload = signedIn(await secondProof(t, { proofToken, recoveryCode: user.recoveryCodes[0]!.toUpperCase() }, transport));
    expect(claimsOf(payload.accessToken).amr).toEqual(['sms', 'otp', 'mfa']);
    expect(await eventTypes(t, user.userId)).toContain('RECOVERY_CODE_USED');
    const used = await t.sql<{ n: number }>('select count(*)::int as n from recovery_codes where user_id = $1 and used_at is not null', [user.userId]);
    expect(used[0]!.n).toBe(1);
  });

  it('with TOTP: the password replaces only the phone, so MFA_REQUIRED follows as after any first factor', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    await makeDormant(t, user.userId);
    const { proofToken } = await proofRequired(t, user.phone, transport);
    const mfa = expectRefused(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport), transport, 401, 'MFA_REQUIRED');
    expect(mfa.mfaMethods).toEqual(['totp', 'recovery']);
    // The proofToken is not an mfaToken, nor the other way round.
    expectRefused(await verifyMfa(t, proofToken, codeAt(user.secret, step), transport), transport, 400, 'INVALID_CODE');
    expectRefused(await secondProof(t, { proofToken: mfa.mfaToken, totp: codeAt(user.secret, step) }, transport), transport, 400, 'INVALID_CODE');
    const payload = signedIn(await verifyMfa(t, mfa.mfaToken, codeAt(user.secret, step), transport));
    expect(claimsOf(payload.accessToken).amr).toEqual(['sms', 'pwd', 'otp', 'mfa']);
  });

  it('refuses an mfaToken of a password sign-in as a proofToken, whatever the proof', async () => {
    const user = await enrolledUser(t, await steadyStep());
    const mfaToken = await mfaTokenByPassword(t, user.phone);
    expectRefused(await secondProof(t, { proofToken: mfaToken, password: GOOD_PASSWORD }, transport), transport, 400, 'INVALID_CODE');
  });

  it('a wrong password is INVALID_CREDENTIALS, recorded and counted: five kill the token, and the password failure limit holds', async () => {
    const user = await registerUser(t);
    await makeDormant(t, user.userId);
    const { proofToken } = await proofRequired(t, user.phone, transport);
    for (let i = 0; i < 5; i++) {
      expectRefused(await secondProof(t, { proofToken, password: 'not-the-password-1' }, transport), transport, 401, 'INVALID_CREDENTIALS');
    }
    expect(await eventTypes(t, user.userId)).toContain('SIGN_IN_FAILED');
    // Dead after five wrong proofs, even with the right one.
    expectRefused(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport), transport, 400, 'INVALID_CODE');
    // The five count against the phone's password failures (5 per 15 minutes): a new token waits too.
    const again = await proofRequired(t, user.phone, transport);
    expectRefused(await secondProof(t, { proofToken: again.proofToken, password: GOOD_PASSWORD }, transport), transport, 429, 'RATE_LIMITED');
    expect(await t.sql('select 1 from sessions where user_id = $1 and created_at > now() - interval \'1 minute\'', [user.userId])).toHaveLength(0);
  });

  it('a wrong TOTP code is INVALID_CODE, recorded as MFA_FAILED and counted against the second-factor failure limit', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    await makeDormant(t, user.userId);
    const { proofToken } = await proofRequired(t, user.phone, transport);
    const wrong = codeAt(user.secret, step + 5);
    for (let i = 0; i < 5; i++) expectRefused(await secondProof(t, { proofToken, totp: wrong }, transport), transport, 400, 'INVALID_CODE');
    expect(await eventTypes(t, user.userId)).toContain('MFA_FAILED');
    expectRefused(await secondProof(t, { proofToken, totp: codeAt(user.secret, step) }, transport), transport, 400, 'INVALID_CODE');
    const again = await proofRequired(t, user.phone, transport);
    expectRefused(await secondProof(t, { proofToken: again.proofToken, totp: codeAt(user.secret, step) }, transport), transport, 429, 'RATE_LIMITED');
  });

  it("binds the token to its account: another account's password does not pass", async () => {
    const dormant = await registerUser(t);
    const other = await registerUser(t, undefined, 'another-good-pass-77');
    await makeDormant(t, dormant.userId);
    const { proofToken } = await proofRequired(t, dormant.phone, transport);
    expectRefused(await secondProof(t, { proofToken, password: 'another-good-pass-77' }, transport), transport, 401, 'INVALID_CREDENTIALS');
    expect(other.userId).not.toBe(dormant.userId);
  });

  it('refuses an unknown token and another spelling of a live one as an unknown one, spending nothing', async () => {
    const user = await registerUser(t);
    await makeDormant(t, user.userId);
    const { proofToken } = await proofRequired(t, user.phone, transport);
    for (const spelling of [`${proofToken}=`, ` ${proofToken}`, `${proofToken.slice(0, 42)}${proofToken.at(-1) === 'A' ? 'B' : 'A'}`, 'x'.repeat(43)]) {
      expectRefused(await secondProof(t, { proofToken: spelling, password: GOOD_PASSWORD }, transport), transport, 400, 'INVALID_CODE');
    }
    signedIn(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport));
  });

  it('a proofToken lives 5 minutes, and a password reset ends it as it ends an mfaToken', async () => {
    const user = await registerUser(t);
    await makeDormant(t, user.userId);
    const expiring = await proofRequired(t, user.phone, transport);
    const [row] = await t.sql<{ ttl: number }>("select extract(epoch from expires_at - created_at)::int as ttl from mfa_challenges where user_id = $1 and purpose = 'second-proof'", [user.userId]);
    expect(row!.ttl).toBe(300);
    await t.sql("update mfa_challenges set expires_at = now() - interval '1 second' where user_id = $1", [user.userId]);
    expectRefused(await secondProof(t, { proofToken: expiring.proofToken, password: GOOD_PASSWORD }, transport), transport, 400, 'INVALID_CODE');
    const { proofToken } = await proofRequired(t, user.phone, transport);
    const code = await requestCode(t, user.phone, 'reset-password');
    expect((await t.http.post('/api/v1/auth/reset-password', { phone: user.phone, code, newPassword: 'a-new-good-pass-99' })).status).toBe(204);
    expectRefused(await secondProof(t, { proofToken, password: 'a-new-good-pass-99' }, transport), transport, 400, 'INVALID_CODE');
  });

  it('an account whose only factor is its phone signs in as before', async () => {
    const user = await signInWithCode(t);
    await makeDormant(t, user.userId);
    expect(signedIn(await codeLogin(t, user.phone, transport)).user.id).toBe(user.userId);
  });

  it('an account used within PHONE_DORMANT_DAYS signs in as before, whether by a sign-in or by a session in use', async () => {
    const recent = await registerUser(t);
    await makeDormant(t, recent.userId, 300);
    signedIn(await codeLogin(t, recent.phone, transport));
    // Signed in long ago, but its session was used (a refresh, a request) yesterday.
    const kept = await registerUser(t);
    await makeDormant(t, kept.userId);
    await t.sql("update sessions set last_used_at = now() - interval '1 day' where user_id = $1", [kept.userId]);
    signedIn(await codeLogin(t, kept.phone, transport));
  });

  it('a passkey-only account is told to use its passkey, and signs in with it as ever', async () => {
    const user = await signInWithCode(t);
    const authenticator = new SoftAuthenticator(ORIGIN, 'localhost');
    const options = accepted(await registrationOptions(t, user.accessToken, 'REST'));
    accepted(await addPasskey(t, user.accessToken, authenticator.register(options), 'REST'));
    await makeDormant(t, user.userId);
    const { proofToken, methods } = await proofRequired(t, user.phone, transport);
    expect(methods).toEqual(['passkey']);
    // The proofToken takes no passkey: there is no password or code to give it.
    expectRefused(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport), transport, 401, 'INVALID_CREDENTIALS');
    const { challengeId, options: request } = await newLoginChallenge(t, 'REST');
    const payload = accepted(await passkeyLogin(t, challengeId, authenticator.assert(request), transport));
    expect(payload.user.id).toBe(user.userId);
    expect(claimsOf(payload.accessToken).amr).toEqual(['hwk']);
  });

  it("an identity-only account is told to sign in through its provider; the proofToken takes no password", async () => {
    const user = await signInWithCode(t);
    await t.sql(
      `insert into identities (id, user_id, provider, issuer, subject) values (gen_random_uuid(), $1, 'acme', 'https://acme.example', $2)`,
      [user.userId, user.userId],
    );
    await makeDormant(t, user.userId);
    const { proofToken, methods } = await proofRequired(t, user.phone, transport);
    expect(methods).toEqual(['identity']);
    expectRefused(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport), transport, 401, 'INVALID_CREDENTIALS');
  });

  it('a blocked account is SECOND_PROOF_REQUIRED first, and ACCOUNT_BLOCKED only once the proof was right', async () => {
    const user = await registerUser(t);
    await makeDormant(t, user.userId);
    // A blocked account gets no code: this one was sent just before the block.
    const code = await requestCode(t, user.phone, 'login');
    await t.sql("update users set blocked_at = now(), blocked_reason = 'test' where id = $1", [user.userId]);
    const { proofToken } = expectRefused(await codeLogin(t, user.phone, transport, code), transport, 401, 'SECOND_PROOF_REQUIRED');
    expectRefused(await secondProof(t, { proofToken, password: 'not-the-password-1' }, transport), transport, 401, 'INVALID_CREDENTIALS');
    expectRefused(await secondProof(t, { proofToken, password: GOOD_PASSWORD }, transport), transport, 403, 'ACCOUNT_BLOCKED');
  });

  it('takes exactly one proof, naming the fields otherwise, and checks their shape', async () => {
    const token = 'a'.repeat(43);
    const none = expectRefused(await secondProof(t, { proofToken: token }, transport), transport, 400, 'VALIDATION_FAILED');
    expect(Object.keys(none.fields).sort()).toEqual(['password', 'recoveryCode', 'totp']);
    const two = expectRefused(await secondProof(t, { proofToken: token, password: GOOD_PASSWORD, totp: '123456' }, transport), transport, 400, 'VALIDATION_FAILED');
    expect(Object.keys(two.fields).sort()).toEqual(['password', 'totp']);
    expect(two.fields.totp).toMatch(/exactly one of password, totp, recoveryCode/);
    const shape = expectRefused(await secondProof(t, { proofToken: token, totp: 'abcdef' }, transport), transport, 400, 'VALIDATION_FAILED');
    expect(shape.fields).toEqual({ totp: 'must be six digits' });
    const recovery = expectRefused(await secondProof(t, { proofToken: token, recoveryCode: '123456' }, transport), transport, 400, 'VALIDATION_FAILED');
    expect(Object.keys(recovery.fields)).toEqual(['recoveryCode']);
  });
});

describe('second-proof over REST only', () => {
  it('requires the proofToken, as a string', async () => {
    const missing = await t.http.post('/api/v1/auth/second-proof', { password: GOOD_PASSWORD });
    expect({ status: missing.status, code: missing.body.code, fields: missing.body.fields }).toEqual({ status: 400, code: 'VALIDATION_FAILED', fields: { proofToken: 'is required' } });
    const number = await t.http.post('/api/v1/auth/second-proof', { proofToken: 42, password: GOOD_PASSWORD });
    expect(number.body.fields).toEqual({ proofToken: 'must be a string' });
  });
});
