import { describe, expect, it } from '@jest/globals';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  LoginDocument,
  LoginWithPasswordDocument,
  LogoutDocument,
  MeDocument,
  RefreshTokenDocument,
  RegisterDocument,
  SendCodeDocument,
} from '../generated/graphql.js';
import { GOOD_PASSWORD } from '../helpers/factories.js';
import type { GraphQLResponse, HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { dataOf, errorOf, expectNothingInternal, gqlCode, gqlLogin } from './support.js';

// Apollo would include stack traces by default in development (useTestServer starts it with
// process.env.NODE_ENV=development too); the service must turn them off itself.
const t = useTestServer({ NODE_ENV: 'development' });

const CLIENT_ERRORS = [
  'VALIDATION_FAILED',
  'INVALID_PHONE',
  'WEAK_PASSWORD',
  'INVALID_CODE',
  'INVALID_CREDENTIALS',
  'UNAUTHENTICATED',
  'REGISTRATION_DISABLED',
  'PHONE_ALREADY_REGISTERED',
  'RATE_LIMITED',
];

/** Values a hostile or buggy client might send where a string is expected. */
const HOSTILE: unknown[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b\u0000c\u0000d',
  "' or 1=1; drop table users; --",
  '\ud800\udfff\ud800',
  '‮+8613800138000',
  '１３８００１３８０００',
  '😀'.repeat(8),
  'x'.repeat(16),
  'x'.repeat(5000),
  123456,
  -1,
  1e308,
  true,
  null,
  [],
  ['+8613800138000'],
  { phone: '+8613800138000' },
];

/** Either a success (libphonenumber is lenient: full-width digits are a phone) or one client error. */
function expectHandled(res: HttpResult<GraphQLResponse<unknown>>, label: string) {
  expect({ label, serverError: res.status >= 500 }).toEqual({ label, serverError: false });
  const codes = (res.body.errors ?? []).map((e) => e.extensions?.code);
  if (codes.length === 0) expect({ label, data: res.body.data != null }).toEqual({ label, data: true });
  else expect({ label, codes: codes.length === 1 && CLIENT_ERRORS.includes(codes[0] ?? '') }).toEqual({ label, codes: true });
  expectNothingInternal(res);
}

async function sweep<V>(document: TypedDocumentNode<unknown, V>, name: string, make: (value: unknown) => V) {
  for (const value of HOSTILE) {
    expectHandled(await t.http.gql(document, make(value)), `${name} with ${JSON.stringify(value)?.slice(0, 40)}`);
  }
}

describe('bad input never yields INTERNAL or a stack trace', () => {
  it('in sendCode', async () => {
    await sweep(SendCodeDocument, 'phone', (phone) => ({ input: { phone } }) as any);
    await sweep(SendCodeDocument, 'purpose', (purpose) => ({ input: { phone: newPhone(), purpose } }) as any);
  });

  it('in login', async () => {
    await sweep(LoginDocument, 'phone', (phone) => ({ input: { phone, code: '123456' } }) as any);
    const phone = newPhone();
    await gqlCode(t, phone);
    await sweep(LoginDocument, 'code', (code) => ({ input: { phone, code } }) as any);
  });

  it('in loginWithPassword', async () => {
    await sweep(LoginWithPasswordDocument, 'phone', (phone) => ({ input: { phone, password: GOOD_PASSWORD } }) as any);
    await sweep(LoginWithPasswordDocument, 'password', (password) => ({ input: { phone: newPhone(), password } }) as any);
  });

  it('in register', async () => {
    const input = { phone: newPhone(), code: '123456', password: GOOD_PASSWORD };
    await sweep(RegisterDocument, 'phone', (phone) => ({ input: { ...input, phone } }) as any);
    await sweep(RegisterDocument, 'code', (code) => ({ input: { ...input, code } }) as any);
    await sweep(RegisterDocument, 'password', (password) => ({ input: { ...input, password } }) as any);
    await sweep(RegisterDocument, 'nickname', (nickname) => ({ input: { ...input, nickname } }) as any);
  });

  it('in refreshToken, logout and me', async () => {
    await sweep(RefreshTokenDocument, 'refreshToken', (refreshToken) => ({ refreshToken }) as any);
    const session = await gqlLogin(t);
    await sweep(LogoutDocument, 'allSessions', (allSessions) => ({ allSessions }) as any);
    for (const token of ['\u00e9t\u00e9', 'Bearer', 'a'.repeat(8000), 'e30.e30.', '..']) {
      errorOf(await t.http.gql(MeDocument, {}, { token }), 'UNAUTHENTICATED');
    }
    dataOf(await t.http.gql(MeDocument, {}, { token: session.accessToken }));
  });

  it('stores and returns hostile but valid nicknames verbatim', async () => {
    for (const nickname of ["Robert'); drop table users;--", '<script>alert(1)</script>', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢']) {
      const phone = newPhone();
      const code = await gqlCode(t, phone, 'REGISTER');
      const payload = dataOf(await t.http.gql(RegisterDocument, { input: { phone, code, password: GOOD_PASSWORD, nickname } }));
      const me = dataOf(await t.http.gql(MeDocument, {}, { token: payload.register.accessToken })).me;
      expect(me.nickname).toBe(payload.register.user.nickname);
      expect(me.nickname).toBe(nickname);
    }
  });

  it('refuses a nickname that is not valid Unicode (a lone surrogate) rather than store U+FFFD for it', async () => {
    const phone = newPhone();
    const code = await gqlCode(t, phone, 'REGISTER');
    const res = await t.http.gql(RegisterDocument, { input: { phone, code, password: GOOD_PASSWORD, nickname: '\ud800 lone' } });
    expect(errorOf(res, 'VALIDATION_FAILED').extensions?.fields).toEqual({ nickname: expect.stringContaining('unpaired surrogates') });
    // The code was not used: the registration goes through with a nickname that is text.
    dataOf(await t.http.gql(RegisterDocument, { input: { phone, code, password: GOOD_PASSWORD, nickname: 'lone' } }));
  });
});

describe('malformed GraphQL requests', () => {
  it('answers syntax errors, unknown fields and unknown operations with VALIDATION_FAILED', async () => {
    for (const body of [
      { query: '{ me ' },
      { query: '{ mee { id } }' },
      { query: 5 },
      { variables: {} },
      { query: '{ config { registrationEnabled } }', variables: [] },
      { query: '{ config { registrationEnabled } }', operationName: 'Nope' },
      { query: 'mutation { login(input: { phone: "+8613800138000" }) { accessToken } }' },
    ]) {
      const res = await t.http.post('/graphql', body);
      expect(res.status).toBe(400);
      errorOf(res, 'VALIDATION_FAILED');
    }
  });

  it('answers a body that is not JSON with VALIDATION_FAILED and an oversized body with PAYLOAD_TOO_LARGE', async () => {
    const notJson = await t.http.request('POST', '/graphql', { rawBody: '{"query":', headers: { 'content-type': 'application/json' } });
    expect({ status: notJson.status, code: notJson.body.code ?? notJson.body.errors?.[0]?.extensions?.code }).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    const big = await t.http.post('/graphql', { query: '{ config { registrationEnabled } }', variables: { x: 'a'.repeat(200_000) } });
    expect({ status: big.status, code: big.body.code ?? big.body.errors?.[0]?.extensions?.code }).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
    for (const res of [notJson, big]) expect(JSON.stringify(res.body)).not.toMatch(/\\n\s+at |node_modules/);
  });
});

describe('an unexpected failure', () => {
  // A server of its own, declared to provoke a fault of the service: its error-level log line is expected.
  const t = useTestServer({ NODE_ENV: 'development' }, { expectFaults: true });

  it('is INTERNAL with a request id and nothing else: no stack trace, no SQL, no cause', async () => {
    await t.sql('alter table users rename to users_gone');
    let res: HttpResult<GraphQLResponse<unknown>>;
    try {
      res = await t.http.gql(LoginWithPasswordDocument, { input: { phone: newPhone(), password: GOOD_PASSWORD } });
    } finally {
      await t.sql('alter table users_gone rename to users');
    }
    // A resolver's error, so GraphQL's HTTP 200 (README), with the code in extensions.
    expect({ status: res.status, codes: res.body.errors?.map((e) => e.extensions?.code) }).toEqual({ status: 200, codes: ['INTERNAL'] });
    const error = res.body.errors![0]!;
    expect(error.message).toBe('An unexpected error occurred; quote the request id when reporting it');
    expect(error.extensions).toEqual({ code: 'INTERNAL', requestId: res.headers.get('x-request-id') });
    expect(JSON.stringify(res.body)).not.toMatch(/users|relation|\\n\s+at |node_modules/);
  });
});
