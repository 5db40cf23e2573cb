// SMS pumping defences of send-code: the regions served, blocked ranges, regions per address, the
// daily budget per region and the conversion breaker. The rules that count are shared by the
// instances of a deployment: tested across two instances, with counters in PostgreSQL and in Redis.
import { describe, expect, it } from '@jest/globals';
import { randomInt } from 'node:crypto';
import { errorOf, expectRetryAfter } from '../graphql/support.js';
import { describeWithRedis, instancePair } from '../helpers/instances.js';
import { newPhone, useTestServer, type TestServer } from '../helpers/server.js';
import { expectProblem, expectRetryLater } from '../rest/support.js';

const SEND = '/api/v1/auth/send-code';

/** A valid mobile number of `region` that no other test uses (ranges where every number is valid). */
function phoneIn(region: 'CN' | 'GB' | 'US' | 'DE' | 'UZ'): string {
  const digits = (n: number) => String(randomInt(0, 10 ** n)).padStart(n, '0');
  switch (region) {
    case 'CN':
      return newPhone();
    case 'GB':
      return `+4474002${digits(5)}`;
    case 'US':
      return `+1415555${digits(4)}`;
    case 'DE':
      return `+49151${digits(8)}`;
    case 'UZ':
      return `+99890${digits(7)}`;
  }
}

const send = (t: TestServer, phone: string, options: { ip?: string; purpose?: string } = {}) =>
  t.http.post(SEND, { phone, ...(options.purpose && { purpose: options.purpose }) }, { headers: options.ip ? { 'x-forwarded-for': options.ip } : {} });
const gqlSend = (t: TestServer, phone: string, options: { ip?: string } = {}) =>
  t.http.post(
    '/graphql',
    { query: 'mutation($p: String!) { sendCode(input: { phone: $p }) { expiresIn } }', variables: { p: phone } },
    { headers: options.ip ? { 'x-forwarded-for': options.ip } : {} },
  );
/** Uses the code the last SMS to `phone` carried (a sign-in), as its owner would. */
async function useCode(sentBy: TestServer, at: TestServer, phone: string): Promise<void> {
  const res = await at.http.post('/api/v1/auth/login', { phone, code: await sentBy.codeFor(phone) });
  expect(res.status).toBe(200);
}
const smsTo = async (servers: TestServer[], phone: string) => (await Promise.all(servers.map((s) => s.outbox()))).flat().filter((m) => m.phone === phone).length;

describe('regions served (default: DEFAULT_PHONE_REGION only)', () => {
  const t = useTestServer();

  it('refuses a number of another region with 400 INVALID_PHONE saying the region is not served, on both transports, and sends nothing', async () => {
    const phone = phoneIn('US');
    const problem = expectProblem(await send(t, phone), 400, 'INVALID_PHONE');
    expect(problem.detail).toBe('SMS codes are not sent to numbers of this region (US)');
    expect(problem.fields).toEqual({ phone: 'region not served' });
    const gql = errorOf(await gqlSend(t, phone), 'INVALID_PHONE');
    expect({ message: gql.message, fields: gql.extensions?.fields }).toEqual({ message: 'SMS codes are not sent to numbers of this region (US)', fields: { phone: 'region not served' } });
    expect(await smsTo([t], phone)).toBe(0);
    expect((await send(t, phoneIn('CN'))).status).toBe(200);
  });

  it('refuses before anything counts: 25 refused numbers leave the address its whole hourly allowance (20)', async () => {
    for (let i = 0; i < 25; i++) expect((await send(t, phoneIn('DE'))).status).toBe(400);
    for (let i = 0; i < 20; i++) expect((await send(t, phoneIn('CN'))).status).toBe(200);
    expectProblem(await send(t, phoneIn('CN')), 429, 'RATE_LIMITED');
  });
});

describe('SMS_ALLOWED_COUNTRIES and SMS_BLOCKED_PREFIXES', () => {
  const t = useTestServer({ SMS_ALLOWED_COUNTRIES: 'CN,GB', SMS_BLOCKED_PREFIXES: '+86170,+4474001' });

  it('sends to numbers of the listed regions and refuses the others', async () => {
    const phones = { cn: phoneIn('CN'), gb: phoneIn('GB'), uz: phoneIn('UZ') };
    expect((await send(t, phones.cn)).status).toBe(200);
    expect((await send(t, phones.gb)).status).toBe(200);
    expect(expectProblem(await send(t, phones.uz), 400, 'INVALID_PHONE').detail).toBe('SMS codes are not sent to numbers of this region (UZ)');
    expect([await smsTo([t], phones.cn), await smsTo([t], phones.gb), await smsTo([t], phones.uz)]).toEqual([1, 1, 0]);
  });

  it('refuses numbers in a blocked range, while the rest of their region is served', async () => {
    const blocked = [`+86170${String(randomInt(0, 1e8)).padStart(8, '0')}`, `+4474001${String(randomInt(0, 1e5)).padStart(5, '0')}`];
    for (const phone of blocked) {
      const problem = expectProblem(await send(t, phone), 400, 'INVALID_PHONE');
      expect({ detail: problem.detail, fields: problem.fields }).toEqual({ detail: 'SMS codes are not sent to numbers of this range', fields: { phone: 'region not served' } });
      const gql = errorOf(await gqlSend(t, phone), 'INVALID_PHONE');
      expect({ message: gql.message, fields: gql.extensions?.fields }).toEqual({ message: 'SMS codes are not sent to numbers of this range', fields: { phone: 'region not served' } });
      expect(await smsTo([t], phone)).toBe(0);
    }
    expect((await send(t, `+86171${String(randomInt(0, 1e8)).padStart(8, '0')}`)).status).toBe(200);
    expect((await send(t, phoneIn('GB'))).status).toBe(200);
  });
});

function sharedRules(storeEnv: () => Record<string, string>): void {
  describe('regions per address', () => {
    const pair = instancePair(() => ({ ...storeEnv(), SMS_ALLOWED_COUNTRIES: '*', SEND_CODE_COUNTRIES_PER_IP_DAILY: '3', TRUST_PROXY: 'loopback' }));

    it('lets one address ask codes for 3 regions a day over both instances; a 4th is 429 RATE_LIMITED with Retry-After; the 3 stay open; other addresses are not affected', async () => {
      const ip = '198.51.100.20';
      expect((await send(pair.a, phoneIn('CN'), { ip })).status).toBe(200);
      expect((await send(pair.b, phoneIn('GB'), { ip })).status).toBe(200);
      expect((await send(pair.a, phoneIn('US'), { ip })).status).toBe(200);
      const fourth = phoneIn('DE');
      const refused = expectRetryLater(await send(pair.b, fourth, { ip }), 429, 'RATE_LIMITED', 86400);
      expect(refused.detail).toBe('Codes were asked for 3 regions from this address today; no more regions today');
      expect(refused.retryAfter).toBeGreaterThan(86400 - 60);
      expect(await smsTo([pair.a, pair.b], fourth)).toBe(0);
      // Refused again on the other instance and over GraphQL, and a refused region does not become one of the 3.
      expectProblem(await send(pair.a, phoneIn('DE'), { ip }), 429, 'RATE_LIMITED');
      expect(expectRetryAfter(await gqlSend(pair.b, phoneIn('DE'), { ip }))).toBeGreaterThan(86400 - 60);
      for (const region of ['CN', 'GB', 'US'] as const) expect((await send(pair.b, phoneIn(region), { ip })).status).toBe(200);
      expect((await send(pair.b, phoneIn('DE'), { ip: '198.51.100.21' })).status).toBe(200);
    });
  });

  describe('daily SMS budget per region', () => {
    const pair = instancePair(() => ({ ...storeEnv(), SMS_ALLOWED_COUNTRIES: 'CN,GB', SMS_DAILY_BUDGET_PER_COUNTRY: 'CN=3,*=1' }), { captureLogs: true });

    it('sends the budget over both instances, then answers 503 SERVICE_UNAVAILABLE with Retry-After until midnight UTC (unknown phones alike); each region has its own; logged once', async () => {
      for (const server of [pair.a, pair.b, pair.a]) expect((await send(server, phoneIn('CN'))).status).toBe(200);
      const secondsToMidnight = Math.ceil((new Date().setUTCHours(24, 0, 0, 0) - Date.now()) / 1000);
      for (const server of [pair.b, pair.a]) {
        const phone = phoneIn('CN');
        const problem = expectRetryLater(await send(server, phone), 503, 'SERVICE_UNAVAILABLE', 86400);
        expect(problem.detail).toBe("Today's SMS budget for this region (CN) is spent; codes can be sent again after midnight UTC");
        expect(Math.abs(problem.retryAfter - secondsToMidnight)).toBeLessThanOrEqual(5);
        expect(await smsTo([pair.a, pair.b], phone)).toBe(0);
      }
      // A reset for a phone without account sends nothing, and is refused as well: no account oracle.
      expectRetryLater(await send(pair.b, phoneIn('CN'), { purpose: 'reset-password' }), 503, 'SERVICE_UNAVAILABLE', 86400);
      expect(Math.abs(expectRetryAfter(await gqlSend(pair.a, phoneIn('CN')), 'SERVICE_UNAVAILABLE') - secondsToMidnight)).toBeLessThanOrEqual(5);
      expect((await send(pair.b, phoneIn('GB'))).status).toBe(200);
      expectRetryLater(await send(pair.a, phoneIn('GB')), 503, 'SERVICE_UNAVAILABLE', 86400);
      const logLines = [pair.a, pair.b].flatMap((s) => s.logs().split('\n')).filter((line) => line.includes('the daily SMS budget of a region is spent'));
      expect(logLines.map((line) => JSON.parse(line) as { level: number; country: string }).map((l) => [l.level, l.country]).sort()).toEqual([
        [40, 'CN'],
        [40, 'GB'],
      ]);
      // Refusals by policy are not logged as failed requests.
      expect([pair.a, pair.b].map((s) => s.logs()).join('')).not.toContain('"msg":"request failed"');
    });
  });

  describe('conversion breaker', () => {
    const pair = instancePair(
      () => ({ ...storeEnv(), SMS_ALLOWED_COUNTRIES: 'CN,GB', SMS_MIN_CONVERSION: '0.5', SMS_CONVERSION_MIN_SENDS: '4' }),
      { captureLogs: true },
    );

    it('pauses sends to a region whose codes go unused until the share recovers, over both instances; other regions go on; logged once', async () => {
      const phones = [phoneIn('CN'), phoneIn('CN'), phoneIn('CN'), phoneIn('CN')];
      for (const [i, phone] of phones.entries()) expect((await send(i % 2 ? pair.b : pair.a, phone)).status).toBe(200);
      await useCode(pair.a, pair.b, phones[0]!);
      // 1 of 4 used: below half.
      for (const server of [pair.a, pair.b, pair.a]) {
        const phone = phoneIn('CN');
        const problem = expectRetryLater(await send(server, phone), 503, 'SERVICE_UNAVAILABLE', 300);
        expect(problem.detail).toBe('SMS codes to this region (CN) are paused: too few of the codes sent there recently were used');
        expect(await smsTo([pair.a, pair.b], phone)).toBe(0);
      }
      expect(expectRetryAfter(await gqlSend(pair.b, phoneIn('CN')), 'SERVICE_UNAVAILABLE')).toBeLessThanOrEqual(300);
      expect((await send(pair.b, phoneIn('GB'))).status).toBe(200);
      const paused = [pair.a, pair.b].flatMap((s) => s.logs().split('\n')).filter((line) => line.includes('SMS codes to a region paused'));
      expect(paused.map((line) => JSON.parse(line) as { level: number; country: string; sent: number; verified: number })).toEqual([
        expect.objectContaining({ level: 40, country: 'CN', sent: 4, verified: 1 }),
      ]);
      // A second code used (sent by B, used at A): 2 of 4, no longer below half.
      await useCode(pair.b, pair.a, phones[1]!);
      expect((await send(pair.a, phoneIn('CN'))).status).toBe(200);
    });

    it('judges a region only after SMS_CONVERSION_MIN_SENDS sends in the hour', async () => {
      for (let i = 0; i < 4; i++) expect((await send(i % 2 ? pair.b : pair.a, phoneIn('GB'))).status).toBe(200);
      expectRetryLater(await send(pair.a, phoneIn('GB')), 503, 'SERVICE_UNAVAILABLE', 300);
    });
  });
}

describe('counters in PostgreSQL', () => sharedRules(() => ({})));

describe('the conversion breaker switched off (SMS_MIN_CONVERSION=0)', () => {
  const t = useTestServer({ SMS_MIN_CONVERSION: '0', SMS_CONVERSION_MIN_SENDS: '4' });

  it('keeps sending to a region whose codes all go unused', async () => {
    for (let i = 0; i < 8; i++) expect((await send(t, phoneIn('CN'))).status).toBe(200);
  });
});

describeWithRedis('counters in Redis', (redis) => sharedRules(() => redis.env));

describe('a send whose SMS cannot be delivered', () => {
  // A webhook provider on a port nobody listens on: every delivery fails at once, a fault of the
  // service (logged at error level) that the server is declared to provoke.
  const t = useTestServer(
    {
      SMS_PROVIDER: 'webhook',
      SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms',
      SMS_WEBHOOK_SECRET: 'webhook-secret-of-at-least-32-characters',
      SMS_DAILY_BUDGET_PER_COUNTRY: 'CN=1',
    },
    { expectFaults: true },
  );

  it('gives back its share of the budget: 502 SMS_DELIVERY_FAILED each time, never 503', async () => {
    for (let i = 0; i < 3; i++) expectProblem(await send(t, phoneIn('CN')), 502, 'SMS_DELIVERY_FAILED');
  });
});
