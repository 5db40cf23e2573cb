// Shared helpers of the second-factor suite (not a test file): TOTP codes of chosen time steps,
// enrolment, and sign-ins that stop at MFA_REQUIRED.
import { expect } from '@jest/globals';
import { Secret, TOTP } from 'otpauth';
import { GOOD_PASSWORD, registerUser, requestCode, type Session } from '../helpers/factories.js';
import type { TestServer } from '../helpers/server.js';
import { sleep } from '../helpers/wait.js';

export const MFA = '/api/v1/users/me/mfa';
export const TOTP_PATH = '/api/v1/users/me/mfa/totp';
export const CONFIRM = '/api/v1/users/me/mfa/totp/confirm';
export const RECOVERY_CODES = '/api/v1/users/me/mfa/recovery-codes';
export const VERIFY = '/api/v1/auth/mfa/verify';
const LOGIN_PASSWORD = '/api/v1/auth/login-password';

/** Several codes per phone within one test. */
export const SERVER_ENV = { SEND_CODE_INTERVAL_SECONDS: '0' };

const STEP_MS = 30_000;

/** The time step of `at` (RFC 6238, 30 s). */
const stepOf = (at: number) => Math.floor(at / STEP_MS);

/** The code of `secret` (base32) for time step `step`. */
export function codeAt(secret: string, step: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: step * STEP_MS });
}

/**
 * The current time step, once at least `leftMs` of it remain (waiting for the next one otherwise),
 * so that the codes a test computes for "this step", "the one before" and "the one after" keep
 * meaning that while the server judges them.
 */
export async function steadyStep(leftMs = 8_000): Promise<number> {
  const into = Date.now() % STEP_MS;
  if (into > STEP_MS - leftMs) await sleep(STEP_MS - into + 200);
  return stepOf(Date.now());
}

export interface Enrolled extends Session {
  secret: string;
  recoveryCodes: string[];
  /** The step whose code confirmed the enrolment (used: refused from now on). */
  confirmedStep: number;
}

/**
 * A password account with TOTP on, confirmed with the code of the step before `step`, so that the
 * codes of `step` and `step + 1` are still unused.
 */
export async function enrolledUser(t: TestServer, step: number, session?: Session): Promise<Enrolled> {
  const user = session ?? (await registerUser(t));
  const started = await t.http.post(TOTP_PATH, undefined, { token: user.accessToken });
  expect(started.status).toBe(200);
  const confirmed = await t.http.post(CONFIRM, { code: codeAt(started.body.secret, step - 1) }, { token: user.accessToken });
  expect(confirmed.status).toBe(200);
  return { ...user, secret: started.body.secret, recoveryCodes: confirmed.body.recoveryCodes, confirmedStep: step - 1 };
}

/** login-password of an account with TOTP on: asserts MFA_REQUIRED and returns its mfaToken. */
export async function mfaTokenByPassword(t: TestServer, phone: string, password = GOOD_PASSWORD): Promise<string> {
  const res = await t.http.post(LOGIN_PASSWORD, { phone, password });
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'MFA_REQUIRED' });
  return res.body.mfaToken;
}

/** login by SMS code of an account with TOTP on: asserts MFA_REQUIRED and returns its mfaToken. */
export async function mfaTokenByCode(t: TestServer, phone: string): Promise<string> {
  const code = await requestCode(t, phone, 'login');
  const res = await t.http.post('/api/v1/auth/login', { phone, code });
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'MFA_REQUIRED' });
  return res.body.mfaToken;
}

/** The types of the account's security events, oldest first. */
export async function eventTypes(t: TestServer, userId: string): Promise<string[]> {
  const rows = await t.sql<{ type: string }>('select type from security_events where user_id = $1 order by id', [userId]);
  return rows.map((r) => r.type);
}
