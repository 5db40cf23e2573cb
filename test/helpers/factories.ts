import { newPhone, type TestServer } from './server.js';

export const GOOD_PASSWORD = 'violet-harbor-42';

export interface Session {
  phone: string;
  accessToken: string;
  refreshToken: string;
  userId: string;
  body: any;
}

/** Requests a code over REST and returns it, as a user reading their SMS would. */
export async function requestCode(t: TestServer, phone: string, purpose = 'login'): Promise<string> {
  const sent = await t.http.post('/api/v1/auth/send-code', { phone, purpose });
  if (sent.status !== 200) throw new Error(`send-code failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  return t.codeFor(phone, purpose);
}

/** A code-only account, signed in (REST login by code). */
export async function signInWithCode(t: TestServer, phone = newPhone()): Promise<Session> {
  const code = await requestCode(t, phone, 'login');
  const res = await t.http.post('/api/v1/auth/login', { phone, code });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return toSession(phone, res.body);
}

/** An account with a password, registered over REST. */
export async function registerUser(t: TestServer, phone = newPhone(), password = GOOD_PASSWORD, nickname?: string): Promise<Session> {
  const code = await requestCode(t, phone, 'register');
  const res = await t.http.post('/api/v1/auth/register', { phone, code, password, nickname });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return toSession(phone, res.body);
}

/** Lets the next send-code for any phone through without waiting for the resend interval (tested on its own). */
export async function clearRateLimits(t: TestServer): Promise<void> {
  await t.sql('delete from rate_limits');
}

function toSession(phone: string, body: any): Session {
  return { phone, accessToken: body.accessToken, refreshToken: body.refreshToken, userId: body.user.id, body };
}
