// An SMS send that timed out, or whose connection was lost after the request went out, may have
// reached the phone: it answers 502 SMS_DELIVERY_FAILED but counts against every per-phone limit and
// the region's budget, and its code stays valid. Only a definite refusal (an error status, a refused
// connection) is given back. Against a fake Twilio and a fake webhook receiver, on both transports.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { errorOf, expectRetryAfter } from '../graphql/support.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { expectProblem, expectRateLimited, expectRetryLater } from '../rest/support.js';
import { codeIn, FakeSmsServer, type CapturedRequest } from '../operability/support.js';

const TIMEOUT_MS = 300;
const SID = 'AC0123456789abcdef0123456789abcdef';

const twilio = new FakeSmsServer();
const webhook = new FakeSmsServer();
beforeAll(() => Promise.all([twilio.up(), webhook.up()]));
afterAll(async () => {
  await twilio.down();
  await webhook.down();
});
beforeEach(() => {
  twilio.clear();
  webhook.clear();
});

const COMMON = { SMS_TIMEOUT_MS: String(TIMEOUT_MS), SEND_CODE_PER_IP_HOURLY: '1000' };
const twilioEnv = () => ({
  SMS_PROVIDER: 'twilio',
  TWILIO_BASE_URL: twilio.url,
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: 'twilio-auth-token-for-tests',
  TWILIO_FROM: '+15005550006',
});
const webhookEnv = () => ({
  SMS_PROVIDER: 'webhook',
  SMS_WEBHOOK_URL: `${webhook.url}/hooks/sms`,
  SMS_WEBHOOK_SECRET: 'webhook-secret-that-is-at-least-32-characters',
});

const twilioCode = (r: CapturedRequest) => codeIn(new URLSearchParams(r.body).get('Body')!);
const webhookCode = (r: CapturedRequest) => JSON.parse(r.body).code as string;

type Transport = 'REST' | 'GraphQL';
const SEND_GQL = 'mutation($p: String!) { sendCode(input: { phone: $p }) { expiresIn } }';

function send(t: TestServer, transport: Transport, phone: string): Promise<HttpResult> {
  return transport === 'REST'
    ? t.http.post('/api/v1/auth/send-code', { phone, purpose: 'login' })
    : t.http.post('/graphql', { query: SEND_GQL, variables: { p: phone } });
}

function expectFailed(res: HttpResult, transport: Transport, code: string): void {
  if (transport === 'REST') expectProblem(res, code === 'SMS_DELIVERY_FAILED' ? 502 : 429, code);
  else errorOf(res, code);
}

function expectResendLater(res: HttpResult, transport: Transport): void {
  if (transport === 'REST') expectRateLimited(res, 60);
  else expect(expectRetryAfter(res, 'RATE_LIMITED')).toBeLessThanOrEqual(60);
}

describe.each([
  { name: 'twilio', fake: twilio, env: twilioEnv, codeOf: twilioCode },
  { name: 'webhook', fake: webhook, env: webhookEnv, codeOf: webhookCode },
])('$name provider', ({ fake, env, codeOf }) => {
  const t = useTestServer(() => ({ ...COMMON, ...env() }), { expectFaults: true });

  it.each<{ transport: Transport; mode: 'hang' | 'reset' }>([
    { transport: 'REST', mode: 'hang' },
    { transport: 'GraphQL', mode: 'hang' },
    { transport: 'REST', mode: 'reset' },
    { transport: 'GraphQL', mode: 'reset' },
  ])('over $transport, a send that may have gone out ($mode) answers SMS_DELIVERY_FAILED and counts: the resend interval holds', async ({ transport, mode }) => {
    const phone = newPhone();
    fake.mode = mode;
    expectFailed(await send(t, transport, phone), transport, 'SMS_DELIVERY_FAILED');
    const attempts = () => fake.requests.length + fake.resets;
    expect(attempts()).toBe(1);
    // Before the change, each of these reached the provider again (20 SMS in 10 s to one phone).
    for (let i = 0; i < 3; i++) expectResendLater(await send(t, transport, phone), transport);
    fake.mode = 'ok';
    expectResendLater(await send(t, transport, phone), transport);
    expect(attempts()).toBe(1);
  });

  it('keeps the code of a send that timed out valid: the SMS may have arrived, and it signs in', async () => {
    const phone = newPhone();
    fake.mode = 'hang';
    expectProblem(await send(t, 'REST', phone), 502, 'SMS_DELIVERY_FAILED');
    expect(fake.requests).toHaveLength(1);
    const login = await t.http.post('/api/v1/auth/login', { phone, code: codeOf(fake.requests[0]!) });
    expect(login.status).toBe(200);
  });

  it('gives a definite refusal (an error status) back: the next send goes out at once', async () => {
    const phone = newPhone();
    fake.mode = 'error';
    expectProblem(await send(t, 'REST', phone), 502, 'SMS_DELIVERY_FAILED');
    fake.mode = 'ok';
    expect((await send(t, 'REST', phone)).status).toBe(200);
    expect(fake.requests).toHaveLength(2);
  });
});

describe('the hourly and daily limits of a phone count sends that timed out', () => {
  const t = useTestServer(() => ({ ...COMMON, ...webhookEnv(), SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_PHONE_HOURLY: '3' }), { expectFaults: true });

  it('refuses the fourth send of the hour after three timeouts, on both transports', async () => {
    for (const transport of ['REST', 'GraphQL'] as const) {
      const phone = newPhone();
      webhook.clear();
      webhook.mode = 'hang';
      for (let i = 0; i < 3; i++) expectFailed(await send(t, transport, phone), transport, 'SMS_DELIVERY_FAILED');
      webhook.mode = 'ok';
      const refused = await send(t, transport, phone);
      if (transport === 'REST') expectRateLimited(refused, 3600);
      else expect(expectRetryAfter(refused, 'RATE_LIMITED')).toBeLessThanOrEqual(3600);
      expect(webhook.requests).toHaveLength(3);
    }
  });
});

describe("the region's daily SMS budget counts sends that timed out", () => {
  const t = useTestServer(() => ({ ...COMMON, ...webhookEnv(), SMS_DAILY_BUDGET_PER_COUNTRY: 'CN=2' }), { expectFaults: true });

  it('is spent by two timeouts: the third send is 503 SERVICE_UNAVAILABLE, on both transports', async () => {
    webhook.mode = 'hang';
    expectProblem(await send(t, 'REST', newPhone()), 502, 'SMS_DELIVERY_FAILED');
    errorOf(await send(t, 'GraphQL', newPhone()), 'SMS_DELIVERY_FAILED');
    webhook.mode = 'ok';
    expectRetryLater(await send(t, 'REST', newPhone()), 503, 'SERVICE_UNAVAILABLE', 86400);
    expect(expectRetryAfter(await send(t, 'GraphQL', newPhone()), 'SERVICE_UNAVAILABLE')).toBeLessThanOrEqual(86400);
    expect(webhook.requests).toHaveLength(2);
  });

  it('is not spent by definite refusals (an error status, a refused connection)', async () => {
    webhook.mode = 'error';
    for (let i = 0; i < 3; i++) expectProblem(await send(t, 'REST', newPhone()), 502, 'SMS_DELIVERY_FAILED');
    await webhook.down();
    try {
      errorOf(await send(t, 'GraphQL', newPhone()), 'SMS_DELIVERY_FAILED');
    } finally {
      await webhook.up();
    }
    webhook.mode = 'ok';
    expect((await send(t, 'REST', newPhone())).status).toBe(200);
    expect((await send(t, 'GraphQL', newPhone())).body).toEqual({ data: { sendCode: { expiresIn: 300 } } });
  });
});
