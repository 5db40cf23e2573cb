import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { clearRateLimits, requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectAuthPayload, expectUser, wrongCode } from '../helpers/assertions.js';
import { expectProblem } from './support.js';

const LOGIN = '/api/v1/auth/login';

const t = useTestServer();
const closed = useTestServer({ REGISTRATION_ENABLED: 'false' }); // registration switched off

const userCount = async () => Number((await t.sql<{ n: string }>('select count(*) as n from users'))[0]!.n);

describe('POST /api/v1/auth/login', () => {
  it('creates a code-only account on the first login, with the default nickname', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const before = Date.now();
    const res = await t.http.post(LOGIN, { phone, code });
    expect(res.status).toBe(200);
    expectAuthPayload(res.body, 'REST', { isNewUser: true, user: { phone, nickname: `User${phone.slice(-4)}`, hasPassword: false } });
    expect(Math.abs(Date.parse(res.body.user.createdAt) - before)).toBeLessThan(10_000);
    const me = await t.http.get('/api/v1/users/me', { token: res.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body.user);
  });

  it('signs the same account in again with isNewUser false', async () => {
    const first = await signInWithCode(t);
    await clearRateLimits(t);
    const code = await requestCode(t, first.phone);
    const res = await t.http.post(LOGIN, { phone: first.phone, code });
    expect(res.status).toBe(200);
    expectAuthPayload(res.body, 'REST', { isNewUser: false, user: { phone: first.phone, hasPassword: false } });
    expect(res.body.user.id).toBe(first.userId);
    expect(res.body.user.createdAt).toBe(first.body.user.createdAt);
    expect(Date.parse(res.body.user.lastLoginAt)).toBeGreaterThanOrEqual(Date.parse(first.body.user.lastLoginAt));
    expect(res.body.refreshToken).not.toBe(first.refreshToken);
    expect(await userCount()).toBe(1);
  });

  it('accepts the national form and returns the phone in E.164', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const res = await t.http.post(LOGIN, { phone: phone.slice(3), code });
    expect(res.status).toBe(200);
    expect(res.body.user.phone).toBe(phone);
  });

  it('stores the code only as a keyed hash', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const rows = await t.sql<{ code_hash: string }>('select code_hash from verification_codes where phone = $1', [phone]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.code_hash).not.toBe(createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(await t.sql('select * from verification_codes'))).not.toContain(code);
  });

  it('rejects a wrong code with INVALID_CODE and creates no account', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    expectProblem(await t.http.post(LOGIN, { phone, code: wrongCode(code) }), 400, 'INVALID_CODE');
    expect(await userCount()).toBe(0);
  });

  it('rejects a code when none was sent to that phone', async () => {
    const code = await requestCode(t, newPhone());
    expectProblem(await t.http.post(LOGIN, { phone: newPhone(), code }), 400, 'INVALID_CODE');
  });

  it('rejects an expired code', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    await t.sql(`update verification_codes set expires_at = now() - interval '1 second' where phone = $1`, [phone]);
    expectProblem(await t.http.post(LOGIN, { phone, code }), 400, 'INVALID_CODE');
  });

  it('rejects a code that was already used', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    expect((await t.http.post(LOGIN, { phone, code })).status).toBe(200);
    expectProblem(await t.http.post(LOGIN, { phone, code }), 400, 'INVALID_CODE');
  });

  it('lets exactly one of several concurrent logins use a code', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const results = await Promise.all(Array.from({ length: 5 }, () => t.http.post(LOGIN, { phone, code })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.status !== 200)) expectProblem(r, 400, 'INVALID_CODE');
    expect(await userCount()).toBe(1);
  });

  it('still accepts the right code after four wrong guesses', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    for (let i = 0; i < 4; i++) expectProblem(await t.http.post(LOGIN, { phone, code: wrongCode(code) }), 400, 'INVALID_CODE');
    expect((await t.http.post(LOGIN, { phone, code })).status).toBe(200);
  });

  it('rejects a code after five wrong guesses, even the right one', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    for (let i = 0; i < 5; i++) expectProblem(await t.http.post(LOGIN, { phone, code: wrongCode(code) }), 400, 'INVALID_CODE');
    expectProblem(await t.http.post(LOGIN, { phone, code }), 400, 'INVALID_CODE');
    expect(await userCount()).toBe(0);
  });

  it('accepts a code only for the purpose it was sent for', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone, 'register');
    expectProblem(await t.http.post(LOGIN, { phone, code }), 400, 'INVALID_CODE');
    // The register code is still good for registering.
    const reg = await t.http.post('/api/v1/auth/register', { phone, code, password: 'violet-harbor-42' });
    expect(reg.status).toBe(201);
  });

  it('invalidates the previous code when a new one is sent', async () => {
    const phone = newPhone();
    const first = await requestCode(t, phone);
    let second = first;
    for (let i = 0; i < 5 && second === first; i++) {
      await clearRateLimits(t);
      second = await requestCode(t, phone);
    }
    expect(second).not.toBe(first);
    expectProblem(await t.http.post(LOGIN, { phone, code: first }), 400, 'INVALID_CODE');
    expect((await t.http.post(LOGIN, { phone, code: second })).status).toBe(200);
  });

  it('rejects an invalid phone with INVALID_PHONE', async () => {
    expectProblem(await t.http.post(LOGIN, { phone: '12345', code: '123456' }), 400, 'INVALID_PHONE');
  });

  it('rejects a missing or wrongly typed code with VALIDATION_FAILED and fields', async () => {
    const phone = newPhone();
    const missing = expectProblem(await t.http.post(LOGIN, { phone }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(missing.fields)).toEqual(['code']);
    const numeric = expectProblem(await t.http.post(LOGIN, { phone, code: 123456 }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(numeric.fields)).toEqual(['code']);
    const both = expectProblem(await t.http.post(LOGIN, {}), 400, 'VALIDATION_FAILED');
    expect(Object.keys(both.fields).sort()).toEqual(['code', 'phone']);
  });

  it('ignores unknown fields', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const res = await t.http.post(LOGIN, { phone, code, rememberMe: true, password: 'ignored' });
    expect(res.status).toBe(200);
    expectUser(res.body.user, 'REST', { phone, hasPassword: false });
  });
});

describe('login by code with registration switched off', () => {
  it('refuses an unknown phone with 403 REGISTRATION_DISABLED and creates nothing', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone); // sent while the other instance still allows sign-up
    expectProblem(await closed.http.post(LOGIN, { phone, code }), 403, 'REGISTRATION_DISABLED');
    expect(await userCount()).toBe(0);
  });

  it('signs an existing account in', async () => {
    const existing = await signInWithCode(t);
    await clearRateLimits(t);
    expect((await closed.http.post('/api/v1/auth/send-code', { phone: existing.phone })).status).toBe(200);
    const res = await closed.http.post(LOGIN, { phone: existing.phone, code: await closed.codeFor(existing.phone) });
    expect(res.status).toBe(200);
    expectAuthPayload(res.body, 'REST', { isNewUser: false, user: { phone: existing.phone } });
    expect(res.body.user.id).toBe(existing.userId);
  });
});
