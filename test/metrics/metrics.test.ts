import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { parse, scrape } from './support.js';
import { ACCOUNT_EVENTS, liveClient } from '../helpers/live.js';
import { claimsOf } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { codeAt, enrolledUser, mfaTokenByPassword, steadyStep, VERIFY } from '../mfa/support.js';
import { accepted, addPasskey, newLoginChallenge, passkeyLogin, refusal, registrationOptions, verifyMfa } from '../passkeys/support.js';

const PROMTOOL = '/usr/bin/promtool';
// CI installs Debian's prometheus package, so there a missing promtool fails the test; elsewhere it is skipped, saying so.
const skipPromtool = !existsSync(PROMTOOL) && !process.env.CI;
if (skipPromtool) console.warn(`${PROMTOOL} not found: the promtool check of the exposition is skipped (apt-get install prometheus to run it)`);
const withPromtool = skipPromtool ? it.skip : it;
const PROM_CLIENT_FINDINGS = new Set(
  ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'].map(
    (name) => `${name} non-counter metrics should not have "_total" suffix`,
  ),
);

/** A number of a second region (US), served here, and limited to one SMS a day. */
const US_PHONE = '+14155552671';
const US_PHONE_2 = '+14155552672';

/** The page origin of the software authenticator's passkeys. */
const ORIGIN = 'https://meet.example.com';
const t = useTestServer({
  METRICS_PORT: '0',
  SMS_ALLOWED_COUNTRIES: 'CN,US',
  SMS_DAILY_BUDGET_PER_COUNTRY: 'US=1',
  LOGIN_FAILURES_PER_PHONE_IP: '2',
  WEBAUTHN_ORIGINS: ORIGIN,
});

const gql = (query: string, options: { token?: string; operationName?: string; variables?: unknown } = {}) =>
  t.http.post('/graphql', { query, operationName: options.operationName, variables: options.variables }, { token: options.token });

describe('metrics: the listener', () => {
  it('serves the Prometheus text format on METRICS_PORT, with Node process metrics', async () => {
    const res = await fetch(t.server.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { series, text } = parse(await res.text());
    expect(text).toMatch(/^# HELP http_server_request_duration_seconds /m);
    expect(text).toMatch(/^# TYPE http_server_request_duration_seconds histogram$/m);
    expect(series('process_cpu_user_seconds_total')).toHaveLength(1);
    expect(series('nodejs_heap_size_used_bytes')).toHaveLength(1);
    expect(series('nodejs_eventloop_lag_seconds')).toHaveLength(1);
  });

  it('listens on its own port on the service host; the public port answers 404 at /metrics', async () => {
    const metricsUrl = new URL(t.server.metricsUrl!);
    expect(metricsUrl.hostname).toBe('127.0.0.1');
    expect(metricsUrl.pathname).toBe('/metrics');
    expect(Number(metricsUrl.port)).not.toBe(t.server.port);
    expectProblem(await t.http.get('/metrics'), 404, 'NOT_FOUND');
    const other = await fetch(new URL('/api/v1/auth/config', metricsUrl));
    expect(other.status).toBe(404);
    const post = await fetch(metricsUrl, { method: 'POST' });
    expect(post.status).toBe(404);
  });

  it('has no listener and no metrics when METRICS_PORT is off (the default under NODE_ENV=test)', async () => {
    const { startTestServer } = await import('../helpers/server.js');
    const off = await startTestServer({ METRICS_PORT: 'off' });
    try {
      expect(off.server.metricsUrl).toBeUndefined();
      expect(off.server.metrics).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});

describe('metrics: the series', () => {
  it('counts sign-ins by method and outcome (success or the error code), on both transports', async () => {
    const before = await scrape(t);
    const user = await registerUser(t); // a registration creates the account: not counted as a sign-in
    await signInWithCode(t);
    const phone = newPhone();
    await requestCode(t, phone);
    expectProblem(await t.http.post('/api/v1/auth/login', { phone, code: '000000' }), 400, 'INVALID_CODE');
    const wrongCode = await gql('mutation { login(input: { phone: "' + phone + '", code: "000001" }) { accessToken } }');
    expect(wrongCode.body.errors[0].extensions.code).toBe('INVALID_CODE');
    expectProblem(await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: 'not-the-password-1' }), 401, 'INVALID_CREDENTIALS');
    expect((await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD })).status).toBe(200);
    expect((await t.http.post('/api/v1/auth/refresh', { refreshToken: user.refreshToken })).status).toBe(200);
    expectProblem(await t.http.post('/api/v1/auth/refresh', { refreshToken: 'not-a-refresh-token' }), 401, 'UNAUTHENTICATED');

    const after = await scrape(t);
    const delta = (method: string, outcome: string) =>
      after.value('auth_sign_ins_total', { method, outcome }) - before.value('auth_sign_ins_total', { method, outcome });
    expect({
      codeSuccess: delta('code', 'success'),
      codeWrong: delta('code', 'INVALID_CODE'),
      passwordSuccess: delta('password', 'success'),
      passwordWrong: delta('password', 'INVALID_CREDENTIALS'),
      refreshSuccess: delta('refresh', 'success'),
      refreshWrong: delta('refresh', 'UNAUTHENTICATED'),
    }).toEqual({ codeSuccess: 1, codeWrong: 2, passwordSuccess: 1, passwordWrong: 1, refreshSuccess: 1, refreshWrong: 1 });
    for (const labels of after.series('auth_sign_ins_total')) {
      expect(['code', 'password', 'passkey', 'refresh', 'mfa']).toContain(labels.method);
      expect(labels.outcome).toMatch(/^(success|[A-Z_]+)$/);
    }
  });

  it('counts the second factors: MFA_REQUIRED for the first step, mfa (a step-up too) and passkey sign-ins by outcome', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const before = await scrape(t);
    // Adding a passkey with TOTP on takes a step-up: a second step, counted as the sign-in's.
    const asked = await registrationOptions(t, user.accessToken, 'REST');
    expect(refusal(asked)).toEqual({ code: 'MFA_REQUIRED' });
    const stepped = accepted(await verifyMfa(t, asked.mfa!.mfaToken as string, codeAt(user.secret, step), 'REST'));
    const authenticator = new SoftAuthenticator(ORIGIN);
    accepted(await addPasskey(t, stepped.accessToken, authenticator.register(accepted(await registrationOptions(t, stepped.accessToken, 'REST'))), 'REST'));
    const mfaToken = await mfaTokenByPassword(t, user.phone);
    expectProblem(await t.http.post(VERIFY, { mfaToken, code: codeAt(user.secret, step - 5) }), 400, 'INVALID_CODE');
    expect((await t.http.post(VERIFY, { mfaToken, code: codeAt(user.secret, step + 1) })).status).toBe(200);
    const { challengeId, options } = await newLoginChallenge(t, 'GraphQL');
    accepted(await passkeyLogin(t, challengeId, authenticator.assert(options), 'GraphQL'));
    const replayed = await newLoginChallenge(t);
    expectProblem(await t.http.post('/api/v1/auth/passkey/login', { challengeId: replayed.challengeId, response: authenticator.assert(options) }), 401, 'INVALID_CREDENTIALS');

    const after = await scrape(t);
    const delta = (method: string, outcome: string) =>
      after.value('auth_sign_ins_total', { method, outcome }) - before.value('auth_sign_ins_total', { method, outcome });
    expect({
      firstStep: delta('password', 'MFA_REQUIRED'),
      mfaWrong: delta('mfa', 'INVALID_CODE'),
      mfaSuccess: delta('mfa', 'success'),
      passkeySuccess: delta('passkey', 'success'),
      passkeyWrong: delta('passkey', 'INVALID_CREDENTIALS'),
    }).toEqual({ firstStep: 1, mfaWrong: 1, mfaSuccess: 2, passkeySuccess: 1, passkeyWrong: 1 });
  });

  it('counts SMS by the region of the phone and outcome, a spent budget included', async () => {
    const before = await scrape(t);
    await requestCode(t, newPhone());
    const gqlSent = await gql('mutation($input: SendCodeInput!) { sendCode(input: $input) { expiresIn } }', { variables: { input: { phone: newPhone(), purpose: 'LOGIN' } } });
    expect(gqlSent.body.errors).toBeUndefined();
    await requestCode(t, US_PHONE);
    expectProblem(await t.http.post('/api/v1/auth/send-code', { phone: US_PHONE_2, purpose: 'login' }), 503, 'SERVICE_UNAVAILABLE');

    const after = await scrape(t);
    const delta = (country: string, outcome: string) =>
      after.value('sms_sent_total', { country, outcome }) - before.value('sms_sent_total', { country, outcome });
    expect({ cn: delta('CN', 'sent'), us: delta('US', 'sent'), usSpent: delta('US', 'budget_spent') }).toEqual({ cn: 2, us: 1, usSpent: 1 });
  });

  it('counts refusals by the name of the limit, never its key', async () => {
    const before = await scrape(t);
    const phone = newPhone();
    await requestCode(t, phone);
    expectProblem(await t.http.post('/api/v1/auth/send-code', { phone, purpose: 'login' }), 429, 'RATE_LIMITED');
    const user = await registerUser(t);
    for (let i = 0; i < 2; i++) {
      expectProblem(await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: `wrong-password-${i}` }), 401, 'INVALID_CREDENTIALS');
    }
    const locked = await gql('mutation($input: PasswordLoginInput!) { loginWithPassword(input: $input) { accessToken } }', {
      variables: { input: { phone: user.phone, password: GOOD_PASSWORD } },
    });
    expect(locked.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    const after = await scrape(t);
    const delta = (limit: string) => after.value('rate_limited_total', { limit }) - before.value('rate_limited_total', { limit });
    expect({ interval: delta('send-code-interval'), login: delta('login-failures-per-phone-ip') }).toEqual({ interval: 1, login: 1 });
    expect(after.value('auth_sign_ins_total', { method: 'password', outcome: 'RATE_LIMITED' })).toBeGreaterThanOrEqual(1);
    for (const { limit } of after.series('rate_limited_total')) expect(limit).toMatch(/^[a-z-]+$/);
  });

  it('times REST requests by route template and status, unmatched paths as (unmatched), probes not at all', async () => {
    const user = await signInWithCode(t);
    const before = await scrape(t);
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).status).toBe(200);
    expect((await t.http.get('/api/v1/users/me')).status).toBe(401);
    const unknownSession = '0f0e0d0c-0b0a-4908-8706-050403020100';
    expectProblem(await t.http.request('DELETE', `/api/v1/users/me/sessions/${unknownSession}`, { token: user.accessToken }), 404, 'NOT_FOUND');
    expectProblem(await t.http.get(`/api/v1/nothing-here/${user.userId}`), 404, 'NOT_FOUND');
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await t.http.get('/readyz')).status).toBe(200);

    const after = await scrape(t);
    const count = (labels: Record<string, string>) =>
      after.value('http_server_request_duration_seconds_count', labels) - before.value('http_server_request_duration_seconds_count', labels);
    expect({
      me200: count({ method: 'GET', route: '/api/v1/users/me', status: '200' }),
      me401: count({ method: 'GET', route: '/api/v1/users/me', status: '401' }),
      session404: count({ method: 'DELETE', route: '/api/v1/users/me/sessions/{id}', status: '404' }),
      unmatched404: count({ method: 'GET', route: '(unmatched)', status: '404' }),
    }).toEqual({ me200: 1, me401: 1, session404: 1, unmatched404: 1 });
    // Seconds, not milliseconds: a local request takes well under one.
    const sum = after.value('http_server_request_duration_seconds_sum', { route: '/api/v1/users/me', status: '200' });
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(after.value('http_server_request_duration_seconds_count', { route: '/api/v1/users/me', status: '200' }));
    const routes = new Set(after.series('http_server_request_duration_seconds_count').map((l) => l.route));
    expect([...routes].filter((r) => r === '/healthz' || r === '/readyz')).toEqual([]);
    for (const route of routes) expect(route).toMatch(/^(\(unmatched\)|\/graphql|\/api\/v1(\/[a-z.-]+|\/\{\w+\})+)$/);
  });

  it('times a request whose client left before the answer under status aborted', async () => {
    const user = await signInWithCode(t);
    const before = await scrape(t);
    const { hostname, port } = new URL(t.url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    const boundary = 'metrics-test-boundary';
    socket.write(
      [
        'POST /api/v1/users/me/avatar HTTP/1.1',
        `Host: ${hostname}:${port}`,
        `Authorization: Bearer ${user.accessToken}`,
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        'Content-Length: 1000000',
        '',
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      ].join('\r\n'),
    );
    socket.write(Buffer.alloc(4096, 1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const labels = { method: 'POST', route: '/api/v1/users/me/avatar', status: 'aborted' };
    const deadline = Date.now() + 5_000;
    let counted = 0;
    while (Date.now() < deadline) {
      counted = (await scrape(t)).value('http_server_request_duration_seconds_count', labels) - before.value('http_server_request_duration_seconds_count', labels);
      if (counted > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(counted).toBe(1);
  });

  it('counts GraphQL operations by root field, type and outcome; the client-chosen name is no label', async () => {
    const user = await signInWithCode(t);
    const before = await scrape(t);
    const me = await gql('query MyPrivateOperationName { me { id } }', { token: user.accessToken, operationName: 'MyPrivateOperationName' });
    expect(me.body.data.me.id).toBe(user.userId);
    // The same query again is a known one, answered past Apollo (see KnownQueries): counted the same.
    const again = await gql('query MyPrivateOperationName { me { id } }', { token: user.accessToken, operationName: 'MyPrivateOperationName' });
    expect(again.body.data.me.id).toBe(user.userId);
    // GET /users/me past the router keeps its route label.
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).status).toBe(200);
    expect((await gql('{ me { id } }')).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await gql('{ noSuchField }')).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect((await gql('{ me { id ')).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect((await gql('{ __typename }')).body.data).toEqual({ __typename: 'Query' });

    const after = await scrape(t);
    const delta = (labels: Record<string, string>) => after.value('graphql_operations_total', labels) - before.value('graphql_operations_total', labels);
    expect({
      meSuccess: delta({ operation: 'me', type: 'query', outcome: 'success' }),
      meUnauthenticated: delta({ operation: 'me', type: 'query', outcome: 'UNAUTHENTICATED' }),
      unknownField: delta({ operation: '(unknown)', type: 'query', outcome: 'VALIDATION_FAILED' }),
      unparsable: delta({ operation: '(invalid)', type: '(invalid)', outcome: 'VALIDATION_FAILED' }),
      introspection: delta({ operation: '(introspection)', type: 'query', outcome: 'success' }),
    }).toEqual({ meSuccess: 2, meUnauthenticated: 1, unknownField: 1, unparsable: 1, introspection: 1 });
    expect(after.value('http_server_request_duration_seconds_count', { method: 'GET', route: '/api/v1/users/me', status: '200' }) - before.value('http_server_request_duration_seconds_count', { method: 'GET', route: '/api/v1/users/me', status: '200' })).toBe(1);
    expect(after.value('http_server_request_duration_seconds_count', { method: 'POST', route: '/graphql', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(after.text).not.toContain('MyPrivateOperationName');
    expect(after.text).not.toContain('noSuchField');
  });

  it('reads the hashing queue; without webhooks, nothing waits in the outbox and no try is counted', async () => {
    const first = await scrape(t);
    expect(first.series('password_hash_queue_depth')).toEqual([{}]);
    expect(first.value('password_hash_queue_depth')).toBe(0);
    expect(first.series('webhook_outbox_pending')).toEqual([{}]);
    expect(first.value('webhook_outbox_pending')).toBe(0);
    expect(first.series('webhook_deliveries_total')).toEqual([]);
  });

  it('counts open sockets and live events delivered, and times their delivery', async () => {
    const user = await registerUser(t);
    const before = await scrape(t);
    expect(before.value('live_sockets_open')).toBe(0);
    const live = liveClient(t.url, user.accessToken);
    try {
      const sub = live.subscribe(ACCOUNT_EVENTS);
      expect(await waitFor(async () => (await scrape(t)).value('live_sockets_open') === 1 && t.server.services.live.connections === 1, 3000)).toBe(true);
      await waitFor(() => t.server.services.live.subscriptionsOf(claimsOf(user.accessToken).sid, user.userId) === 1, 3000, 10);
      await t.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Ada' }, token: user.accessToken });
      await sub.waitFor(1);
      const after = await scrape(t);
      expect(after.value('live_events_delivered_total', { type: 'PROFILE_UPDATED' }) - before.value('live_events_delivered_total', { type: 'PROFILE_UPDATED' })).toBe(1);
      expect(after.value('live_event_delivery_seconds_count') - before.value('live_event_delivery_seconds_count')).toBe(1);
    } finally {
      await live.dispose();
    }
    expect(await waitFor(async () => (await scrape(t)).value('live_sockets_open') === 0, 3000)).toBe(true);
  });

  it('never holds a phone, an id, a token, an address or a raw path', async () => {
    const user = await signInWithCode(t);
    await t.http.get('/api/v1/users/me', { token: user.accessToken });
    await t.http.get(`/api/v1/users/${user.userId}`, { token: user.accessToken });
    await t.http.get(`/api/v1/unknown/${user.phone}?token=${user.accessToken}`);
    await gql(`{ me { id } } # ${user.userId}`, { token: user.accessToken });
    const { text } = await scrape(t);
    for (const secret of [user.phone, user.phone.slice(1), user.userId, user.accessToken, user.refreshToken, '/api/v1/unknown', '/api/v1/users/' + user.userId]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/127\.0\.0\.1|::1/);
  });
});

describe('metrics: promtool', () => {
  withPromtool('accepts the real scrape (promtool check metrics)', async () => {
    if (!existsSync(PROMTOOL)) throw new Error(`${PROMTOOL} is missing: CI must install it (apt-get install -y prometheus)`);
    const user = await signInWithCode(t);
    await t.http.get('/api/v1/users/me', { token: user.accessToken });
    await gql('{ me { id } }', { token: user.accessToken });
    const { text } = await scrape(t);
    // Exit status 1: the text does not parse; 3: lint findings, printed. The only findings allowed are
    // three gauges of prom-client's Node metrics named with _total (their documented names, which
    // dashboards use): any finding about the service's own series fails.
    const run = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const findings = `${run.stdout}${run.stderr}`.split('\n').filter(Boolean);
    expect(findings.filter((line) => !PROM_CLIENT_FINDINGS.has(line))).toEqual([]);
    expect([0, 3]).toContain(run.status);
    // And promtool does read findings: a series of the service named against the rules is reported.
    const bad = spawnSync(PROMTOOL, ['check', 'metrics'], { input: `${text}# HELP auth_bad_total x\n# TYPE auth_bad_total gauge\nauth_bad_total 1\n`, encoding: 'utf8' });
    expect(`${bad.stdout}${bad.stderr}`).toContain('auth_bad_total non-counter metrics should not have "_total" suffix');
  });
});
