// Secrets never reach the logs: passwords, SMS codes, access and refresh tokens, the JWT key, or a
// password hash, whatever the outcome of the request, on both transports, at the most verbose level.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { requestCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, TEST_JWT_SECRET, useTestServer } from '../helpers/server.js';
import { wrongCode } from '../helpers/assertions.js';

const PASSWORDS = {
  rest: 'amber-lantern-5831',
  graphql: 'cobalt-orchard-2716',
  wrong: 'wrong-guess-7731-xq',
  weak: 'Sh0rt!q',
  changed: 'teal-meadow-9902-zz',
  probe: 'quartz-falcon-6620',
};

const t = useTestServer({}, { captureLogs: true });

// What the current test handed out or guessed; the SMS codes come from the outbox.
let tokens: string[] = [];
let guessedCodes: string[] = [];
beforeEach(() => {
  tokens = [];
  guessedCodes = [];
});

/** Keeps every token an AuthPayload carries. */
function keep<T extends HttpResult>(res: T): T {
  const payload = res.body?.accessToken ? res.body : Object.values(res.body?.data ?? {})[0];
  if (payload && typeof payload === 'object' && 'accessToken' in payload) tokens.push(payload.accessToken, payload.refreshToken);
  return res;
}

const post = async (path: string, body: unknown, token?: string, server = t) => keep(await server.http.post(path, body, { token }));
const gql = async (query: string, variables: Record<string, unknown> = {}, token?: string, server = t) =>
  keep(await server.http.post('/graphql', { query, variables }, { token }));
const guess = (code: string) => {
  const wrong = wrongCode(code);
  guessedCodes.push(wrong);
  return wrong;
};

const REGISTER = 'mutation($i: RegisterInput!) { register(input: $i) { accessToken refreshToken } }';
const PASSWORD_LOGIN = 'mutation($i: PasswordLoginInput!) { loginWithPassword(input: $i) { accessToken refreshToken } }';
const CODE_LOGIN = 'mutation($i: CodeLoginInput!) { login(input: $i) { accessToken refreshToken } }';
const REFRESH = 'mutation($r: String!) { refreshToken(refreshToken: $r) { accessToken refreshToken } }';

/** Every password of PASSWORDS, code sent or guessed, token handed out, the JWT key and any bcrypt hash: none is in the logs. */
async function expectNoSecretsLogged(server = t): Promise<void> {
  const logs = server.logs();
  expect(logs.length).toBeGreaterThan(0);
  const codes = [...(await server.outbox()).map((m) => m.code), ...guessedCodes];
  expect(codes.length).toBeGreaterThanOrEqual(2);
  expect(tokens.length).toBeGreaterThanOrEqual(2);
  const leaks = [
    ...Object.entries(PASSWORDS).filter(([, password]) => logs.includes(password)).map(([name]) => `password ${name}`),
    ...tokens.filter((token) => logs.includes(token) || logs.includes(token.slice(-32))).map((token) => `token …${token.slice(-6)}`),
    ...codes.filter((code) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(logs)).map((code) => `code ${code}`),
    ...(logs.includes(TEST_JWT_SECRET) ? ['JWT_SECRET'] : []),
    ...(/\$2[aby]\$\d\d\$/.test(logs) ? ['a bcrypt hash'] : []),
  ];
  expect(leaks).toEqual([]);
}

describe('logs', () => {
  it('carry no password, code, token or key after sign-ins, refreshes, logouts and errors over REST', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    expect((await post('/api/v1/auth/register', { phone, code, password: PASSWORDS.weak })).status).toBe(400);
    expect((await post('/api/v1/auth/register', { phone, code: guess(code), password: PASSWORDS.rest })).status).toBe(400);
    const registered = await post('/api/v1/auth/register', { phone, code, password: PASSWORDS.rest });
    expect(registered.status).toBe(201);
    expect((await post('/api/v1/auth/login-password', { phone, password: PASSWORDS.wrong })).status).toBe(401);
    const signedIn = await post('/api/v1/auth/login-password', { phone, password: PASSWORDS.rest });
    expect(signedIn.status).toBe(200);

    const other = newPhone();
    const loginCode = await requestCode(t, other);
    expect((await post('/api/v1/auth/login', { phone: other, code: guess(loginCode) })).status).toBe(400);
    expect((await post('/api/v1/auth/login', { phone: other, code: loginCode })).status).toBe(200);

    const refreshed = await post('/api/v1/auth/refresh', { refreshToken: signedIn.body.refreshToken });
    expect(refreshed.status).toBe(200);
    // Within the grace window the used token gets its successor again; once that was used, it is refused.
    expect((await post('/api/v1/auth/refresh', { refreshToken: signedIn.body.refreshToken })).status).toBe(200);
    expect((await post('/api/v1/auth/refresh', { refreshToken: refreshed.body.refreshToken })).status).toBe(200);
    expect((await post('/api/v1/auth/refresh', { refreshToken: signedIn.body.refreshToken })).status).toBe(401);
    const access = refreshed.body.accessToken as string;
    expect((await t.http.get('/api/v1/users/me', { token: `${access.slice(0, -2)}xx` })).status).toBe(401);
    expect((await t.http.get(`/api/v1/users/me?access_token=${access}`, { headers: { cookie: `token=${access}` } })).status).toBe(401);
    const change = (currentPassword: string) =>
      t.http.request('PUT', '/api/v1/users/me/password', { token: access, body: { currentPassword, newPassword: PASSWORDS.changed } });
    expect((await change(PASSWORDS.wrong)).status).toBe(401);
    expect((await change(PASSWORDS.rest)).status).toBe(204);
    expect((await post('/api/v1/auth/logout', { allSessions: true }, access)).status).toBe(204);
    expect((await t.http.get('/api/v1/users/me', { token: access })).status).toBe(401);
    await expectNoSecretsLogged();
  });

  it('carry none of them after the same over GraphQL, variables that do not fit the schema included', async () => {
    const phone = newPhone();
    await t.http.post('/graphql', { query: 'mutation($p: String!) { sendCode(input: { phone: $p, purpose: REGISTER }) { expiresIn } }', variables: { p: phone } });
    const code = await t.codeFor(phone, 'register');
    // graphql-js quotes a variable that does not fit its type in the error message, password and all.
    const unknownField = await gql(REGISTER, { i: { phone, code, password: PASSWORDS.graphql, confirmPassword: PASSWORDS.graphql } });
    expect(unknownField.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect((await gql(REGISTER, { i: { phone, code, password: PASSWORDS.weak } })).body.errors?.[0]?.extensions?.code).toBe('WEAK_PASSWORD');
    expect((await gql(REGISTER, { i: { phone, code: guess(code), password: PASSWORDS.graphql } })).body.errors?.[0]?.extensions?.code).toBe('INVALID_CODE');
    expect((await gql(REGISTER, { i: { phone, code, password: PASSWORDS.graphql } })).body.data?.register).toBeTruthy();

    expect((await gql(PASSWORD_LOGIN, { i: { phone, password: PASSWORDS.wrong } })).body.errors?.[0]?.extensions?.code).toBe('INVALID_CREDENTIALS');
    const extra = await gql(PASSWORD_LOGIN, { i: { phone, password: PASSWORDS.graphql, deviceId: 'tablet' } });
    expect(extra.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    const signedIn = await gql(PASSWORD_LOGIN, { i: { phone, password: PASSWORDS.graphql } });
    const { refreshToken } = signedIn.body.data.loginWithPassword;

    const other = newPhone();
    await t.http.post('/graphql', { query: 'mutation($p: String!) { sendCode(input: { phone: $p }) { expiresIn } }', variables: { p: other } });
    const loginCode = await t.codeFor(other);
    expect((await gql(CODE_LOGIN, { i: { phone: other, code: guess(loginCode) } })).body.errors?.[0]?.extensions?.code).toBe('INVALID_CODE');
    expect((await gql(CODE_LOGIN, { i: { phone: other, code: loginCode } })).body.data?.login).toBeTruthy();

    const refreshed = (await gql(REFRESH, { r: refreshToken })).body.data.refreshToken;
    expect((await gql(REFRESH, { r: refreshToken })).body.data.refreshToken.refreshToken).toBe(refreshed.refreshToken);
    expect((await gql(REFRESH, { r: refreshed.refreshToken })).body.data.refreshToken).toBeTruthy();
    expect((await gql(REFRESH, { r: refreshToken })).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await gql('{ me { id } }', {}, `${refreshed.accessToken}x`)).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await gql('mutation { logout(allSessions: true) }', {}, refreshed.accessToken)).body.data).toEqual({ logout: true });
    await expectNoSecretsLogged();
  });

  describe('written by a server provoked into faults', () => {
    // A server of its own, declared to provoke faults of the service (tables renamed away, a constraint broken): its error-level log lines are expected.
    const failing = useTestServer({}, { captureLogs: true, expectFaults: true });

    it('carry none of them when the request fails inside the server, and do record those failures', async () => {
      const phone = newPhone();
      const code = await requestCode(failing, phone, 'register');
      const user = await post('/api/v1/auth/register', { phone, code, password: PASSWORDS.probe }, undefined, failing);
      expect(user.status).toBe(201);
      const failures: { label: string; requestId: string }[] = [];
      const record = (label: string, res: HttpResult) => failures.push({ label, requestId: res.headers.get('x-request-id')! });

      await failing.sql('alter table sessions rename to sessions_gone');
      try {
        const rest = await post('/api/v1/auth/login-password', { phone, password: PASSWORDS.probe }, undefined, failing);
        const graphql = await gql(PASSWORD_LOGIN, { i: { phone, password: PASSWORDS.probe } }, undefined, failing);
        const refresh = await post('/api/v1/auth/refresh', { refreshToken: user.body.refreshToken }, undefined, failing);
        expect([rest.status, graphql.body.errors?.[0]?.extensions?.code, refresh.status]).toEqual([500, 'INTERNAL', 500]);
        record('REST password login', rest);
        record('GraphQL password login', graphql);
        record('REST refresh', refresh);
      } finally {
        await failing.sql('alter table sessions_gone rename to sessions');
      }

      // A write of the account that fails: PostgreSQL describes the failing row, password hash included.
      const other = newPhone();
      const otherCode = await requestCode(failing, other, 'register');
      await failing.sql(`alter table users add constraint hardening_probe check (nickname <> 'probe') not valid`);
      try {
        const res = await post('/api/v1/auth/register', { phone: other, code: otherCode, password: PASSWORDS.probe, nickname: 'probe' }, undefined, failing);
        expect(res.status).toBe(500);
        record('REST register', res);
      } finally {
        await failing.sql('alter table users drop constraint hardening_probe');
      }

      const lines = failing.logs().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: number; requestId?: string });
      for (const { label, requestId } of failures) {
        expect({ label, logged: lines.some((line) => line.level >= 50 && line.requestId === requestId) }).toEqual({ label, logged: true });
      }
      await expectNoSecretsLogged(failing);
    });
  });
});
