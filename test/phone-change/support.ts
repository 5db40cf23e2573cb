// Shared helpers of the phone-change suites (not a test file): each step of a change over either
// transport, answered in one shape (see test/passkeys/support.ts), and what a test checks after.
import { expect } from '@jest/globals';
import {
  CancelPhoneChangeDocument,
  MyPhoneChangeDocument,
  SendCurrentPhoneCodeDocument,
  StartPhoneChangeDocument,
  VerifyNewPhoneDocument,
  VerifyPhoneChangeAccountDocument,
  WaitForPhoneChangeDocument,
} from '../generated/graphql.js';
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';

export type Transport = 'REST' | 'GraphQL';
export const TRANSPORTS: Transport[] = ['REST', 'GraphQL'];

const CHANGE = '/api/v1/users/me/phone-change';

/** Webhooks to a receiver that never answers, retried in an hour: the outbox keeps what was announced. */
export const WEBHOOKS = { WEBHOOK_URLS: 'http://127.0.0.1:9/hooks', WEBHOOK_SECRET: `whsec_${Buffer.from('a-test-signing-key-of-32-bytes!!').toString('base64')}`, WEBHOOK_RETRY_SCHEDULE: '1h' };

/** Several codes per phone within one test. */
export const SERVER_ENV = { SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_PHONE_HOURLY: '50', SEND_CODE_PER_PHONE_DAILY: '100', SEND_CODE_PER_IP_HOURLY: '1000' };

export interface Outcome {
  data?: any;
  code?: string;
  fields?: Record<string, string>;
  status: number;
}

function outcome(res: HttpResult, transport: Transport, field: string): Outcome {
  if (transport === 'REST') {
    if (res.status < 300) return { data: res.body, status: res.status };
    const problem = expectProblem(res, res.status, res.body?.code);
    return { code: problem.code, fields: problem.fields, status: res.status };
  }
  expect(res.status).toBeLessThan(500);
  const error = res.body.errors?.[0];
  if (error) {
    expect(res.body.errors).toHaveLength(1);
    return { code: error.extensions?.code, fields: error.extensions?.fields, status: res.status };
  }
  return { data: res.body.data[field], status: res.status };
}

/** The error code of an outcome, which must be a refusal. */
export function refusal(result: Outcome): string | undefined {
  expect(result.data).toBeUndefined();
  return result.code;
}

/** The data of an outcome, which must be an answer. */
export function accepted(result: Outcome): any {
  expect(result.code).toBeUndefined();
  return result.data;
}

const opts = (token?: string) => ({ token });

export async function start(t: TestServer, token: string | undefined, phone: unknown, transport: Transport): Promise<Outcome> {
  if (transport === 'REST') {
    const res = await t.http.post(CHANGE, { phone }, opts(token));
    if (res.status < 300) expect(res.status).toBe(201);
    return outcome(res, transport, '');
  }
  return outcome(await t.http.gql(StartPhoneChangeDocument, { phone: phone as string }, opts(token)), transport, 'startPhoneChange');
}

export async function verifyNew(t: TestServer, token: string | undefined, code: unknown, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${CHANGE}/verify-new`, { code }, opts(token)), transport, '')
    : outcome(await t.http.gql(VerifyNewPhoneDocument, { code: code as string }, opts(token)), transport, 'verifyNewPhone');
}

export async function sendCurrentCode(t: TestServer, token: string | undefined, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${CHANGE}/send-current-code`, undefined, opts(token)), transport, '')
    : outcome(await t.http.gql(SendCurrentPhoneCodeDocument, {}, opts(token)), transport, 'sendCurrentPhoneCode');
}

export type Proof = { code?: unknown; totp?: unknown; recoveryCode?: unknown };

export async function verifyAccount(t: TestServer, token: string | undefined, proof: Proof, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${CHANGE}/verify-account`, proof, opts(token)), transport, '')
    : outcome(await t.http.gql(VerifyPhoneChangeAccountDocument, proof as never, opts(token)), transport, 'verifyPhoneChangeAccount');
}

export async function wait(t: TestServer, token: string | undefined, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${CHANGE}/wait`, undefined, opts(token)), transport, '')
    : outcome(await t.http.gql(WaitForPhoneChangeDocument, {}, opts(token)), transport, 'waitForPhoneChange');
}

/** GET (200 or 404) / myPhoneChange (the change or null). */
export async function current(t: TestServer, token: string | undefined, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.get(CHANGE, opts(token)), transport, '')
    : outcome(await t.http.gql(MyPhoneChangeDocument, {}, opts(token)), transport, 'myPhoneChange');
}

/** DELETE (204) / cancelPhoneChange (true). */
export async function cancel(t: TestServer, token: string | undefined, transport: Transport): Promise<Outcome> {
  if (transport === 'REST') {
    const res = await t.http.request('DELETE', CHANGE, opts(token));
    if (res.status < 300) return { data: true, status: res.status };
    return outcome(res, transport, '');
  }
  return outcome(await t.http.gql(CancelPhoneChangeDocument, {}, opts(token)), transport, 'cancelPhoneChange');
}

/** The new phone proven: starts a change to `phone` and gives the code sent to it. */
export async function provenNewPhone(t: TestServer, token: string, phone: string, transport: Transport): Promise<any> {
  accepted(await start(t, token, phone, transport));
  return accepted(await verifyNew(t, token, await t.codeFor(phone, 'phone-change'), transport));
}

/** The account's phone number now. */
export async function phoneOf(t: TestServer, userId: string): Promise<string> {
  const [row] = await t.sql<{ phone: string }>('select phone from users where id = $1', [userId]);
  return row!.phone;
}

/** The types of the account's security events, oldest first. */
export async function eventTypes(t: TestServer, userId: string): Promise<string[]> {
  const rows = await t.sql<{ type: string }>('select type from security_events where user_id = $1 order by id', [userId]);
  return rows.map((r) => r.type);
}

/** The payloads of the `user.updated` webhooks queued for the account. */
export async function userUpdates(t: TestServer, userId: string): Promise<any[]> {
  const rows = await t.sql<{ payload: any }>(`select payload from webhook_deliveries where event_type = 'user.updated' and user_key = $1 order by seq`, [userId]);
  return rows.map((r) => r.payload);
}

/** The SMS sent to `phone` for `purpose`, oldest first. */
export async function messagesTo(t: TestServer, phone: string, purpose: string): Promise<{ text?: string; locale?: string }[]> {
  return (await t.outbox()).filter((m) => m.phone === phone && m.purpose === purpose) as { text?: string; locale?: string }[];
}
