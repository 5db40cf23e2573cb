// The signed-in user's second factors: enrolment, status, recovery codes and switching TOTP off, on
// both transports.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import {
  ConfirmTotpDocument,
  DisableTotpDocument,
  MyMfaDocument,
  RegenerateRecoveryCodesDocument,
  StartTotpEnrollmentDocument,
} from '../generated/graphql.js';
import { dataOf, errorOf } from '../graphql/support.js';
import { registerUser, signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { expectAccessWorks, expectNoContent, expectSessionEnded, passwordLogin } from '../self-service/support.js';
import { codeAt, CONFIRM, enrolledUser, eventTypes, MFA, mfaTokenByPassword, RECOVERY_CODES, SERVER_ENV, steadyStep, TOTP_PATH, VERIFY } from './support.js';

const t = useTestServer(SERVER_ENV);

describe('TOTP enrolment', () => {
  it('starts with a secret, its otpauth URI and a QR code, then confirms with a code and returns 10 recovery codes (REST)', async () => {
    const step = await steadyStep();
    const user = await registerUser(t);
    expect((await t.http.get(MFA, { token: user.accessToken })).body).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 });
    const started = await t.http.post(TOTP_PATH, undefined, { token: user.accessToken });
    expect(started.status).toBe(200);
    expect(Object.keys(started.body).sort()).toEqual(['otpauthUri', 'qrCodeSvg', 'secret']);
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(started.body.otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(started.body.secret);
    expect(uri.searchParams.get('issuer')).toBe('Meeting');
    expect(Object.fromEntries(['algorithm', 'digits', 'period'].map((k) => [k, uri.searchParams.get(k)]))).toEqual({ algorithm: 'SHA1', digits: '6', period: '30' });
    expect(decodeURIComponent(uri.pathname)).toContain(user.phone);
    expect(started.body.qrCodeSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    // Pending: not on yet.
    expect((await t.http.get(MFA, { token: user.accessToken })).body.totp).toBe(false);

    const confirmed = await t.http.post(CONFIRM, { code: codeAt(started.body.secret, step) }, { token: user.accessToken });
    expect(confirmed.status).toBe(200);
    expect(Object.keys(confirmed.body)).toEqual(['recoveryCodes']);
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10);
    for (const code of confirmed.body.recoveryCodes) expect(code).toMatch(/^[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}$/);
    expect((await t.http.get(MFA, { token: user.accessToken })).body).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 0 });
    expect(await eventTypes(t, user.userId)).toEqual(['SIGN_IN', 'MFA_ENABLED']);
    // Stored hashed: no recovery code appears in the table.
    const stored = JSON.stringify(await t.sql('select * from recovery_codes where user_id = $1', [user.userId]));
    for (const code of confirmed.body.recoveryCodes) expect(stored).not.toContain(code.replace('-', ''));
  });

  it('does the same over GraphQL: startTotpEnrollment, confirmTotp, myMfa', async () => {
    const step = await steadyStep();
    const user = await signInWithCode(t);
    const options = { token: user.accessToken };
    expect(dataOf(await t.http.gql(MyMfaDocument, {}, options)).myMfa).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 });
    const started = dataOf(await t.http.gql(StartTotpEnrollmentDocument, {}, options)).startTotpEnrollment;
    expect(started.otpauthUri).toContain(`secret=${started.secret}`);
    errorOf(await t.http.gql(ConfirmTotpDocument, { code: codeAt(started.secret, step + 3) }, options), 'INVALID_CODE');
    const codes = dataOf(await t.http.gql(ConfirmTotpDocument, { code: codeAt(started.secret, step) }, options)).confirmTotp;
    expect(codes).toHaveLength(10);
    expect(dataOf(await t.http.gql(MyMfaDocument, {}, options)).myMfa).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 0 });
    errorOf(await t.http.gql(StartTotpEnrollmentDocument, {}, options), 'MFA_ALREADY_ENABLED');
    errorOf(await t.http.gql(ConfirmTotpDocument, { code: codeAt(started.secret, step + 1) }, options), 'MFA_ALREADY_ENABLED');
  });

  it('replaces a pending secret with a new start: only the new one confirms', async () => {
    const step = await steadyStep();
    const user = await registerUser(t);
    const first = await t.http.post(TOTP_PATH, undefined, { token: user.accessToken });
    const second = await t.http.post(TOTP_PATH, undefined, { token: user.accessToken });
    expect(second.body.secret).not.toBe(first.body.secret);
    expectProblem(await t.http.post(CONFIRM, { code: codeAt(first.body.secret, step) }, { token: user.accessToken }), 400, 'INVALID_CODE');
    expect((await t.http.post(CONFIRM, { code: codeAt(second.body.secret, step) }, { token: user.accessToken })).status).toBe(200);
  });

  it('answers MFA_ALREADY_ENABLED to a start or a confirm once TOTP is on, and NOT_FOUND to a confirm with nothing pending', async () => {
    const step = await steadyStep();
    const fresh = await registerUser(t);
    expectProblem(await t.http.post(CONFIRM, { code: '123456' }, { token: fresh.accessToken }), 404, 'NOT_FOUND');
    errorOf(await t.http.gql(ConfirmTotpDocument, { code: '123456' }, { token: fresh.accessToken }), 'NOT_FOUND');
    const user = await enrolledUser(t, step);
    expectProblem(await t.http.post(TOTP_PATH, undefined, { token: user.accessToken }), 409, 'MFA_ALREADY_ENABLED');
    expectProblem(await t.http.post(CONFIRM, { code: codeAt(user.secret, step) }, { token: user.accessToken }), 409, 'MFA_ALREADY_ENABLED');
    // The refused start left the factor as it was.
    expect((await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: codeAt(user.secret, step) })).status).toBe(200);
  });
});

describe('switching TOTP off', () => {
  it('takes a TOTP code, ends every other session but the current one, removes the recovery codes and records it', async () => {
    const step = await steadyStep();
    const user = await registerUser(t);
    const other = await passwordLogin(t, user.phone);
    const enrolled = await enrolledUser(t, step, user);
    expectProblem(await t.http.request('DELETE', TOTP_PATH, { body: { code: codeAt(enrolled.secret, step + 3) }, token: user.accessToken }), 400, 'INVALID_CODE');
    await expectAccessWorks(t, other);
    expectNoContent(await t.http.request('DELETE', TOTP_PATH, { body: { code: codeAt(enrolled.secret, step) }, token: user.accessToken }));
    await expectSessionEnded(t, other);
    await expectAccessWorks(t, user);
    expect((await t.http.get(MFA, { token: user.accessToken })).body).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 });
    expect(await t.sql('select * from recovery_codes where user_id = $1', [user.userId])).toEqual([]);
    expect(await eventTypes(t, user.userId)).toEqual(['SIGN_IN', 'SIGN_IN', 'MFA_ENABLED', 'MFA_DISABLED']);
    // Sign-in needs one factor again.
    expect((await passwordLogin(t, user.phone)).accessToken).toBeTruthy();
    expectProblem(await t.http.request('DELETE', TOTP_PATH, { body: { code: codeAt(enrolled.secret, step + 1) }, token: user.accessToken }), 404, 'NOT_FOUND');
  });

  it('takes a recovery code over GraphQL, recorded as used', async () => {
    const user = await enrolledUser(t, await steadyStep());
    const other = await passwordLogin(t, user.phone).catch(() => undefined);
    expect(other).toBeUndefined(); // TOTP on: a password alone signs in no more
    expect(dataOf(await t.http.gql(DisableTotpDocument, { code: user.recoveryCodes[3]!.toUpperCase() }, { token: user.accessToken })).disableTotp).toBe(true);
    expect(dataOf(await t.http.gql(MyMfaDocument, {}, { token: user.accessToken })).myMfa.totp).toBe(false);
    expect(await eventTypes(t, user.userId)).toEqual(['SIGN_IN', 'MFA_ENABLED', 'RECOVERY_CODE_USED', 'MFA_DISABLED']);
    errorOf(await t.http.gql(DisableTotpDocument, { code: user.recoveryCodes[4]! }, { token: user.accessToken }), 'NOT_FOUND');
  });
});

describe('regenerating recovery codes', () => {
  it('returns a new set with a TOTP code; the old codes stop working (REST)', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const res = await t.http.post(RECOVERY_CODES, { code: codeAt(user.secret, step) }, { token: user.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.recoveryCodes).toHaveLength(10);
    expect(res.body.recoveryCodes).not.toContain(user.recoveryCodes[0]);
    expectProblem(await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: user.recoveryCodes[0] }), 400, 'INVALID_CODE');
    expect((await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: res.body.recoveryCodes[0] })).status).toBe(200);
    // The TOTP code spent here is spent for sign-in too.
    expectProblem(await t.http.post(VERIFY, { mfaToken: await mfaTokenByPassword(t, user.phone), code: codeAt(user.secret, step) }), 400, 'INVALID_CODE');
  });

  it('takes a recovery code over GraphQL, and refuses a wrong one', async () => {
    const user = await enrolledUser(t, await steadyStep());
    errorOf(await t.http.gql(RegenerateRecoveryCodesDocument, { code: 'aaaaa-aaaaa' }, { token: user.accessToken }), 'INVALID_CODE');
    const codes = dataOf(await t.http.gql(RegenerateRecoveryCodesDocument, { code: user.recoveryCodes[0]! }, { token: user.accessToken })).regenerateRecoveryCodes;
    expect(codes).toHaveLength(10);
    expect(dataOf(await t.http.gql(MyMfaDocument, {}, { token: user.accessToken })).myMfa.recoveryCodesLeft).toBe(10);
    errorOf(await t.http.gql(RegenerateRecoveryCodesDocument, { code: user.recoveryCodes[1]! }, { token: user.accessToken }), 'INVALID_CODE');
  });

  it('answers NOT_FOUND while TOTP is off', async () => {
    const user = await registerUser(t);
    expectProblem(await t.http.post(RECOVERY_CODES, { code: '123456' }, { token: user.accessToken }), 404, 'NOT_FOUND');
  });
});

describe('the second-factor routes', () => {
  it('answer UNAUTHENTICATED without a valid token, on both transports', async () => {
    for (const [method, path, body] of [
      ['GET', MFA, undefined],
      ['POST', TOTP_PATH, undefined],
      ['POST', CONFIRM, { code: '123456' }],
      ['DELETE', TOTP_PATH, { code: '123456' }],
      ['POST', RECOVERY_CODES, { code: '123456' }],
    ] as const) {
      expectProblem(await t.http.request(method, path, { body }), 401, 'UNAUTHENTICATED');
      expectProblem(await t.http.request(method, path, { body, token: 'not-a-token' }), 401, 'UNAUTHENTICATED');
    }
    errorOf(await t.http.gql(MyMfaDocument, {}), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(StartTotpEnrollmentDocument, {}), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(ConfirmTotpDocument, { code: '123456' }), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(DisableTotpDocument, { code: '123456' }), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(RegenerateRecoveryCodesDocument, { code: '123456' }), 'UNAUTHENTICATED');
  });

  it("refuse a blocked account's live token (UNAUTHENTICATED) on both transports, and change nothing", async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'test' where id = $1`, [user.userId]);
    const code = codeAt(user.secret, step);
    const token = user.accessToken;
    for (const [method, path, body] of [
      ['GET', MFA, undefined],
      ['POST', TOTP_PATH, undefined],
      ['POST', CONFIRM, { code }],
      ['DELETE', TOTP_PATH, { code }],
      ['POST', RECOVERY_CODES, { code }],
    ] as const) {
      expectProblem(await t.http.request(method, path, { body, token }), 401, 'UNAUTHENTICATED');
    }
    errorOf(await t.http.gql(MyMfaDocument, {}, { token }), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(StartTotpEnrollmentDocument, {}, { token }), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(ConfirmTotpDocument, { code }, { token }), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(DisableTotpDocument, { code }, { token }), 'UNAUTHENTICATED');
    errorOf(await t.http.gql(RegenerateRecoveryCodesDocument, { code }, { token }), 'UNAUTHENTICATED');
    // TOTP is still on, its step unspent, the recovery codes the same.
    const [factor] = await t.sql<{ confirmed: boolean; last_used_step: string }>(
      'select confirmed_at is not null as confirmed, last_used_step from totp_factors where user_id = $1',
      [user.userId],
    );
    expect({ confirmed: factor!.confirmed, lastUsedStep: Number(factor!.last_used_step) }).toEqual({ confirmed: true, lastUsedStep: user.confirmedStep });
    expect(await t.sql('select count(*)::int as n from recovery_codes where user_id = $1 and used_at is null', [user.userId])).toEqual([{ n: 10 }]);
  });

  it('answer VALIDATION_FAILED to a missing, wrongly typed or over-long code', async () => {
    const user = await enrolledUser(t, await steadyStep());
    for (const [method, path] of [
      ['POST', CONFIRM],
      ['DELETE', TOTP_PATH],
      ['POST', RECOVERY_CODES],
    ] as const) {
      for (const body of [{}, { code: 123456 }, { code: null }, { code: ['123456'] }, { code: '1'.repeat(33) }]) {
        const problem = expectProblem(await t.http.request(method, path, { body, token: user.accessToken }), 400, 'VALIDATION_FAILED');
        expect(Object.keys(problem.fields)).toEqual(['code']);
      }
    }
    const long = { code: '1'.repeat(33) };
    errorOf(await t.http.gql(ConfirmTotpDocument, long, { token: user.accessToken }), 'VALIDATION_FAILED');
    errorOf(await t.http.gql(DisableTotpDocument, long, { token: user.accessToken }), 'VALIDATION_FAILED');
    errorOf(await t.http.gql(RegenerateRecoveryCodesDocument, long, { token: user.accessToken }), 'VALIDATION_FAILED');
    const untyped = await t.http.post('/graphql', { query: 'mutation { disableTotp(code: 123456) }' }, { token: user.accessToken });
    expect(untyped.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});

describe('TOTP secrets at rest', () => {
  it('are stored neither in clear nor in base32, and open only with the key and for the account they belong to', async () => {
    const { SecretBox } = await import('../../src/modules/mfa/secret-box.js');
    const { TEST_MFA_ENCRYPTION_KEY } = await import('../helpers/server.js');
    const user = await enrolledUser(t, await steadyStep());
    const other = await registerUser(t);
    const [row] = await t.sql<{ secret_sealed: string }>('select secret_sealed from totp_factors where user_id = $1', [user.userId]);
    const bytes = Secret.fromBase32(user.secret).bytes;
    const dump = JSON.stringify(row);
    expect(dump).not.toContain(user.secret);
    expect(dump).not.toContain(Buffer.from(bytes).toString('hex'));
    expect(dump).not.toContain(Buffer.from(bytes).toString('base64'));
    expect(row!.secret_sealed).toMatch(/^v1\.[\w-]+$/);

    const key = Buffer.from(TEST_MFA_ENCRYPTION_KEY, 'hex');
    expect(Buffer.from(new SecretBox(key).open(row!.secret_sealed, user.userId)!)).toEqual(Buffer.from(bytes));
    // The row alone, with any other key, or moved to another account: nothing.
    expect(new SecretBox(Buffer.alloc(32, 7)).open(row!.secret_sealed, user.userId)).toBeUndefined();
    expect(new SecretBox(key).open(row!.secret_sealed, other.userId)).toBeUndefined();
  });

  it('are sealed, outside production and without MFA_ENCRYPTION_KEY, by a key generated once into DATA_DIR/mfa-key (0600)', async () => {
    const { mfaEncryptionKey } = await import('../../src/shared/tokens/secrets.js');
    const dir = mkdtempSync(join(tmpdir(), 'mfa-key-'));
    try {
      const key = mfaEncryptionKey(undefined, dir);
      expect(key).toHaveLength(32);
      expect(statSync(join(dir, 'mfa-key')).mode & 0o777).toBe(0o600);
      expect(mfaEncryptionKey(undefined, dir)).toEqual(key);
      expect(mfaEncryptionKey('ab'.repeat(32), dir)).toEqual(Buffer.alloc(32, 0xab));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The service cannot tell a row copied in SQL from a changed key: either is a fault to look into.
  const faulty = useTestServer(SERVER_ENV, { expectFaults: true });

  it('does not let a row copied to another account pass: a fault (500), never a signed-in session', async () => {
    const user = await enrolledUser(faulty, await steadyStep());
    const other = await registerUser(faulty);
    const [row] = await faulty.sql<{ secret_sealed: string }>('select secret_sealed from totp_factors where user_id = $1', [user.userId]);
    await faulty.sql(`insert into totp_factors (user_id, secret_sealed, confirmed_at) values ($1, $2, now())`, [other.userId, row!.secret_sealed]);
    const token = await mfaTokenByPassword(faulty, other.phone);
    const res = await faulty.http.post(VERIFY, { mfaToken: token, code: new TOTP({ secret: user.secret }).generate() });
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('INTERNAL');
  });
});
