import { describe, expect, it } from '@jest/globals';
import { clearRateLimits, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { ISO_UTC } from '../helpers/assertions.js';
import { expectNoLeaks, expectProblem, expectRateLimited } from './support.js';

const SEND = '/api/v1/auth/send-code';

const t = useTestServer();

describe('POST /api/v1/auth/send-code', () => {
  it('sends a 6-digit login code by default and answers expiresIn and resendAfter', async () => {
    const phone = newPhone();
    const res = await t.http.post(SEND, { phone });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ expiresIn: 300, resendAfter: 60 });
    const outbox = await t.outbox();
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ phone, purpose: 'login' });
    expect(outbox[0]!.code).toMatch(/^\d{6}$/);
    expect(outbox[0]!.sentAt).toMatch(ISO_UTC);
  });

  it('accepts the national form and sends to the E.164 number', async () => {
    const phone = newPhone();
    const res = await t.http.post(SEND, { phone: phone.slice(3), purpose: 'login' });
    expect(res.status).toBe(200);
    expect((await t.outbox()).map((m) => m.phone)).toEqual([phone]);
  });

  it('sends codes for register, reset-password and delete-account', async () => {
    const unknown = newPhone();
    expect((await t.http.post(SEND, { phone: unknown, purpose: 'register' })).status).toBe(200);
    const { phone } = await signInWithCode(t);
    for (const purpose of ['reset-password', 'delete-account']) {
      await clearRateLimits(t);
      const res = await t.http.post(SEND, { phone, purpose });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ expiresIn: 300, resendAfter: 60 });
    }
    expect((await t.outbox()).map((m) => [m.phone, m.purpose])).toEqual([
      [unknown, 'register'],
      [phone, 'login'],
      [phone, 'reset-password'],
      [phone, 'delete-account'],
    ]);
  });

  it.each(['12345', '+8612345678901', '+861065529988', '+447700900123', 'not a phone', '+86138abcdefgh'])(
    'rejects %p with INVALID_PHONE and sends nothing',
    async (phone) => {
      // The number check's own answer, not the region rule's (which refuses with INVALID_PHONE too).
      expect(expectProblem(await t.http.post(SEND, { phone }), 400, 'INVALID_PHONE').detail).toBe('Not a valid mobile phone number');
      expect(await t.outbox()).toEqual([]);
    },
  );

  it('rejects a missing, wrongly typed or too long phone with VALIDATION_FAILED and fields', async () => {
    for (const body of [{}, { phone: 13800138000 }, { phone: null }, { phone: ['+8613800138000'] }, { phone: '1'.repeat(33) }]) {
      const problem = expectProblem(await t.http.post(SEND, body), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['phone']);
      expect(typeof problem.fields.phone).toBe('string');
    }
  });

  it('rejects an unknown or wrongly typed purpose with VALIDATION_FAILED', async () => {
    for (const purpose of ['signup', 'LOGIN', 1, true]) {
      const problem = expectProblem(await t.http.post(SEND, { phone: newPhone(), purpose }), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['purpose']);
    }
    expect(await t.outbox()).toEqual([]);
  });

  it('ignores unknown fields', async () => {
    const res = await t.http.post(SEND, { phone: newPhone(), purpose: 'login', channel: 'voice', extra: { a: 1 } });
    expect(res.status).toBe(200);
  });

  it('refuses a register code for a phone that has an account with 409 PHONE_ALREADY_REGISTERED', async () => {
    const { phone } = await signInWithCode(t);
    await clearRateLimits(t);
    expectProblem(await t.http.post(SEND, { phone, purpose: 'register' }), 409, 'PHONE_ALREADY_REGISTERED');
    expect((await t.outbox()).filter((m) => m.purpose === 'register')).toEqual([]);
  });

  it('answers a reset-password request for an unknown phone exactly as for a known one, and sends nothing', async () => {
    const { phone: known } = await signInWithCode(t);
    await clearRateLimits(t);
    const unknown = newPhone();
    const a = await t.http.post(SEND, { phone: known, purpose: 'reset-password' });
    const b = await t.http.post(SEND, { phone: unknown, purpose: 'reset-password' });
    expect(b.status).toBe(a.status);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('content-type')).toBe(a.headers.get('content-type'));
    expect((await t.outbox()).some((m) => m.phone === unknown)).toBe(false);
    // Per-phone limits apply to unknown phones too, so they cannot be told apart that way either.
    expectRateLimited(await t.http.post(SEND, { phone: unknown, purpose: 'reset-password' }), 60);
  });

  it('sends no delete-account code to an unknown phone', async () => {
    const res = await t.http.post(SEND, { phone: newPhone(), purpose: 'delete-account' });
    expect(res.status).toBe(200);
    expect(await t.outbox()).toEqual([]);
  });
});

describe('send-code on an instance with registration switched off', () => {
  const closed = useTestServer({ REGISTRATION_ENABLED: 'false' });

  it('refuses a login code for an unknown phone with 403 REGISTRATION_DISABLED', async () => {
    const phone = newPhone();
    expectProblem(await closed.http.post(SEND, { phone }), 403, 'REGISTRATION_DISABLED');
    expectProblem(await closed.http.post(SEND, { phone, purpose: 'register' }), 403, 'REGISTRATION_DISABLED');
    expect(await closed.outbox()).toEqual([]);
  });

  it('still sends a login code to a phone that has an account', async () => {
    const { phone } = await signInWithCode(t);
    await clearRateLimits(t);
    const res = await closed.http.post(SEND, { phone });
    expect(res.status).toBe(200);
    expect(await closed.codeFor(phone)).toMatch(/^\d{6}$/);
  });

  it('shares the interval between instances of the service', async () => {
    const { phone } = await signInWithCode(t);
    await clearRateLimits(t);
    expect((await t.http.post(SEND, { phone })).status).toBe(200);
    expectRateLimited(await closed.http.post(SEND, { phone }), 60);
  });
});

describe('send-code rate limits', () => {
  it('refuses a second code within 60 s, for any purpose, with Retry-After, and sends nothing', async () => {
    const phone = newPhone();
    expect((await t.http.post(SEND, { phone })).status).toBe(200);
    const first = await t.codeFor(phone);
    const again = await t.http.post(SEND, { phone });
    expectRateLimited(again, 60);
    expect(again.body.retryAfter).toBeGreaterThanOrEqual(55);
    expectRateLimited(await t.http.post(SEND, { phone, purpose: 'register' }), 60);
    expect(await t.outbox()).toHaveLength(1);
    // The refused request did not replace the code that was sent.
    const login = await t.http.post('/api/v1/auth/login', { phone, code: first });
    expect(login.status).toBe(200);
  });

  it('does not limit another phone because one phone is waiting', async () => {
    expect((await t.http.post(SEND, { phone: newPhone() })).status).toBe(200);
    expect((await t.http.post(SEND, { phone: newPhone() })).status).toBe(200);
  });

  it('counts national and E.164 forms of one phone together', async () => {
    const phone = newPhone();
    expect((await t.http.post(SEND, { phone })).status).toBe(200);
    expectRateLimited(await t.http.post(SEND, { phone: phone.slice(3) }), 60);
  });
});

describe('send-code hourly limits (2 per phone, 4 per IP)', () => {
  const hourly = useTestServer({ SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_PHONE_HOURLY: '2', SEND_CODE_PER_IP_HOURLY: '4' });

  it('limits codes per phone per hour (SEND_CODE_PER_PHONE_HOURLY)', async () => {
    const phone = newPhone();
    expect((await hourly.http.post(SEND, { phone })).status).toBe(200);
    expect((await hourly.http.post(SEND, { phone, purpose: 'register' })).status).toBe(200);
    const third = await hourly.http.post(SEND, { phone });
    expect(expectRateLimited(third, 3600)).toBeGreaterThan(3500);
    expect((await hourly.outbox()).filter((m) => m.phone === phone)).toHaveLength(2);
    expect((await hourly.http.post(SEND, { phone: newPhone() })).status).toBe(200);
  });

  it('limits codes per client IP per hour (SEND_CODE_PER_IP_HOURLY), whatever X-Forwarded-For says', async () => {
    for (let i = 0; i < 4; i++) expect((await hourly.http.post(SEND, { phone: newPhone() })).status).toBe(200);
    const fifth = await hourly.http.post(SEND, { phone: newPhone() });
    expect(expectRateLimited(fifth, 3600)).toBeGreaterThan(3500);
    const spoofed = await hourly.http.post(SEND, { phone: newPhone() }, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expectRateLimited(spoofed, 3600);
    expectNoLeaks(spoofed);
  });
});

describe('send-code daily limit (3 per phone)', () => {
  const daily = useTestServer({ SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_PHONE_HOURLY: '10', SEND_CODE_PER_PHONE_DAILY: '3' });

  it('limits codes per phone per day (SEND_CODE_PER_PHONE_DAILY)', async () => {
    const phone = newPhone();
    for (let i = 0; i < 3; i++) expect((await daily.http.post(SEND, { phone })).status).toBe(200);
    const fourth = await daily.http.post(SEND, { phone });
    expect(expectRateLimited(fourth, 86400)).toBeGreaterThan(3600);
  });
});
