import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer, type TestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';

// API messages in the request's language (API.md 10.3): problem documents' `title` and `detail` with
// Content-Language on REST, GraphQL errors' `message`; the codes and every other member unchanged.

type Locale = 'en' | 'zh-CN';

/** Accept-Language headers and the locale each one gets; none, and a language the service does not write, get DEFAULT_LOCALE. */
const ASKS: [header: string | undefined, locale: Locale][] = [
  [undefined, 'en'],
  ['zh-CN', 'zh-CN'],
  ['zh', 'zh-CN'],
  ['zh-Hans-CN;q=0.9, en;q=0.8', 'zh-CN'],
  ['en-US', 'en'],
  ['fr', 'en'],
];

const TITLES: Record<string, Record<Locale, string>> = {
  VALIDATION_FAILED: { en: 'Validation failed', 'zh-CN': '请求参数有误' },
  INVALID_PHONE: { en: 'Invalid phone number', 'zh-CN': '手机号无效' },
  INVALID_CODE: { en: 'Invalid verification code', 'zh-CN': '验证码无效' },
  INVALID_CREDENTIALS: { en: 'Invalid credentials', 'zh-CN': '身份验证失败' },
  UNAUTHENTICATED: { en: 'Authentication required', 'zh-CN': '需要登录' },
  NOT_FOUND: { en: 'Not found', 'zh-CN': '资源不存在' },
  METHOD_NOT_ALLOWED: { en: 'Method not allowed', 'zh-CN': '不支持该请求方法' },
  PAYLOAD_TOO_LARGE: { en: 'Payload too large', 'zh-CN': '请求内容过大' },
  RATE_LIMITED: { en: 'Too many requests', 'zh-CN': '操作过于频繁' },
  FORBIDDEN: { en: 'Forbidden', 'zh-CN': '没有权限' },
  INTERNAL: { en: 'Internal server error', 'zh-CN': '服务器内部错误' },
};

interface Case {
  code: string;
  status: number;
  /** The answer to one request with these headers (a fresh phone or account each time). */
  send(t: TestServer, headers: Record<string, string>): Promise<HttpResult>;
  said: Record<Locale, string>;
  /** The `fields` entries, by locale, when the refusal names fields. */
  fields?: Record<Locale, Record<string, string>>;
}

/** The case of `code` (the first, for VALIDATION_FAILED). */
const one = (cases: Case[], code: string): Case => cases.find((c) => c.code === code)!;

const withLanguage = (header: string | undefined): Record<string, string> => (header === undefined ? {} : { 'accept-language': header });

const BIG = JSON.stringify({ phone: 'x'.repeat(200 * 1024) });

const REST: Case[] = [
  {
    code: 'VALIDATION_FAILED',
    status: 400,
    send: (t, headers) => t.http.post('/api/v1/auth/send-code', undefined, { headers: { ...headers, 'content-type': 'application/json' }, rawBody: '{"phone":' }),
    said: { en: 'The body is not valid JSON', 'zh-CN': '请求内容不是有效的 JSON' },
    fields: { en: { '(body)': 'must be valid JSON' }, 'zh-CN': { '(body)': '必须是有效的 JSON' } },
  },
  {
    code: 'VALIDATION_FAILED',
    status: 400,
    send: (t, headers) => t.http.post('/api/v1/auth/send-code', { purpose: 'login' }, { headers }),
    said: { en: 'The request has missing or invalid fields', 'zh-CN': '请求中有字段缺失或格式不正确' },
    fields: { en: { phone: 'is required' }, 'zh-CN': { phone: '必填' } },
  },
  {
    code: 'INVALID_PHONE',
    status: 400,
    send: (t, headers) => t.http.post('/api/v1/auth/send-code', { phone: '123' }, { headers }),
    said: { en: 'Not a valid mobile phone number', 'zh-CN': '手机号无效' },
    fields: {
      en: { phone: 'must be a mobile number in E.164 (+8613800138000) or national form' },
      'zh-CN': { phone: '须为 E.164 格式（如 +8613800138000）或本国格式的手机号' },
    },
  },
  {
    code: 'INVALID_CODE',
    status: 400,
    send: (t, headers) => t.http.post('/api/v1/auth/login', { phone: newPhone(), code: '000000' }, { headers }),
    said: { en: 'The code is wrong, expired or already used; request a new one', 'zh-CN': '验证码错误、已过期或已使用，请重新获取' },
  },
  {
    code: 'INVALID_CREDENTIALS',
    status: 401,
    send: (t, headers) => t.http.post('/api/v1/auth/login-password', { phone: newPhone(), password: GOOD_PASSWORD }, { headers }),
    said: { en: 'Phone number or password is wrong', 'zh-CN': '手机号或密码错误' },
  },
  {
    code: 'UNAUTHENTICATED',
    status: 401,
    send: (t, headers) => t.http.get('/api/v1/users/me', { headers }),
    said: { en: 'An access token is required', 'zh-CN': '请先登录（缺少访问令牌）' },
  },
  {
    code: 'NOT_FOUND',
    status: 404,
    send: (t, headers) => t.http.get('/api/v1/no-such-thing', { headers }),
    said: { en: 'No route for GET /api/v1/no-such-thing', 'zh-CN': '找不到 GET /api/v1/no-such-thing 对应的接口' },
  },
  {
    code: 'METHOD_NOT_ALLOWED',
    status: 405,
    send: (t, headers) => t.http.request('DELETE', '/api/v1/auth/send-code', { headers }),
    said: { en: 'DELETE is not served at /api/v1/auth/send-code; it serves POST', 'zh-CN': '/api/v1/auth/send-code 不支持 DELETE 请求，仅支持 POST' },
  },
  {
    code: 'PAYLOAD_TOO_LARGE',
    status: 413,
    send: (t, headers) => t.http.post('/api/v1/auth/send-code', undefined, { headers: { ...headers, 'content-type': 'application/json' }, rawBody: BIG }),
    said: { en: 'The body is larger than the limit', 'zh-CN': '请求内容超过大小上限' },
  },
  {
    code: 'RATE_LIMITED',
    status: 429,
    async send(t, headers) {
      const phone = newPhone();
      expect((await t.http.post('/api/v1/auth/send-code', { phone }, { headers })).status).toBe(200);
      return t.http.post('/api/v1/auth/send-code', { phone }, { headers });
    },
    said: { en: 'Too many codes requested for this phone number', 'zh-CN': '该手机号获取验证码过于频繁，请稍后再试' },
  },
  {
    code: 'FORBIDDEN',
    status: 403,
    async send(t, headers) {
      const { accessToken } = await registerUser(t);
      return t.http.get('/api/v1/admin/users', { headers, token: accessToken });
    },
    said: { en: 'This needs the SUPPORT role', 'zh-CN': '此操作需要 SUPPORT 角色' },
  },
];

/** A GraphQL request as a browser or Apollo Client sends it. */
const gql = (t: TestServer, headers: Record<string, string>, query: string, variables?: Record<string, unknown>, token?: string) =>
  t.http.request('POST', '/graphql', { headers, body: { query, variables }, token });

const GRAPHQL: Case[] = [
  {
    code: 'VALIDATION_FAILED',
    status: 400,
    send: (t, headers) => gql(t, headers, '{ noSuchField }'),
    said: { en: 'Cannot query field "noSuchField" on type "Query".', 'zh-CN': '请求不符合 GraphQL 接口定义：Cannot query field "noSuchField" on type "Query".' },
  },
  {
    code: 'VALIDATION_FAILED',
    status: 400,
    send: (t, headers) => gql(t, headers, 'mutation($input: SendCodeInput!) { sendCode(input: $input) { expiresIn } }', { input: {} }),
    said: {
      en: 'Variable "$input" got invalid value {}; Field "phone" of required type "String!" was not provided.',
      'zh-CN': '请求不符合 GraphQL 接口定义：Variable "$input" got invalid value {}; Field "phone" of required type "String!" was not provided.',
    },
    fields: { en: { phone: 'is required' }, 'zh-CN': { phone: '必填' } },
  },
  {
    code: 'VALIDATION_FAILED',
    status: 200,
    async send(t, headers) {
      const { accessToken } = await registerUser(t);
      return gql(t, headers, 'mutation($input: UpdateProfileInput!) { updateProfile(input: $input) { id } }', { input: { nickname: '   ' } }, accessToken);
    },
    said: { en: 'nickname must not be empty', 'zh-CN': '昵称不能为空' },
    fields: { en: { nickname: 'must not be empty' }, 'zh-CN': { nickname: '不能为空' } },
  },
  {
    code: 'INVALID_PHONE',
    status: 200,
    send: (t, headers) => gql(t, headers, 'mutation { sendCode(input: { phone: "123" }) { expiresIn } }'),
    said: one(REST, 'INVALID_PHONE').said,
    fields: one(REST, 'INVALID_PHONE').fields,
  },
  {
    code: 'INVALID_CODE',
    status: 200,
    send: (t, headers) => gql(t, headers, 'mutation($phone: String!) { login(input: { phone: $phone, code: "000000" }) { accessToken } }', { phone: newPhone() }),
    said: one(REST, 'INVALID_CODE').said,
  },
  {
    code: 'INVALID_CREDENTIALS',
    status: 200,
    send: (t, headers) => gql(t, headers, 'mutation($phone: String!) { loginWithPassword(input: { phone: $phone, password: "violet-harbor-42" }) { accessToken } }', { phone: newPhone() }),
    said: one(REST, 'INVALID_CREDENTIALS').said,
  },
  {
    code: 'UNAUTHENTICATED',
    status: 200,
    send: (t, headers) => gql(t, headers, '{ me { id } }'),
    said: one(REST, 'UNAUTHENTICATED').said,
  },
  {
    code: 'NOT_FOUND',
    status: 200,
    async send(t, headers) {
      const { accessToken } = await registerUser(t);
      return gql(t, headers, `mutation { revokeSession(id: "${randomUUID()}") }`, undefined, accessToken);
    },
    said: { en: 'No such session', 'zh-CN': '会话不存在' },
  },
  {
    code: 'METHOD_NOT_ALLOWED',
    status: 405,
    send: (t, headers) => t.http.request('PUT', '/graphql', { headers, body: { query: '{ me { id } }' } }),
    said: { en: 'PUT is not served at /graphql; it serves GET, POST', 'zh-CN': '/graphql 不支持 PUT 请求，仅支持 GET, POST' },
  },
  {
    code: 'PAYLOAD_TOO_LARGE',
    status: 413,
    send: (t, headers) => t.http.post('/graphql', undefined, { headers: { ...headers, 'content-type': 'application/json' }, rawBody: BIG }),
    said: one(REST, 'PAYLOAD_TOO_LARGE').said,
  },
  {
    code: 'RATE_LIMITED',
    status: 200,
    async send(t, headers) {
      const phone = newPhone();
      const send = () => gql(t, headers, 'mutation($phone: String!) { sendCode(input: { phone: $phone }) { expiresIn } }', { phone });
      expect((await send()).body.errors).toBeUndefined();
      return send();
    },
    said: one(REST, 'RATE_LIMITED').said,
  },
  {
    code: 'FORBIDDEN',
    status: 200,
    async send(t, headers) {
      const { accessToken } = await registerUser(t);
      return gql(t, headers, '{ adminUsers { pageInfo { hasNextPage } } }', undefined, accessToken);
    },
    said: one(REST, 'FORBIDDEN').said,
  },
];

/** What must be the same in every locale: everything but the words (and the request id, the retry delay's second). */
function invariant(members: Record<string, unknown>): Record<string, unknown> {
  const { title: _title, detail: _detail, requestId: _id, retryAfter, fields, ...rest } = members;
  return { ...rest, retryAfter: typeof retryAfter, fields: fields && Object.keys(fields as object).sort() };
}

function expectLanguage(res: HttpResult, locale: Locale): void {
  expect(res.headers.get('content-language')).toBe(locale);
  expect(res.headers.get('vary') ?? '').toMatch(/Accept-Language/i);
}

async function expectRest(t: TestServer, c: Case, asks = ASKS): Promise<void> {
  const seen: Record<string, unknown>[] = [];
  for (const [header, locale] of asks) {
    const res = await c.send(t, withLanguage(header));
    const body = expectProblem(res, c.status, c.code);
    expect({ header, title: body.title, detail: body.detail }).toEqual({ header, title: TITLES[c.code]![locale], detail: c.said[locale] });
    if (c.fields) expect({ header, fields: body.fields }).toEqual({ header, fields: c.fields[locale] });
    expectLanguage(res, locale);
    seen.push(invariant(body));
  }
  for (const members of seen) expect(members).toEqual(seen[0]);
}

async function expectGraphql(t: TestServer, c: Case, asks = ASKS): Promise<void> {
  const seen: Record<string, unknown>[] = [];
  for (const [header, locale] of asks) {
    const res = await c.send(t, withLanguage(header));
    expect({ header, status: res.status, count: res.body.errors?.length }).toEqual({ header, status: c.status, count: 1 });
    const [error] = res.body.errors as { message: string; extensions: Record<string, unknown> }[];
    expect({ header, code: error!.extensions.code, message: error!.message }).toEqual({ header, code: c.code, message: c.said[locale] });
    if (c.fields) expect({ header, fields: error!.extensions.fields }).toEqual({ header, fields: c.fields[locale] });
    expectLanguage(res, locale);
    const { message: _message, ...others } = error!;
    seen.push(invariant({ ...others, ...error!.extensions, extensions: Object.keys(error!.extensions).sort() }));
  }
  for (const members of seen) expect(members).toEqual(seen[0]);
}

describe('error messages follow Accept-Language', () => {
  const t = useTestServer({ SEND_CODE_PER_PHONE_HOURLY: '1', SEND_CODE_PER_IP_HOURLY: '1000' });

  describe('on REST: the title and detail of the problem document, with Content-Language', () => {
    for (const c of REST) it(`${c.code}`, () => expectRest(t, c));
  });

  describe('over GraphQL: each error message, with Content-Language on the answer', () => {
    for (const c of GRAPHQL) it(`${c.code}${c.status === 400 ? ' (a document that does not fit the schema)' : ''}`, () => expectGraphql(t, c));
  });

  it('leave a successful answer without Content-Language', async () => {
    const rest = await t.http.get('/api/v1/auth/config', { headers: { 'accept-language': 'zh-CN' } });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('content-language')).toBeNull();
    const graphql = await gql(t, { 'accept-language': 'zh-CN' }, '{ __typename }');
    expect(graphql.body).toEqual({ data: { __typename: 'Query' } });
    expect(graphql.headers.get('content-language')).toBeNull();
  });
});

describe('with DEFAULT_LOCALE=zh-CN', () => {
  const t = useTestServer({ DEFAULT_LOCALE: 'zh-CN' });
  const asks: [string | undefined, Locale][] = [
    [undefined, 'zh-CN'],
    ['fr', 'zh-CN'],
    ['en-US', 'en'],
    ['zh-TW', 'zh-CN'],
  ];

  it('an unspecified request is answered in Chinese, one asking for English in English, on REST', async () => {
    await expectRest(t, one(REST, 'UNAUTHENTICATED'), asks);
    await expectRest(t, one(REST, 'NOT_FOUND'), asks);
  });

  it('and over GraphQL', async () => {
    await expectGraphql(t, one(GRAPHQL, 'UNAUTHENTICATED'), asks);
    await expectGraphql(t, one(GRAPHQL, 'METHOD_NOT_ALLOWED'), asks);
  });
});

describe('INTERNAL', () => {
  // A server of its own, declared to provoke a fault of the service: its error-level log lines are expected.
  const t = useTestServer({}, { expectFaults: true });
  const said = { en: 'An unexpected error occurred; quote the request id when reporting it', 'zh-CN': '发生了意外错误，反馈问题时请提供请求 ID' };

  it('is its fixed sentence in the request\'s locale, on both transports', async () => {
    await t.sql('alter table users rename to users_gone');
    try {
      await expectRest(t, { code: 'INTERNAL', status: 500, send: one(REST, 'INVALID_CREDENTIALS').send, said });
      await expectGraphql(t, { code: 'INTERNAL', status: 200, send: one(GRAPHQL, 'INVALID_CREDENTIALS').send, said });
    } finally {
      await t.sql('alter table users_gone rename to users');
    }
  });
});
