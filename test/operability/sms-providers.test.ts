// Issue 7, part 1: the Twilio-compatible and webhook SMS providers against a fake provider on
// 127.0.0.1. One POST per code with a deadline and no retry; a failure is 502 SMS_DELIVERY_FAILED,
// and gives the phone's allowance back only when the SMS surely did not go out.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { ISO_UTC } from '../helpers/assertions.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';
import { waitFor } from '../helpers/wait.js';
import { codeIn, FakeSmsServer, timed, type CapturedRequest } from './support.js';

const TIMEOUT_MS = 300;
const SID = 'AC0123456789abcdef0123456789abcdef';
const AUTH_TOKEN = 'twilio-auth-token-for-tests';
const FROM = '+15005550006';
const WEBHOOK_SECRET = 'webhook-secret-that-is-at-least-32-characters';

const COMMON = {
  SMS_TIMEOUT_MS: String(TIMEOUT_MS),
  // Two per hour: three failed sends followed by a good one only pass if failures are given back.
  SEND_CODE_PER_PHONE_HOURLY: '2',
  SEND_CODE_PER_IP_HOURLY: '1000',
};

const twilio = new FakeSmsServer();
const webhook = new FakeSmsServer();
beforeAll(() => Promise.all([twilio.up(), webhook.up()]));
// Servers declared to provoke faults of the service: most tests here make their provider fail, and
// each failed delivery is logged at error level, as it should be.
const tTwilio = useTestServer(
  () => ({ ...COMMON, SMS_PROVIDER: 'twilio', TWILIO_BASE_URL: twilio.url, TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_FROM: FROM }),
  { expectFaults: true },
);
const tWebhook = useTestServer(
  () => ({ ...COMMON, SMS_PROVIDER: 'webhook', SMS_WEBHOOK_URL: `${webhook.url}/hooks/sms?tenant=meetings`, SMS_WEBHOOK_SECRET: WEBHOOK_SECRET }),
  { expectFaults: true },
);
afterAll(async () => {
  await twilio.down();
  await webhook.down();
});
beforeEach(() => {
  twilio.clear();
  webhook.clear();
});

const SEND_CODE_GQL = 'mutation($p: String!) { sendCode(input: { phone: $p }) { expiresIn resendAfter } }';

/** Checks a Twilio Messages API request; returns the code it carries. */
function twilioCode(request: CapturedRequest, e164: string): string {
  expect(request.method).toBe('POST');
  expect(request.url).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
  expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')}`);
  expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  const form = new URLSearchParams(request.body);
  expect([...form.keys()].sort()).toEqual(['Body', 'From', 'To']);
  expect(form.get('To')).toBe(e164);
  expect(form.get('From')).toBe(FROM);
  return codeIn(form.get('Body')!);
}

/** Checks a webhook request and its signature; returns the code it carries. */
function webhookCode(request: CapturedRequest, e164: string, purpose = 'login'): string {
  expect(request.method).toBe('POST');
  expect(request.url).toBe('/hooks/sms?tenant=meetings');
  expect(request.headers['content-type']).toMatch(/^application\/json/);
  const timestamp = String(request.headers['x-signature-timestamp']);
  expect(timestamp).toMatch(/^\d+$/);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
  const expected = Buffer.from(`sha256=${createHmac('sha256', WEBHOOK_SECRET).update(`${timestamp}.${request.body}`).digest('hex')}`);
  const signature = Buffer.from(String(request.headers['x-signature']));
  expect(signature.length === expected.length && timingSafeEqual(signature, expected)).toBe(true);
  const body = JSON.parse(request.body);
  expect(Object.keys(body).sort()).toEqual(['code', 'locale', 'phone', 'purpose', 'sentAt', 'text']);
  // A +86 number of a request with no Accept-Language: its region's language.
  expect(body).toMatchObject({ phone: e164, purpose, locale: e164.startsWith('+86') ? 'zh-CN' : 'en' });
  expect(body.code).toMatch(/^\d{6}$/);
  expect(body.text).toContain(body.code);
  expect(body.sentAt).toMatch(ISO_UTC);
  expect(Math.abs(Date.parse(body.sentAt) - Date.now())).toBeLessThan(60_000);
  return body.code;
}

interface ProviderCase {
  name: string;
  fake: FakeSmsServer;
  t: () => TestServer;
  codeOf: (request: CapturedRequest, e164: string) => string;
}

const CASES: ProviderCase[] = [
  { name: 'twilio', fake: twilio, t: () => tTwilio, codeOf: twilioCode },
  { name: 'webhook', fake: webhook, t: () => tWebhook, codeOf: webhookCode },
];

type Failure = 'error' | 'hang' | 'reset' | 'refused';

/** Puts the fake provider into a failing state; returns how to bring it back. */
async function fail(fake: FakeSmsServer, failure: Failure): Promise<() => Promise<void>> {
  if (failure === 'refused') {
    await fake.down();
    return () => fake.up();
  }
  fake.mode = failure;
  return async () => {
    fake.mode = 'ok';
  };
}

describe.each(CASES)('$name provider', ({ name, fake, t, codeOf }) => {
  it('sends one request carrying the code, and that code signs the user in', async () => {
    const phone = newPhone();
    // National form in, E.164 out to the provider.
    const sent = await t().http.post('/api/v1/auth/send-code', { phone: phone.slice(3), purpose: 'login' });
    expect({ status: sent.status, body: sent.body }).toEqual({ status: 200, body: { expiresIn: 300, resendAfter: 60 } });
    expect(fake.requests).toHaveLength(1);
    const code = codeOf(fake.requests[0]!, phone);

    const login = await t().http.post('/api/v1/auth/login', { phone, code });
    expect(login.status).toBe(200);
    expect(login.body.isNewUser).toBe(true);
    expect(login.body.user.phone).toBe(phone);
  });

  it.each<{ failure: Failure; what: string }>([
    { failure: 'error', what: 'answers 500' },
    { failure: 'refused', what: 'refuses the connection' },
  ])(
    `answers 502 SMS_DELIVERY_FAILED after one attempt when the ${name} provider $what, and gives the allowance back`,
    async ({ failure }) => {
      const phone = newPhone();
      const restore = await fail(fake, failure);
      for (let attempt = 1; attempt <= 3; attempt++) {
        const { result, ms } = await timed(() => t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }));
        expectProblem(result, 502, 'SMS_DELIVERY_FAILED');
        expect(ms).toBeLessThan(2_000);
      }
      // No retry is what is tested. The provider is back first, so that a late retry would reach it and
      // be counted (a refused one could not be): watch for one for longer than a deadline, ending early if it comes.
      await restore();
      const attempts = () => fake.resets + fake.requests.length;
      const expected = failure === 'refused' ? 0 : 3;
      expect(await waitFor(() => attempts() > expected, TIMEOUT_MS + 200, 20)).toBe(false);
      expect(attempts()).toBe(expected);

      fake.requests.length = 0;
      // Three failures, a limit of two per hour: the allowance was given back each time.
      const sent = await t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' });
      expect(sent.status).toBe(200);
      expect(fake.requests).toHaveLength(1);
      const login = await t().http.post('/api/v1/auth/login', { phone, code: codeOf(fake.requests[0]!, phone) });
      expect(login.status).toBe(200);
      // A delivered code does count: the resend interval now applies.
      expectRateLimited(await t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }), 60);
      expect(fake.requests).toHaveLength(1);
    },
  );

  it.each<{ failure: Failure; what: string }>([
    { failure: 'hang', what: `does not answer within SMS_TIMEOUT_MS (${TIMEOUT_MS} ms)` },
    { failure: 'reset', what: 'drops the connection' },
  ])(
    `answers 502 SMS_DELIVERY_FAILED after one attempt when the ${name} provider $what, and counts the send (it may have gone out)`,
    async ({ failure }) => {
      const phone = newPhone();
      const restore = await fail(fake, failure);
      const { result, ms } = await timed(() => t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }));
      expectProblem(result, 502, 'SMS_DELIVERY_FAILED');
      expect(ms).toBeLessThan(2_000);
      if (failure === 'hang') expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      await restore();
      // No retry: watch for one for longer than a deadline, ending early if it comes.
      const attempts = () => fake.resets + fake.requests.length;
      expect(await waitFor(() => attempts() > 1, TIMEOUT_MS + 200, 20)).toBe(false);
      expect(attempts()).toBe(1);
      // The send counted: the resend interval applies, and nothing more reaches the provider.
      expectRateLimited(await t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }), 60);
      expect(attempts()).toBe(1);
    },
  );

  it('answers the GraphQL sendCode mutation with SMS_DELIVERY_FAILED and a request id when delivery fails', async () => {
    const phone = newPhone();
    const restore = await fail(fake, 'error');
    const res = await t().http.post('/graphql', { query: SEND_CODE_GQL, variables: { p: phone } });
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'SMS_DELIVERY_FAILED', requestId: res.headers.get('x-request-id') });
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|boom|\bat\s|node_modules/);
    expect(fake.requests).toHaveLength(1);

    await restore();
    const ok = await t().http.post('/graphql', { query: SEND_CODE_GQL, variables: { p: phone } });
    expect(ok.body).toEqual({ data: { sendCode: { expiresIn: 300, resendAfter: 60 } } });
    expect(fake.requests).toHaveLength(2);
    const code = codeOf(fake.requests[1]!, phone);
    const login = await t().http.post('/graphql', {
      query: 'mutation($i: CodeLoginInput!) { login(input: $i) { isNewUser user { phone } } }',
      variables: { i: { phone, code } },
    });
    expect(login.body).toEqual({ data: { login: { isNewUser: true, user: { phone } } } });
  });
});

describe('webhook provider', () => {
  it('names the purpose in the signed body (register)', async () => {
    const phone = newPhone();
    const sent = await tWebhook.http.post('/api/v1/auth/send-code', { phone, purpose: 'register' });
    expect(sent.status).toBe(200);
    expect(webhook.requests).toHaveLength(1);
    const code = webhookCode(webhook.requests[0]!, phone, 'register');
    const registered = await tWebhook.http.post('/api/v1/auth/register', { phone, code, password: 'violet-harbor-42' });
    expect(registered.status).toBe(201);
  });
});
