// The language of each SMS (API.md 10.3): the account's `locale`, else the request's Accept-Language,
// else the phone's region (+86 -> zh-CN), else DEFAULT_LOCALE; over both transports, for sign-in
// codes, registration, and a phone change's codes and notices. And the account's `locale` itself:
// PATCH /users/me { locale }, updateProfile(input: { locale }), refused when it is not one of ours.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { MeDocument, SendCodeDocument, UpdateProfileDocument } from '../generated/graphql.js';
import { dataOf, errorOf } from '../graphql/support.js';
import { withRole } from '../admin/support.js';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { expectProblem } from '../rest/support.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { provenNewPhone, TRANSPORTS, wait } from '../phone-change/support.js';
import type { Transport } from '../helpers/assertions.js';

const LIMITS = { SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_IP_HOURLY: '100000', SMS_ALLOWED_COUNTRIES: 'CN,GB' };
const t = useTestServer(LIMITS);
const chinese = useTestServer({ ...LIMITS, DEFAULT_LOCALE: 'zh-CN' });
beforeEach(async () => {
  await t.reset();
  await chinese.reset();
});

let british = 0;
/** A unique British mobile number: a region whose language the service does not take from the number. */
const britishPhone = () => `+4474001${String(++british).padStart(5, '0')}`;

/** Asks a login code for `phone` over `transport`, with `acceptLanguage` when given; answers the SMS that went out. */
async function sendCode(server: TestServer, transport: Transport, phone: string, acceptLanguage?: string): Promise<{ locale: string; text: string; code: string }> {
  const headers: Record<string, string> = acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage };
  if (transport === 'REST') {
    expect((await server.http.post('/api/v1/auth/send-code', { phone }, { headers })).status).toBe(200);
  } else {
    dataOf(await server.http.gql(SendCodeDocument, { input: { phone } }, { headers }));
  }
  const sent = (await server.outbox()).filter((m) => m.phone === phone).at(-1);
  expect(sent).toBeDefined();
  return sent!;
}

/** Sets the account's locale over `transport`; answers the User. */
async function setLocale(transport: Transport, user: Session, locale: unknown): Promise<any> {
  if (transport === 'REST') {
    const res = await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { locale } });
    expect(res.status).toBe(200);
    return res.body;
  }
  return dataOf(await t.http.gql(UpdateProfileDocument, { input: { locale: locale as string | null } }, { token: user.accessToken })).updateProfile;
}

const ENGLISH_CODE = /^Your verification code is \d{6}\. It expires in 5 minutes\./;
const CHINESE_CODE = /^您的登录验证码是 \d{6}，5 分钟内有效。/;

describe.each(TRANSPORTS)('the language of an SMS, over %s', (transport) => {
  it("is the account's choice first, whatever the request's language and the phone's region", async () => {
    const user = await signInWithCode(t);
    expect(await setLocale(transport, user, 'en')).toMatchObject({ id: user.userId, locale: 'en' });
    const sent = await sendCode(t, transport, user.phone, 'zh-CN,zh;q=0.9');
    expect(sent.locale).toBe('en');
    expect(sent.text).toMatch(ENGLISH_CODE);
    // And the other way round: a British number whose account chose Chinese, asked for in English.
    const briton = await signInWithCode(t, britishPhone());
    await setLocale(transport, briton, 'zh-CN');
    const toBriton = await sendCode(t, transport, briton.phone, 'en-GB');
    expect(toBriton.locale).toBe('zh-CN');
    expect(toBriton.text).toMatch(CHINESE_CODE);
  });

  it("is the request's Accept-Language when the account chose none, or for a number without an account", async () => {
    const user = await signInWithCode(t);
    expect((await sendCode(t, transport, user.phone, 'en-US,en;q=0.9')).locale).toBe('en');
    expect((await sendCode(t, transport, newPhone(), 'en')).text).toMatch(ENGLISH_CODE);
    expect((await sendCode(t, transport, britishPhone(), 'zh-Hans-CN;q=0.9, fr;q=1')).locale).toBe('zh-CN');
  });

  it("is the phone's region when the request names none of ours: +86 is zh-CN", async () => {
    const phone = newPhone();
    const sent = await sendCode(t, transport, phone);
    expect(sent.locale).toBe('zh-CN');
    expect(sent.text).toMatch(CHINESE_CODE);
    expect((await sendCode(t, transport, phone, 'fr-FR, de;q=0.8')).locale).toBe('zh-CN');
  });

  it('is DEFAULT_LOCALE for a region without a language of ours and a request naming none', async () => {
    expect((await sendCode(t, transport, britishPhone())).locale).toBe('en');
    expect((await sendCode(t, transport, britishPhone(), 'fr')).locale).toBe('en');
    const sent = await sendCode(chinese, transport, britishPhone(), 'de');
    expect(sent.locale).toBe('zh-CN');
    expect(sent.text).toMatch(CHINESE_CODE);
  });

  it('forgets the choice with null: the request and the region decide again', async () => {
    const user = await signInWithCode(t);
    await setLocale(transport, user, 'en');
    expect(await setLocale(transport, user, null)).toMatchObject({ locale: null });
    expect((await sendCode(t, transport, user.phone)).locale).toBe('zh-CN');
  });
});

describe.each(TRANSPORTS)("a phone change's SMS, over %s", (transport) => {
  it("writes both codes and the notice in the account's language, not the region's", async () => {
    const user = await signInWithCode(t);
    await setLocale(transport, user, 'en');
    const target = newPhone();
    await provenNewPhone(t, user.accessToken, target, transport);
    const [toNew] = (await t.outbox()).filter((m) => m.phone === target);
    expect(toNew).toMatchObject({ purpose: 'phone-change', locale: 'en' });
    expect(toNew!.text).toMatch(/^Your code to make this number your account's phone number is \d{6}\./);
    await wait(t, user.accessToken, transport);
    const [notice] = (await t.outbox()).filter((m) => m.phone === user.phone && m.purpose === 'phone-change-notice');
    expect(notice).toMatchObject({ locale: 'en' });
    expect(notice!.text).toContain(`will be changed to a number ending in ${target.slice(-4)}`);
  });

  it("tells a change an operator asked for in the account's language, never in the operator's", async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await signInWithCode(t);
    const target = newPhone();
    const headers = { 'accept-language': 'en' };
    if (transport === 'REST') {
      const res = await t.http.post(`/api/v1/admin/users/${user.userId}/phone`, { phone: target, reason: 'lost SIM, ticket 4411' }, { token: admin.accessToken, headers });
      expect(res.status).toBe(201);
    } else {
      const query = 'mutation($id: ID!, $phone: String!, $reason: String!) { adminChangePhone(id: $id, phone: $phone, reason: $reason) { id } }';
      dataOf(await t.http.post('/graphql', { query, variables: { id: user.userId, phone: target, reason: 'lost SIM, ticket 4411' } }, { token: admin.accessToken, headers }));
    }
    const [notice] = (await t.outbox()).filter((m) => m.phone === user.phone && m.purpose === 'phone-change-notice');
    // The account chose nothing: the +86 region's language, though the operator's request asked for English.
    expect(notice).toMatchObject({ locale: 'zh-CN' });
    expect(notice!.text).toContain(`更换为尾号 ${target.slice(-4)} 的号码`);
  });
});

describe('the account locale', () => {
  it('is null until chosen, on both transports, and reads back as set', async () => {
    const user = await signInWithCode(t);
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).body.locale).toBeNull();
    expect(dataOf(await t.http.gql(MeDocument, {}, { token: user.accessToken })).me.locale).toBeNull();
    await setLocale('REST', user, 'zh-CN');
    expect(dataOf(await t.http.gql(MeDocument, {}, { token: user.accessToken })).me.locale).toBe('zh-CN');
    await setLocale('GraphQL', user, 'en');
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).body.locale).toBe('en');
  });

  it('leaves the nickname as it is when only the locale is given, and the locale when only the nickname is', async () => {
    const user = await signInWithCode(t);
    const before = (await t.http.get('/api/v1/users/me', { token: user.accessToken })).body.nickname;
    expect(await setLocale('REST', user, 'en')).toMatchObject({ nickname: before, locale: 'en' });
    const renamed = await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { nickname: 'Lin' } });
    expect(renamed.body).toMatchObject({ nickname: 'Lin', locale: 'en' });
    const both = dataOf(await t.http.gql(UpdateProfileDocument, { input: { nickname: 'Lin Wei', locale: 'zh-CN' } }, { token: user.accessToken })).updateProfile;
    expect(both).toMatchObject({ nickname: 'Lin Wei', locale: 'zh-CN' });
  });

  it.each(['fr', 'zh', 'zh-cn', 'EN', 'en-US', '', 42, true, ['en'], { locale: 'en' }])('refuses %j with 400 VALIDATION_FAILED naming locale, on both transports', async (locale) => {
    const user = await signInWithCode(t);
    const problem = expectProblem(await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { locale } }), 400, 'VALIDATION_FAILED');
    expect(problem.fields).toEqual({ locale: 'must be zh-CN, en or null' });
    const inChinese = await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { locale }, headers: { 'accept-language': 'zh-CN' } });
    expect(expectProblem(inChinese, 400, 'VALIDATION_FAILED').fields).toEqual({ locale: '必须是 zh-CN、en 或 null' });
    if (typeof locale === 'string') {
      const error = errorOf(await t.http.gql(UpdateProfileDocument, { input: { locale } }, { token: user.accessToken }), 'VALIDATION_FAILED');
      expect(error.extensions?.fields).toEqual({ locale: 'must be zh-CN, en or null' });
    }
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).body.locale).toBeNull();
  });

  it('refuses an update with neither nickname nor locale, naming nickname', async () => {
    const user = await signInWithCode(t);
    const problem = expectProblem(await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: {} }), 400, 'VALIDATION_FAILED');
    expect(problem.fields).toEqual({ nickname: 'is required unless locale is given' });
    const inChinese = await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: {}, headers: { 'accept-language': 'zh' } });
    expect(expectProblem(inChinese, 400, 'VALIDATION_FAILED').fields).toEqual({ nickname: '未提供 locale 时必填' });
    const error = errorOf(await t.http.gql(UpdateProfileDocument, { input: {} }, { token: user.accessToken }), 'VALIDATION_FAILED');
    expect(error.extensions?.fields).toEqual({ nickname: 'is required unless locale is given' });
  });

  it('records the change as PROFILE_CHANGED', async () => {
    const user = await signInWithCode(t);
    await setLocale('GraphQL', user, 'en');
    const events = await t.sql<{ type: string }>('select type from security_events where user_id = $1 order by at', [user.userId]);
    expect(events.map((e) => e.type)).toContain('PROFILE_CHANGED');
  });
});
