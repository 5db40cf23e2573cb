import { describe, expect, it } from '@jest/globals';
import { describeWithRedis } from '../helpers/instances.js';
import { registerUser } from '../helpers/factories.js';
import { newPhone, useTestServer, type TestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { scrape } from './support.js';

const LIMITS = { METRICS_PORT: '0', LOGIN_FAILURES_PER_PHONE_IP: '2', LOGIN_FAILURES_PER_IP_DAILY: '4' };

/** The failure limits are checked in one atomic step over both rules: the store says which one refused. */
function failureLimitCases(t: TestServer): void {
  const wrong = (phone: string, i: number) => t.http.post('/api/v1/auth/login-password', { phone, password: `wrong-password-${i}` });
  const refusals = async (work: () => Promise<void>) => {
    const before = await scrape(t);
    await work();
    const after = await scrape(t);
    const delta = (limit: string) => after.value('rate_limited_total', { limit }) - before.value('rate_limited_total', { limit });
    return { perPhoneIp: delta('login-failures-per-phone-ip'), perIpDaily: delta('login-failures-per-ip-daily') };
  };

  it('names the per-phone-and-address limit when a phone meets it', async () => {
    const { phone } = await registerUser(t);
    expect(
      await refusals(async () => {
        for (let i = 0; i < 2; i++) expectProblem(await wrong(phone, i), 401, 'INVALID_CREDENTIALS');
        expectProblem(await wrong(phone, 2), 429, 'RATE_LIMITED');
      }),
    ).toEqual({ perPhoneIp: 1, perIpDaily: 0 });
  });

  it('names the per-address daily limit when the address meets it over several phones', async () => {
    expect(
      await refusals(async () => {
        for (let i = 0; i < 4; i++) expectProblem(await wrong(newPhone(), i), 401, 'INVALID_CREDENTIALS');
        expectProblem(await wrong(newPhone(), 4), 429, 'RATE_LIMITED');
      }),
    ).toEqual({ perPhoneIp: 0, perIpDaily: 1 });
  });
}

describe('metrics: refusals by failure limits, counters in PostgreSQL', () => {
  failureLimitCases(useTestServer(LIMITS));
});

describeWithRedis('metrics: refusals by failure limits, counters in Redis', (redis) => {
  failureLimitCases(useTestServer(() => ({ ...LIMITS, ...redis.env })));
});
