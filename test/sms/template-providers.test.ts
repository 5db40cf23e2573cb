// Issue 41: SMS_PROVIDER=aliyun and SMS_PROVIDER=tencent, the real SDKs against local servers that
// speak each provider's API and verify the request signature (test/sms/fakes.ts). Every purpose goes
// out with its template and parameters, and its code works, over both transports; the providers'
// answers map onto the failure handling (502 SMS_DELIVERY_FAILED; the phone's allowance given back
// only when the SMS surely did not go out) and onto sms_provider_answers_total.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { GOOD_PASSWORD } from '../helpers/factories.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { scrape } from '../metrics/support.js';
import { runService, timed, within } from '../operability/support.js';
import { accepted, sendCurrentCode, start, TRANSPORTS, verifyAccount, verifyNew, wait, type Transport } from '../phone-change/support.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';
import { FakeAliyun, FakeTencent, type Delivery } from './fakes.js';

const TIMEOUT_MS = 400;
const PER_PHONE_HOURLY = 3;
const PURPOSES = ['login', 'register', 'reset-password', 'delete-account', 'phone-change', 'phone-change-current', 'phone-change-notice'] as const;
type Purpose = (typeof PURPOSES)[number];

// Each purpose its own template (a code template declares ${code}; the notice ${ending} and ${time});
// login also registered in English.
const ALIYUN_IDS: Record<Purpose, string> = Object.fromEntries(PURPOSES.map((p, i) => [p, `SMS_46580${i}`])) as Record<Purpose, string>;
const ALIYUN_LOGIN_EN = 'SMS_465899';
const TENCENT_IDS: Record<Purpose, string> = Object.fromEntries(PURPOSES.map((p, i) => [p, `180030${i}`])) as Record<Purpose, string>;
const TENCENT_LOGIN_EN = '1800399';

const aliyun = new FakeAliyun({
  accessKeyId: 'LTAI5tFakeAccessKeyId',
  accessKeySecret: 'aliyun-access-key-secret-of-the-fake',
  signName: '会议账号',
  templates: {
    ...Object.fromEntries(PURPOSES.map((p) => [ALIYUN_IDS[p], p === 'phone-change-notice' ? ['ending', 'time'] : ['code']])),
    [ALIYUN_LOGIN_EN]: ['code'],
  },
});
const tencent = new FakeTencent({
  secretId: 'AKIDFakeSecretIdOfTheTencentFake',
  secretKey: 'tencent-secret-key-of-the-fake',
  sdkAppId: '1400006666',
  signName: '会议账号',
  region: 'ap-guangzhou',
  templates: { ...Object.fromEntries(PURPOSES.map((p) => [TENCENT_IDS[p], p === 'phone-change-notice' ? 2 : 1])), [TENCENT_LOGIN_EN]: 1 },
});
beforeAll(() => Promise.all([aliyun.up(), tencent.up()]));
afterAll(async () => {
  await aliyun.down();
  await tencent.down();
});
beforeEach(() => {
  aliyun.clear();
  tencent.clear();
});

const COMMON = {
  SMS_TIMEOUT_MS: String(TIMEOUT_MS),
  // Several codes per phone within a test, none waiting for the resend interval; three an hour, so
  // that four failed sends followed by a good one only pass if the failures were given back.
  SEND_CODE_INTERVAL_SECONDS: '0',
  SEND_CODE_PER_PHONE_HOURLY: String(PER_PHONE_HOURLY),
  SEND_CODE_PER_IP_HOURLY: '1000',
  METRICS_PORT: '0',
  SMS_ALLOWED_COUNTRIES: 'CN,HK',
};

// Most tests here make the provider fail, and each failed send is logged at error level, as it should be.
const tAliyun = useTestServer(
  () => ({
    ...COMMON,
    SMS_PROVIDER: 'aliyun',
    ALIYUN_SMS_ENDPOINT: aliyun.url,
    ALIYUN_SMS_ACCESS_KEY_ID: aliyun.options.accessKeyId,
    ALIYUN_SMS_ACCESS_KEY_SECRET: aliyun.options.accessKeySecret,
    ALIYUN_SMS_SIGN_NAME: aliyun.options.signName,
    ALIYUN_SMS_TEMPLATES: JSON.stringify({ ...ALIYUN_IDS, login: { 'zh-CN': ALIYUN_IDS.login, en: ALIYUN_LOGIN_EN } }),
  }),
  { expectFaults: true, captureLogs: true },
);
const tTencent = useTestServer(
  () => ({
    ...COMMON,
    SMS_PROVIDER: 'tencent',
    TENCENT_SMS_ENDPOINT: tencent.url,
    TENCENT_SMS_SECRET_ID: tencent.options.secretId,
    TENCENT_SMS_SECRET_KEY: tencent.options.secretKey,
    TENCENT_SMS_SDK_APP_ID: tencent.options.sdkAppId,
    TENCENT_SMS_SIGN_NAME: tencent.options.signName,
    TENCENT_SMS_TEMPLATES: JSON.stringify({ ...TENCENT_IDS, login: { 'zh-CN': TENCENT_IDS.login, en: TENCENT_LOGIN_EN } }),
  }),
  { expectFaults: true, captureLogs: true },
);

interface FailureCase {
  code: string;
  outcome: string;
  /** Tencent Cloud: the code comes as the number's SendStatus of a 200 answer, not as the request's Error. */
  inStatus?: boolean;
}

interface ProviderCase {
  name: 'aliyun' | 'tencent';
  fake: FakeAliyun | FakeTencent;
  t: () => TestServer;
  ids: Record<Purpose, string>;
  loginEn: string;
  /** The number as the provider's API takes it. */
  wire: (e164: string) => string;
  /** The notice's parameters by name. */
  notice: (delivery: Delivery) => { ending: string; time: string };
  /** Makes the fake expect another secret than the service's (undone by the returned function). */
  otherSecret: () => () => void;
  signatureRefusal: string;
  wrongTemplate: string;
  missingParameter: string;
  /** Makes the fake's login template declare one more variable than the service sends. */
  moreVariables: () => () => void;
  failures: FailureCase[];
}

const CASES: ProviderCase[] = [
  {
    name: 'aliyun',
    fake: aliyun,
    t: () => tAliyun,
    ids: ALIYUN_IDS,
    loginEn: ALIYUN_LOGIN_EN,
    wire: (e164) => (e164.startsWith('+86') ? e164.slice(3) : e164.slice(1)),
    notice: (d) => d.params as { ending: string; time: string },
    otherSecret: () => {
      const saved = aliyun.options.accessKeySecret;
      aliyun.options.accessKeySecret = 'another-secret-than-the-services';
      return () => void (aliyun.options.accessKeySecret = saved);
    },
    signatureRefusal: 'SignatureDoesNotMatch',
    wrongTemplate: 'isv.SMS_TEMPLATE_ILLEGAL',
    missingParameter: 'isv.TEMPLATE_MISSING_PARAMETERS',
    moreVariables: () => {
      const saved = aliyun.options.templates[ALIYUN_IDS.login]!;
      aliyun.options.templates[ALIYUN_IDS.login] = ['code', 'product'];
      return () => void (aliyun.options.templates[ALIYUN_IDS.login] = saved);
    },
    failures: [
      { code: 'isv.MOBILE_NUMBER_ILLEGAL', outcome: 'rejected_number' },
      { code: 'isv.BUSINESS_LIMIT_CONTROL', outcome: 'throttled' },
      { code: 'Throttling.User', outcome: 'throttled' },
      { code: 'isv.AMOUNT_NOT_ENOUGH', outcome: 'out_of_balance' },
      { code: 'isv.SMS_SIGNATURE_ILLEGAL', outcome: 'misconfigured' },
      { code: 'isp.SYSTEM_ERROR', outcome: 'error' },
    ],
  },
  {
    name: 'tencent',
    fake: tencent,
    t: () => tTencent,
    ids: TENCENT_IDS,
    loginEn: TENCENT_LOGIN_EN,
    wire: (e164) => e164,
    notice: (d) => {
      const [ending, time] = d.params as string[];
      return { ending: ending!, time: time! };
    },
    otherSecret: () => {
      const saved = tencent.options.secretKey;
      tencent.options.secretKey = 'another-secret-than-the-services';
      return () => void (tencent.options.secretKey = saved);
    },
    signatureRefusal: 'AuthFailure.SignatureFailure',
    wrongTemplate: 'FailedOperation.TemplateIncorrectOrUnapproved',
    missingParameter: 'FailedOperation.TemplateParamSetNotMatchApprovedTemplate',
    moreVariables: () => {
      const saved = tencent.options.templates[TENCENT_IDS.login]!;
      tencent.options.templates[TENCENT_IDS.login] = 2;
      return () => void (tencent.options.templates[TENCENT_IDS.login] = saved);
    },
    failures: [
      { code: 'InvalidParameterValue.IncorrectPhoneNumber', outcome: 'rejected_number' },
      { code: 'UnsupportedOperation.ContainDomesticAndInternationalPhoneNumber', outcome: 'rejected_number' },
      { code: 'LimitExceeded.PhoneNumberDailyLimit', outcome: 'throttled', inStatus: true },
      { code: 'FailedOperation.InsufficientBalanceInSmsPackage', outcome: 'out_of_balance' },
      { code: 'FailedOperation.InsufficientBalanceInSmsPackage', outcome: 'out_of_balance', inStatus: true },
      { code: 'FailedOperation.SignatureIncorrectOrUnapproved', outcome: 'misconfigured' },
      { code: 'InternalError.Timeout', outcome: 'error' },
    ],
  },
];

const GQL_PURPOSE: Record<string, string> = { login: 'LOGIN', register: 'REGISTER', 'reset-password': 'RESET_PASSWORD', 'delete-account': 'DELETE_ACCOUNT' };

/** send-code over either transport; the refusal's code, or undefined when it was sent. */
async function sendCode(t: TestServer, phone: string, purpose: string, transport: Transport, headers: Record<string, string> = {}): Promise<string | undefined> {
  if (transport === 'REST') {
    const res = await t.http.post('/api/v1/auth/send-code', { phone, purpose }, { headers });
    if (res.status === 200) return undefined;
    return expectProblem(res, res.status, res.body?.code).code;
  }
  const res = await t.http.post(
    '/graphql',
    { query: 'mutation($i: SendCodeInput!) { sendCode(input: $i) { expiresIn } }', variables: { i: { phone, purpose: GQL_PURPOSE[purpose] } } },
    { headers },
  );
  return res.body.errors?.[0]?.extensions?.code;
}

async function gql(t: TestServer, query: string, variables: Record<string, unknown>, token?: string): Promise<any> {
  const res = await t.http.post('/graphql', { query, variables }, { token });
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

async function login(t: TestServer, phone: string, code: string, transport: Transport): Promise<string> {
  if (transport === 'REST') {
    const res = await t.http.post('/api/v1/auth/login', { phone, code });
    expect(res.status).toBe(200);
    return res.body.accessToken;
  }
  const data = await gql(t, 'mutation($i: CodeLoginInput!) { login(input: $i) { accessToken } }', { i: { phone, code } });
  return data.login.accessToken;
}

/** The one delivery the fake accepted since `before`, checked against the purpose's template. */
function delivered(c: ProviderCase, before: number, phone: string, purpose: Purpose): Delivery {
  const fresh = c.fake.deliveries.slice(before);
  expect(fresh).toHaveLength(1);
  const delivery = fresh[0]!;
  expect(delivery).toMatchObject({ phone: c.wire(phone), signName: '会议账号', template: c.ids[purpose] });
  if (purpose !== 'phone-change-notice') expect(c.fake.codeTo(c.wire(phone))).toMatch(/^\d{6}$/);
  return delivery;
}

async function metric(t: TestServer, provider: string, outcome: string): Promise<number> {
  return (await scrape(t)).value('sms_provider_answers_total', { provider, outcome });
}

describe.each(CASES)('SMS_PROVIDER=$name', (c) => {
  const { fake, t } = c;

  describe.each(TRANSPORTS)('every purpose over %s', (transport) => {
    it('sends login, register, reset-password and delete-account codes with their templates, and each code works', async () => {
      const sentBefore = await metric(t(), c.name, 'sent');
      // login
      const phone = newPhone();
      let before = fake.deliveries.length;
      expect(await sendCode(t(), phone, 'login', transport)).toBeUndefined();
      delivered(c, before, phone, 'login');
      const token = await login(t(), phone, fake.codeTo(c.wire(phone)), transport);

      // register, then reset-password on the new account
      const other = newPhone();
      before = fake.deliveries.length;
      expect(await sendCode(t(), other, 'register', transport)).toBeUndefined();
      delivered(c, before, other, 'register');
      if (transport === 'REST') {
        expect((await t().http.post('/api/v1/auth/register', { phone: other, code: fake.codeTo(c.wire(other)), password: GOOD_PASSWORD })).status).toBe(201);
      } else {
        await gql(t(), 'mutation($i: RegisterInput!) { register(input: $i) { user { phone } } }', { i: { phone: other, code: fake.codeTo(c.wire(other)), password: GOOD_PASSWORD } });
      }
      before = fake.deliveries.length;
      expect(await sendCode(t(), other, 'reset-password', transport)).toBeUndefined();
      delivered(c, before, other, 'reset-password');
      const newPassword = 'a-new-harbor-password-77';
      if (transport === 'REST') {
        expect((await t().http.post('/api/v1/auth/reset-password', { phone: other, code: fake.codeTo(c.wire(other)), newPassword })).status).toBe(204);
      } else {
        expect(await gql(t(), 'mutation($i: ResetPasswordInput!) { resetPassword(input: $i) }', { i: { phone: other, code: fake.codeTo(c.wire(other)), newPassword } })).toEqual({ resetPassword: true });
      }
      expect((await t().http.post('/api/v1/auth/login-password', { phone: other, password: newPassword })).status).toBe(200);

      // delete-account, by the first account
      before = fake.deliveries.length;
      expect(await sendCode(t(), phone, 'delete-account', transport)).toBeUndefined();
      delivered(c, before, phone, 'delete-account');
      if (transport === 'REST') {
        expect((await t().http.request('DELETE', '/api/v1/users/me', { token, body: { code: fake.codeTo(c.wire(phone)) } })).status).toBe(204);
      } else {
        expect(await gql(t(), 'mutation($c: String!) { deleteAccount(code: $c) }', { c: fake.codeTo(c.wire(phone)) }, token)).toEqual({ deleteAccount: true });
      }
      expect((await t().sql('select 1 from users where phone = $1', [phone])).length).toBe(0);
      expect(await metric(t(), c.name, 'sent')).toBe(sentBefore + 4);
    });

    it('sends the phone change\'s codes (new and current number) and the notice that it applied', async () => {
      const phone = newPhone();
      await sendCode(t(), phone, 'login', 'REST');
      const token = await login(t(), phone, fake.codeTo(c.wire(phone)), 'REST');
      const next = newPhone();

      let before = fake.deliveries.length;
      accepted(await start(t(), token, next, transport));
      delivered(c, before, next, 'phone-change');
      accepted(await verifyNew(t(), token, fake.codeTo(c.wire(next)), transport));

      before = fake.deliveries.length;
      accepted(await sendCurrentCode(t(), token, transport));
      delivered(c, before, phone, 'phone-change-current');
      before = fake.deliveries.length;
      const applied = Date.now();
      expect(accepted(await verifyAccount(t(), token, { code: fake.codeTo(c.wire(phone)) }, transport))).toMatchObject({ status: 'APPLIED' });
      // The notice of the change, to the old number: the new number's last 4 digits and when it applied (UTC).
      expect(await waitFor(() => fake.deliveries.length > before, 2_000, 20)).toBe(true);
      const { ending, time } = c.notice(delivered(c, before, phone, 'phone-change-notice'));
      expect(ending).toBe(next.slice(-4));
      expect(time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      expect(Math.abs(Date.parse(`${time.replace(' ', 'T')}:00Z`) - applied)).toBeLessThan(120_000);
    });

    it('sends the notice of a change that waits, with the UTC time it applies', async () => {
      const phone = newPhone();
      await sendCode(t(), phone, 'login', 'REST');
      const token = await login(t(), phone, fake.codeTo(c.wire(phone)), 'REST');
      const next = newPhone();
      accepted(await start(t(), token, next, transport));
      accepted(await verifyNew(t(), token, fake.codeTo(c.wire(next)), transport));
      const before = fake.deliveries.length;
      const waiting = accepted(await wait(t(), token, transport));
      expect(waiting.status).toBe('WAITING');
      const { ending, time } = c.notice(delivered(c, before, phone, 'phone-change-notice'));
      expect(ending).toBe(next.slice(-4));
      expect(time).toBe(new Date(waiting.appliesAt).toISOString().slice(0, 16).replace('T', ' '));
    });
  });

  it('sends the English template to a message whose locale is en, the Chinese one otherwise', async () => {
    const phone = newPhone();
    let before = fake.deliveries.length;
    expect(await sendCode(t(), phone, 'login', 'REST', { 'accept-language': 'en-US,en;q=0.9' })).toBeUndefined();
    expect(fake.deliveries.slice(before)).toMatchObject([{ template: c.loginEn }]);
    await login(t(), phone, fake.codeTo(c.wire(phone)), 'REST');

    // A +86 number, no Accept-Language: zh-CN (the phone's region).
    before = fake.deliveries.length;
    const other = newPhone();
    expect(await sendCode(t(), other, 'login', 'GraphQL')).toBeUndefined();
    expect(fake.deliveries.slice(before)).toMatchObject([{ template: c.ids.login }]);
    before = fake.deliveries.length;
    expect(await sendCode(t(), newPhone(), 'login', 'GraphQL', { 'accept-language': 'en' })).toBeUndefined();
    expect(fake.deliveries.slice(before)).toMatchObject([{ template: c.loginEn }]);
    // A purpose with one template for every locale uses it in English too.
    before = fake.deliveries.length;
    expect(await sendCode(t(), newPhone(), 'register', 'REST', { 'accept-language': 'en' })).toBeUndefined();
    expect(fake.deliveries.slice(before)).toMatchObject([{ template: c.ids.register }]);
  });

  it('sends a number outside the mainland with its country code, in the default locale (en) when the region has none', async () => {
    // A Hong Kong mobile number, one per provider (the two servers share the database).
    const phone = c.name === 'aliyun' ? '+85261234567' : '+85251234567';
    const before = fake.deliveries.length;
    expect(await sendCode(t(), phone, 'login', 'REST')).toBeUndefined();
    expect(fake.deliveries.slice(before)).toMatchObject([{ phone: c.name === 'aliyun' ? phone.slice(1) : phone, template: c.loginEn }]);
    await login(t(), phone, fake.codeTo(c.wire(phone)), 'REST');
  });

  it('is refused by the fake\'s signature check when the secrets differ: 502 SMS_DELIVERY_FAILED, counted as misconfigured', async () => {
    const before = await metric(t(), c.name, 'misconfigured');
    const restore = c.otherSecret();
    try {
      expectProblem(await t().http.post('/api/v1/auth/send-code', { phone: newPhone(), purpose: 'login' }), 502, 'SMS_DELIVERY_FAILED');
      expect(await sendCode(t(), newPhone(), 'login', 'GraphQL')).toBe('SMS_DELIVERY_FAILED');
    } finally {
      restore();
    }
    expect(fake.refusals).toEqual([c.signatureRefusal, c.signatureRefusal]);
    expect(fake.deliveries).toEqual([]);
    expect(await metric(t(), c.name, 'misconfigured')).toBe(before + 2);
    // With the right secret, it goes out.
    expect(await sendCode(t(), newPhone(), 'login', 'REST')).toBeUndefined();
    expect(fake.deliveries).toHaveLength(1);
  });

  it('is refused by the fake\'s signature check when a parameter changed on the way (the signature covers them)', async () => {
    // The code's first digit changed in the query string (Alibaba Cloud) or the JSON body (Tencent Cloud).
    fake.tamper = (url, body) => {
      const bump = (text: string) => text.replace(/(%22|")(\d)(\d{5})(%22|")/, (_, a: string, d: string, rest: string, b: string) => `${a}${(Number(d) + 1) % 10}${rest}${b}`);
      return c.name === 'aliyun' ? { url: bump(url), body } : { url, body: Buffer.from(bump(body.toString('utf8'))) };
    };
    expect(await sendCode(t(), newPhone(), 'login', 'REST')).toBe('SMS_DELIVERY_FAILED');
    expect(fake.refusals).toEqual([c.signatureRefusal]);
    expect(fake.deliveries).toEqual([]);
  });

  it('is refused by the fake when the template is not one it knows, or declares a variable the service does not send', async () => {
    const restoreTemplates = c.moreVariables();
    try {
      expect(await sendCode(t(), newPhone(), 'login', 'REST')).toBe('SMS_DELIVERY_FAILED');
    } finally {
      restoreTemplates();
    }
    const ids = c.ids as Record<string, string>;
    const saved = ids.login!;
    // The service's configured id stays; the fake no longer knows it.
    const templates = c.fake.options.templates as Record<string, unknown>;
    const declared = templates[saved];
    delete templates[saved];
    try {
      expect(await sendCode(t(), newPhone(), 'login', 'REST')).toBe('SMS_DELIVERY_FAILED');
    } finally {
      templates[saved] = declared;
    }
    expect(fake.refusals).toEqual([c.missingParameter, c.wrongTemplate]);
    expect(fake.deliveries).toEqual([]);
  });

  it.each(c.failures.map((f) => ({ ...f, where: f.inStatus ? 'the number\'s SendStatus' : 'the answer' })))(
    'answers 502 to $code in $where ($outcome), gives the allowance back and counts the outcome',
    async ({ code, outcome, inStatus }) => {
      const before = await metric(t(), c.name, outcome);
      const phone = newPhone();
      fake.failWith = code;
      if (fake instanceof FakeTencent) fake.failInStatus = inStatus === true;
      for (let attempt = 1; attempt <= PER_PHONE_HOURLY + 1; attempt++) {
        expectProblem(await t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }), 502, 'SMS_DELIVERY_FAILED');
      }
      expect(fake.requests).toBe(PER_PHONE_HOURLY + 1);
      expect(await metric(t(), c.name, outcome)).toBe(before + PER_PHONE_HOURLY + 1);
      // Four failures, three an hour: each was given back. The provider fixed, the code goes out and works.
      fake.failWith = undefined;
      expect(await sendCode(t(), phone, 'login', 'REST')).toBeUndefined();
      await login(t(), phone, fake.codeTo(c.wire(phone)), 'REST');
    },
  );

  it('answers 502 when nothing listens (unreachable) and gives the allowance back', async () => {
    const before = await metric(t(), c.name, 'unreachable');
    const phone = newPhone();
    await fake.down();
    try {
      for (let attempt = 1; attempt <= PER_PHONE_HOURLY + 1; attempt++) {
        const { result, ms } = await timed(() => t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }));
        expectProblem(result, 502, 'SMS_DELIVERY_FAILED');
        expect(ms).toBeLessThan(2_000);
      }
    } finally {
      await fake.up();
    }
    expect(await metric(t(), c.name, 'unreachable')).toBe(before + PER_PHONE_HOURLY + 1);
    expect(await sendCode(t(), phone, 'login', 'REST')).toBeUndefined();
    await login(t(), phone, fake.codeTo(c.wire(phone)), 'REST');
  });

  it.each([
    { mode: 'hang' as const, outcome: 'timeout', what: `no answer within SMS_TIMEOUT_MS (${TIMEOUT_MS} ms)` },
    { mode: 'reset' as const, outcome: 'connection_lost', what: 'the connection dropped after the request went out' },
  ])('answers 502 after one attempt to $what, and counts the send (it may have gone out)', async ({ mode, outcome }) => {
    const before = await metric(t(), c.name, outcome);
    const phone = newPhone();
    fake.mode = mode;
    const { result, ms } = await timed(() => t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }));
    expectProblem(result, 502, 'SMS_DELIVERY_FAILED');
    if (mode === 'hang') expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(ms).toBeLessThan(2 * TIMEOUT_MS + 1_000);
    fake.mode = 'ok';
    // No retry: watch for one for longer than a deadline.
    expect(await waitFor(() => fake.requests > 1, TIMEOUT_MS + 200, 20)).toBe(false);
    expect(fake.requests).toBe(1);
    expect(await metric(t(), c.name, outcome)).toBe(before + 1);
    // The send counted: two more of three, then the hourly limit.
    for (let n = 1; n < PER_PHONE_HOURLY; n++) expect(await sendCode(t(), phone, 'login', 'REST')).toBeUndefined();
    expectRateLimited(await t().http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }), 3600);
    expect(fake.deliveries).toHaveLength(PER_PHONE_HOURLY - 1);
  });

  it('logs a failure with the provider\'s code and request id, never the secret or the SMS code', async () => {
    const offset = t().logs().length;
    const { code } = c.failures[0]!;
    fake.failWith = code;
    const res = await t().http.post('/api/v1/auth/send-code', { phone: newPhone(), purpose: 'login' });
    expectProblem(res, 502, 'SMS_DELIVERY_FAILED');
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|isv\.|InvalidParameter|TemplateParam|secret/i);
    const logs = t().logs().slice(offset);
    const lines = logs.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const line = lines.find((l) => l.provider === c.name);
    expect(line).toMatchObject({ provider: c.name, providerCode: code, outcome: c.failures[0]!.outcome, purpose: 'login' });
    expect(line.requestId).toMatch(/^[0-9A-Fa-f-]{36}$/);
    // The code the fake was asked to send appears nowhere, nor the secret.
    expect(fake.attempted).toHaveLength(1);
    expect(fake.attempted[0]).toMatch(/\d{6}/);
    const sentCode = /\d{6}/.exec(fake.attempted[0]!)![0];
    expect(logs).not.toContain(sentCode);
    expect(logs).not.toContain('aliyun-access-key-secret-of-the-fake');
    expect(logs).not.toContain('tencent-secret-key-of-the-fake');
  });
});

describe('sms_provider_answers_total', () => {
  const withPromtool = existsSync('/usr/bin/promtool') || process.env.CI ? it : it.skip;
  withPromtool('is a well-formed counter (promtool check metrics) labelled by provider and outcome only', async () => {
    expect(await sendCode(tAliyun, newPhone(), 'login', 'REST')).toBeUndefined();
    const { text, series } = await scrape(tAliyun);
    expect(text).toMatch(/^# TYPE sms_provider_answers_total counter$/m);
    for (const labels of series('sms_provider_answers_total')) expect(Object.keys(labels).sort()).toEqual(['outcome', 'provider']);
    const run = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`.split('\n').filter((line) => line.includes('sms_provider'))).toEqual([]);
  });
});

describe('start-up with a template provider\'s configuration missing or malformed', () => {
  const aliyunEnv = {
    SMS_PROVIDER: 'aliyun',
    ALIYUN_SMS_ACCESS_KEY_ID: 'LTAI5tFakeAccessKeyId',
    ALIYUN_SMS_ACCESS_KEY_SECRET: 'a-secret',
    ALIYUN_SMS_SIGN_NAME: '会议账号',
  };
  const { 'phone-change-notice': _notice, ...withoutNotice } = ALIYUN_IDS;
  it.each<{ what: string; env: Record<string, string>; line: RegExp }>([
    { what: 'a purpose without template', env: { ...aliyunEnv, ALIYUN_SMS_TEMPLATES: JSON.stringify(withoutNotice) }, line: /^\s+- ALIYUN_SMS_TEMPLATES: no template for phone-change-notice$/m },
    { what: 'malformed JSON', env: { ...aliyunEnv, ALIYUN_SMS_TEMPLATES: '{login: SMS_1}' }, line: /^\s+- ALIYUN_SMS_TEMPLATES: is not valid JSON/m },
    { what: 'no templates and no sign name', env: { SMS_PROVIDER: 'tencent', TENCENT_SMS_SECRET_ID: 'AKID', TENCENT_SMS_SECRET_KEY: 'k', TENCENT_SMS_SDK_APP_ID: '1400006666' }, line: /^\s+- TENCENT_SMS_SIGN_NAME: required when SMS_PROVIDER=tencent\n\s+- TENCENT_SMS_TEMPLATES: required/m },
    { what: 'a locale missing', env: { SMS_PROVIDER: 'tencent', TENCENT_SMS_SECRET_ID: 'AKID', TENCENT_SMS_SECRET_KEY: 'k', TENCENT_SMS_SDK_APP_ID: '1400006666', TENCENT_SMS_SIGN_NAME: 's', TENCENT_SMS_TEMPLATES: JSON.stringify({ ...TENCENT_IDS, login: { en: '1' } }) }, line: /^\s+- TENCENT_SMS_TEMPLATES: login has no template for zh-CN/m },
  ])('exits 1 naming the variable ($what) and listens on nothing', async ({ env, line }) => {
    const proc = runService({ NODE_ENV: 'development', HOST: '127.0.0.1', PORT: '0', ...env });
    const exit = await within(proc.exited, 15_000);
    await proc.kill();
    expect(exit).toEqual({ code: 1, signal: null });
    expect(proc.stderr()).toMatch(/^Invalid configuration:/);
    expect(proc.stderr()).toMatch(line);
    expect(proc.stderr()).not.toMatch(/\bat\s+\S+:\d+|node_modules/);
    expect(proc.stdout()).not.toContain('listening');
  }, 20_000);
});
