// Whether a phone has an account is told only to the holder of a valid code: register answers
// PHONE_ALREADY_REGISTERED, and login with registration off REGISTRATION_DISABLED, after the code
// was used, so a wrong code answers INVALID_CODE for every phone, and the wrong codes are limited
// per address (test/hardening/code-failures.test.ts). Probing is no longer free while the address
// is out of send-code quota. Both transports.
import { describe, expect, it } from '@jest/globals';
import { errorOf } from '../graphql/support.js';
import { GOOD_PASSWORD, requestCode, signInWithCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';

type Transport = 'REST' | 'GraphQL';
const STATUS: Record<string, number> = { INVALID_CODE: 400, REGISTRATION_DISABLED: 403, PHONE_ALREADY_REGISTERED: 409, RATE_LIMITED: 429 };

function register(t: TestServer, transport: Transport, phone: string, code: string): Promise<HttpResult> {
  return transport === 'REST'
    ? t.http.post('/api/v1/auth/register', { phone, code, password: GOOD_PASSWORD })
    : t.http.post('/graphql', {
        query: 'mutation($i: RegisterInput!) { register(input: $i) { accessToken } }',
        variables: { i: { phone, code, password: GOOD_PASSWORD } },
      });
}

function login(t: TestServer, transport: Transport, phone: string, code: string): Promise<HttpResult> {
  return transport === 'REST'
    ? t.http.post('/api/v1/auth/login', { phone, code })
    : t.http.post('/graphql', { query: 'mutation($i: CodeLoginInput!) { login(input: $i) { accessToken } }', variables: { i: { phone, code } } });
}

/** The error code of a failed answer on either transport, checked for its status (REST) and shape. */
function failure(res: HttpResult, transport: Transport, code: string): void {
  if (transport === 'REST') expectProblem(res, STATUS[code]!, code);
  else errorOf(res, code);
}

const TRANSPORTS: Transport[] = ['REST', 'GraphQL'];
// Out of send-code quota after three codes; 30 wrong codes per phone and address before those are limited.
const t = useTestServer({ SEND_CODE_PER_IP_HOURLY: '3', CODE_FAILURES_PER_PHONE_IP: '30' });

describe.each(TRANSPORTS)('register over %s', (transport) => {
  it('answers a wrong code with INVALID_CODE for a phone with an account and for one without, even out of send-code quota', async () => {
    const taken = (await signInWithCode(t)).phone;
    const free = newPhone();
    for (let i = 0; i < 2; i++) await requestCode(t, newPhone());
    expectRateLimited(await t.http.post('/api/v1/auth/send-code', { phone: newPhone() }), 3600);
    for (let i = 0; i < 10; i++) {
      failure(await register(t, transport, taken, '123456'), transport, 'INVALID_CODE');
      failure(await register(t, transport, free, '123456'), transport, 'INVALID_CODE');
    }
  });

  it('tells the holder of a valid register code that the phone has an account since (409)', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    await t.sql('delete from rate_limits');
    await signInWithCode(t, phone);
    failure(await register(t, transport, phone, code), transport, 'PHONE_ALREADY_REGISTERED');
  });

  it("burns nothing of the account's owner: their login code and sign-in still work after 20 probes", async () => {
    const phone = newPhone();
    await signInWithCode(t, phone);
    await t.sql('delete from rate_limits');
    const code = await requestCode(t, phone, 'login');
    for (let i = 0; i < 20; i++) failure(await register(t, transport, phone, String(100000 + i)), transport, 'INVALID_CODE');
    expect((await t.http.post('/api/v1/auth/login', { phone, code })).status).toBe(200);
  });
});

describe('login by code with registration switched off', () => {
  const off = useTestServer({ REGISTRATION_ENABLED: 'false', SEND_CODE_PER_IP_HOURLY: '3', CODE_FAILURES_PER_PHONE_IP: '30' });

  it.each(TRANSPORTS)('answers a wrong code over %s with INVALID_CODE whether the phone has an account or not, even out of send-code quota', async (transport) => {
    const known = (await signInWithCode(t)).phone;
    const unknown = newPhone();
    await t.sql('delete from rate_limits');
    // send-code's own answer for a new phone (403) costs the quota: three, then 429.
    for (let i = 0; i < 3; i++) expectProblem(await off.http.post('/api/v1/auth/send-code', { phone: newPhone() }), 403, 'REGISTRATION_DISABLED');
    expectRateLimited(await off.http.post('/api/v1/auth/send-code', { phone: newPhone() }), 3600);
    for (let i = 0; i < 10; i++) {
      failure(await login(off, transport, known, '123456'), transport, 'INVALID_CODE');
      failure(await login(off, transport, unknown, '123456'), transport, 'INVALID_CODE');
    }
  });

  it.each(TRANSPORTS)('tells the holder of a valid login code over %s that registration is off (403)', async (transport) => {
    const phone = newPhone();
    const code = await requestCode(t, phone); // sent while the other instance still allows sign-up
    failure(await login(off, transport, phone, code), transport, 'REGISTRATION_DISABLED');
    expect(await t.sql('select id from users where phone = $1', [phone])).toEqual([]);
  });
});
