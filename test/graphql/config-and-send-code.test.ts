import { describe, expect, it } from '@jest/globals';
import { ConfigDocument, SendCodeDocument, type CodePurpose } from '../generated/graphql.js';
import { clearRateLimits, registerUser, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { dataOf, errorOf, expectRetryAfter, PURPOSE_NAME } from './support.js';

const t = useTestServer();

const sendCode = (phone: unknown, purpose?: unknown) =>
  t.http.gql(SendCodeDocument, { input: purpose === undefined ? { phone } : { phone, purpose } } as any);

describe('config query', () => {
  it('returns the public configuration with the contract defaults, as REST does', async () => {
    const { config } = dataOf(await t.http.gql(ConfigDocument, {}));
    expect(config.registrationEnabled).toBe(true);
    expect(config.auth).toEqual({
      codeLength: 6,
      codeTtlSeconds: 300,
      resendIntervalSeconds: 60,
      passwordMinLength: 8,
      passwordMaxBytes: 72,
      loginMethods: ['sms_code', 'password'],
    });
    expect(config.avatar).toEqual({ maxBytes: 5242880, acceptedTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] });
    for (const value of Object.values(config.about)) expect(typeof value).toBe('string');
    expect(config.about.appName.length).toBeGreaterThan(0);
    expect(Array.isArray(config.helpCenter.faqs)).toBe(true);

    const rest = await t.http.get('/api/v1/auth/config');
    expect(rest.status).toBe(200);
    expect(config).toEqual(rest.body);
  });

  it('needs no token, and ignores a bad one', async () => {
    const res = await t.http.gql(ConfigDocument, {}, { token: 'not.a.token' });
    expect(dataOf(res).config.registrationEnabled).toBe(true);
  });
});

describe('sendCode mutation', () => {
  it('sends a LOGIN code when purpose is omitted', async () => {
    const phone = newPhone();
    expect(dataOf(await sendCode(phone)).sendCode).toEqual({ expiresIn: 300, resendAfter: 60 });
    const outbox = await t.outbox();
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ phone, purpose: 'login' });
    expect(outbox[0]!.code).toMatch(/^\d{6}$/);
  });

  it('treats an explicit null purpose as LOGIN', async () => {
    const phone = newPhone();
    dataOf(await sendCode(phone, null));
    expect((await t.outbox()).map((m) => m.purpose)).toEqual(['login']);
  });

  it('accepts every CodePurpose value and sends the code for that purpose', async () => {
    const registered = await registerUser(t);
    const cases: [CodePurpose, string][] = [
      ['LOGIN', newPhone()],
      ['REGISTER', newPhone()],
      ['RESET_PASSWORD', registered.phone],
      ['DELETE_ACCOUNT', registered.phone],
    ];
    const before = (await t.outbox()).length;
    for (const [purpose, phone] of cases) {
      await clearRateLimits(t);
      expect(dataOf(await sendCode(phone, purpose)).sendCode).toEqual({ expiresIn: 300, resendAfter: 60 });
    }
    const sent = (await t.outbox()).slice(before);
    expect(sent.map((m) => [m.phone, m.purpose])).toEqual(cases.map(([purpose, phone]) => [phone, PURPOSE_NAME[purpose]]));
    for (const message of sent) expect(message.code).toMatch(/^\d{6}$/);
  });

  it('takes a national number and sends to its E.164 form', async () => {
    const phone = newPhone();
    dataOf(await sendCode(phone.slice(3), 'LOGIN'));
    expect((await t.outbox()).map((m) => m.phone)).toEqual([phone]);
  });

  it('answers RESET_PASSWORD for an unknown phone exactly as for a known one, and sends nothing', async () => {
    const known = await registerUser(t);
    await clearRateLimits(t);
    const before = (await t.outbox()).length;
    const forKnown = dataOf(await sendCode(known.phone, 'RESET_PASSWORD'));
    const forUnknown = dataOf(await sendCode(newPhone(), 'RESET_PASSWORD'));
    expect(forUnknown).toEqual(forKnown);
    const sent = (await t.outbox()).slice(before);
    expect(sent.map((m) => [m.phone, m.purpose])).toEqual([[known.phone, 'reset-password']]);
  });

  it.each(['12345', '+8612345', '+861012345678', 'not a phone', '', '+44 20 7946 0958'])('refuses %j with INVALID_PHONE', async (phone) => {
    const error = errorOf(await sendCode(phone, 'LOGIN'), 'INVALID_PHONE');
    // The number check's own answer, not the region rule's (which refuses with INVALID_PHONE too).
    expect(error.message).toBe('Not a valid mobile phone number');
    expect(Object.keys(error.extensions?.fields ?? {})).toEqual(['phone']);
    expect(await t.outbox()).toEqual([]);
  });

  it('refuses a missing, wrongly typed or over-long phone, or an unknown purpose, with VALIDATION_FAILED and the field', async () => {
    const missing = errorOf(await t.http.gql(SendCodeDocument, { input: {} } as any), 'VALIDATION_FAILED');
    expect(missing.extensions?.fields).toEqual({ phone: expect.any(String) });
    const typed = errorOf(await sendCode(8613800138000), 'VALIDATION_FAILED');
    expect(typed.extensions?.fields).toEqual({ phone: expect.any(String) });
    const long = errorOf(await sendCode(`+86${'1'.repeat(40)}`), 'VALIDATION_FAILED');
    expect(long.extensions?.fields).toEqual({ phone: expect.any(String) });
    const purpose = errorOf(await sendCode(newPhone(), 'SIGN_UP'), 'VALIDATION_FAILED');
    expect(purpose.extensions?.fields).toEqual({ purpose: expect.any(String) });
    const lowercase = errorOf(await sendCode(newPhone(), 'login'), 'VALIDATION_FAILED');
    expect(lowercase.extensions?.fields).toEqual({ purpose: expect.any(String) });
    expect(await t.outbox()).toEqual([]);
  });

  it('refuses REGISTER for a phone that has an account with PHONE_ALREADY_REGISTERED, code-only accounts too', async () => {
    const withPassword = await registerUser(t);
    const codeOnly = await signInWithCode(t);
    await clearRateLimits(t);
    const before = (await t.outbox()).length;
    errorOf(await sendCode(withPassword.phone, 'REGISTER'), 'PHONE_ALREADY_REGISTERED');
    errorOf(await sendCode(codeOnly.phone, 'REGISTER'), 'PHONE_ALREADY_REGISTERED');
    expect(await t.outbox()).toHaveLength(before);
  });

  it('limits a phone to one code per interval, whatever the purpose, with retryAfter and a Retry-After header', async () => {
    const phone = newPhone();
    dataOf(await sendCode(phone, 'LOGIN'));
    const again = expectRetryAfter(await sendCode(phone, 'LOGIN'));
    expect(again).toBeLessThanOrEqual(60);
    expectRetryAfter(await sendCode(phone, 'REGISTER'));
    expect(await t.outbox()).toHaveLength(1);
  });

  it('limits one client address to 20 codes an hour', async () => {
    for (let i = 0; i < 20; i++) dataOf(await sendCode(newPhone(), 'LOGIN'));
    const retryAfter = expectRetryAfter(await sendCode(newPhone(), 'LOGIN'));
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await t.outbox()).toHaveLength(20);
  });
});

// One extra server at a time: the embedded test database takes only two connections.
describe('GraphQL endpoint in development', () => {
  const dev = useTestServer({ NODE_ENV: 'development' });

  it('serves a landing page to a browser on GET /graphql', async () => {
    const res = await dev.http.get('/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<!DOCTYPE html>/i);
  });

  it('answers introspection, as in test', async () => {
    for (const server of [dev, t]) {
      const res = await server.http.post('/graphql', { query: '{ __schema { queryType { name } mutationType { name } } }' });
      expect(dataOf(res)).toEqual({ __schema: { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } } });
    }
    const type = await dev.http.post('/graphql', { query: '{ __type(name: "CodePurpose") { enumValues { name } } }' });
    const names = (dataOf<any>(type).__type.enumValues as { name: string }[]).map((v) => v.name).sort();
    expect(names).toEqual(['DELETE_ACCOUNT', 'LOGIN', 'REGISTER', 'RESET_PASSWORD']);
  });
});

describe('GraphQL endpoint in production', () => {
  const prod = useTestServer({ NODE_ENV: 'production' });

  it('refuses introspection with VALIDATION_FAILED', async () => {
    const res = await prod.http.post('/graphql', { query: '{ __schema { queryType { name } } }' });
    errorOf(res, 'VALIDATION_FAILED');
    expect(res.body.data ?? null).toBeNull();
  });
});
