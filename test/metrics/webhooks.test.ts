// The webhook series fed by the real outbox and dispatcher: every try's outcome counted under its
// event type, and the deliveries waiting read from the outbox at each scrape.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signInWithCode } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, webhookEnv, type Receiver } from '../webhooks/support.js';
import { scrape } from './support.js';

let receiver: Receiver;
const servers: TestServer[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const t of servers) await t.stop();
  await receiver.close();
});

async function start(schedule: string): Promise<TestServer> {
  const t = await startTestServer({ METRICS_PORT: '0', ...webhookEnv([receiver.url], { WEBHOOK_RETRY_SCHEDULE: schedule }) });
  servers.push(t);
  await t.reset();
  return t;
}

describe('metrics: webhook deliveries', () => {
  it('counts each try by event type and outcome (failed, then delivered) and reads the outbox to zero', async () => {
    const t = await start('100ms,1h');
    receiver.received.length = 0;
    let tries = 0;
    receiver.answer = () => (++tries === 1 ? 500 : 204);
    const user = await signInWithCode(t);
    expect(await waitFor(() => receiver.delivered().length === 2, 10_000)).toBe(true);
    expect(receiver.delivered().map((r) => r.event?.type)).toEqual(['user.created', 'session.created']);
    expect(await waitFor(async () => (await scrape(t)).value('webhook_deliveries_total', { event: 'session.created', outcome: 'delivered' }) === 1, 5_000)).toBe(true);
    const after = await scrape(t);
    expect(after.value('webhook_deliveries_total', { event: 'user.created', outcome: 'failed' })).toBe(1);
    expect(after.value('webhook_deliveries_total', { event: 'user.created', outcome: 'delivered' })).toBe(1);
    expect(after.value('webhook_deliveries_total', { outcome: 'dead' })).toBe(0);
    expect(after.value('webhook_outbox_pending')).toBe(0);
    expect(after.text).not.toContain(user.userId);
    expect(after.text).not.toContain(receiver.url);
    await t.stop();
    servers.pop();
  });

  it('reads the deliveries waiting behind a receiver that fails, at each scrape', async () => {
    const t = await start('1h');
    receiver.received.length = 0;
    receiver.answer = () => 503;
    await signInWithCode(t);
    expect(await waitFor(async () => (await scrape(t)).value('webhook_deliveries_total', { event: 'user.created', outcome: 'failed' }) === 1, 10_000)).toBe(true);
    // user.created waits for its retry in an hour; session.created waits behind it (one user's order).
    const waiting = await scrape(t);
    expect(waiting.value('webhook_outbox_pending')).toBe(2);
    expect(waiting.value('webhook_deliveries_total', { event: 'session.created' })).toBe(0);
    await t.sql(`update webhook_deliveries set status = 'DELIVERED'`);
    expect((await scrape(t)).value('webhook_outbox_pending')).toBe(0);
  });
});
