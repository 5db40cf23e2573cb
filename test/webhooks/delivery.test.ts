import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { registerUser } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { eventsOf, startReceiver, webhookEnv, type Receiver } from './support.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => 204;
});

interface Row {
  id: string;
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
}
const rows = (t: TestServer) => t.sql<Row & Record<string, unknown>>('select id, status, attempts, last_status, last_error from webhook_deliveries order by seq');

/** `count` events about `userId` written as a change's transaction writes them. */
async function enqueue(t: TestServer, userId: string, count = 1): Promise<void> {
  for (let i = 0; i < count; i++) {
    await t.server.db.transaction(() => t.server.services.webhooks.enqueue({ type: 'session.revoked', data: { userId, sessionId: randomUUID() } }));
  }
}

const warnLines = (t: TestServer) =>
  t
    .logs()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number; msg: string; webhookId?: string; attempt?: number; status?: number | null; error?: string })
    .filter((line) => /^webhook delivery failed/.test(line.msg));

describe('retries: a non-2xx answer', () => {
  /** What the dispatcher told its onDelivery hook (the metrics' hook), per try. */
  const outcomes: [string, string][] = [];
  const t = useTestServer(() => webhookEnv([receiver.url]), { captureLogs: true, onWebhookDelivery: (type, outcome) => void outcomes.push([type, outcome]) });
  beforeEach(() => {
    outcomes.length = 0;
  });

  it('is tried again on the schedule with the same webhook-id, and delivered once the receiver answers 2xx', async () => {
    const tries = new Map<string, number>();
    receiver.answer = (r) => {
      tries.set(r.id, (tries.get(r.id) ?? 0) + 1);
      return tries.get(r.id)! <= 2 ? 500 : 200;
    };
    const user = randomUUID();
    await enqueue(t, user);
    expect(await waitFor(async () => (await rows(t))[0]?.status === 'DELIVERED', 5000, 20)).toBe(true);
    const [row] = await rows(t);
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 3, last_status: 200, last_error: null });
    expect(receiver.received.map((r) => r.id)).toEqual([row!.id, row!.id, row!.id]);
    // The same body each time (the signature's timestamp is the try's own).
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    expect(receiver.received.every((r) => r.event !== undefined)).toBe(true);
    // The waits of the schedule (50 ms, then 100 ms) at least.
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(45);
    expect(receiver.received[2]!.at - receiver.received[1]!.at).toBeGreaterThanOrEqual(95);
    // A warn line per failed try: the receiver's failure is not the service's fault.
    const warned = warnLines(t).filter((l) => l.webhookId === row!.id);
    expect(warned.map((l) => [l.level, l.attempt, l.status])).toEqual([
      [40, 1, 500],
      [40, 2, 500],
    ]);
    expect(outcomes).toEqual([
      ['session.revoked', 'failed'],
      ['session.revoked', 'failed'],
      ['session.revoked', 'delivered'],
    ]);
  });

  it('is DEAD after the last try of the schedule, with the last status and error', async () => {
    receiver.answer = () => 503;
    await enqueue(t, randomUUID());
    expect(await waitFor(async () => (await rows(t))[0]?.status === 'DEAD', 5000, 20)).toBe(true);
    expect((await rows(t))[0]).toMatchObject({ status: 'DEAD', attempts: 3, last_status: 503, last_error: 'HTTP 503' });
    expect(receiver.received).toHaveLength(3);
    expect(outcomes.map(([, outcome]) => outcome)).toEqual(['failed', 'failed', 'dead']);
    const lines = warnLines(t).slice(-3);
    expect(lines.map((l) => l.msg)).toEqual(['webhook delivery failed; will retry', 'webhook delivery failed; will retry', 'webhook delivery failed for the last time: DEAD']);
    // Nothing more is tried.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(3);
  });

  it('of one user holds back that user\'s later events (in order, per user), not other users\' events', async () => {
    const stuck = randomUUID();
    const other = randomUUID();
    const tries = new Map<string, number>();
    // Every event of `stuck` fails its first two tries; `other`'s go through at once.
    receiver.answer = (r) => {
      tries.set(r.id, (tries.get(r.id) ?? 0) + 1);
      return r.event?.data.userId === stuck && tries.get(r.id)! <= 2 ? 500 : 204;
    };
    await enqueue(t, stuck, 5);
    await enqueue(t, other, 5);
    expect(await waitFor(async () => (await rows(t)).every((r) => r.status === 'DELIVERED'), 10_000, 20)).toBe(true);
    const ids = (await rows(t)).map((r) => r.id);
    const delivered = receiver.delivered().map((r) => ({ id: r.id, userId: r.event!.data.userId as string }));
    expect(delivered.filter((d) => d.userId === stuck).map((d) => d.id)).toEqual(ids.slice(0, 5));
    expect(delivered.filter((d) => d.userId === other).map((d) => d.id)).toEqual(ids.slice(5));
    // The other user's five went through before the stuck user's second.
    const position = (id: string) => delivered.findIndex((d) => d.id === id);
    expect(position(ids[9]!)).toBeLessThan(position(ids[1]!));
    // No event of the stuck user was tried before the one ahead of it was delivered.
    const firstTry = (id: string) => receiver.received.findIndex((r) => r.id === id);
    const success = (id: string) => receiver.received.indexOf(receiver.delivered().find((r) => r.id === id)!);
    for (let i = 1; i < 5; i++) expect(firstTry(ids[i]!)).toBeGreaterThan(success(ids[i - 1]!));
  });

  it('keeps the order of one user\'s real changes under retries', async () => {
    const user = await registerUser(t);
    let n = 0;
    receiver.answer = () => (++n % 2 === 1 ? 500 : 204);
    for (const nickname of ['one', 'two', 'three', 'four']) {
      expect((await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { nickname } })).status).toBe(200);
    }
    expect(await waitFor(async () => (await rows(t)).every((r) => r.status === 'DELIVERED'), 10_000, 20)).toBe(true);
    const nicknames = eventsOf(receiver.delivered()).filter((e) => e.type === 'user.updated').map((e) => e.data.user.nickname);
    expect(nicknames).toEqual(['one', 'two', 'three', 'four']);
  });
});

describe('retries: no answer within WEBHOOK_TIMEOUT_MS', () => {
  const t = useTestServer(() => webhookEnv([receiver.url], { WEBHOOK_TIMEOUT_MS: '200' }));

  it('is a failed try: tried again with the same webhook-id, DEAD after the last, with no status and the timeout as the error', async () => {
    receiver.answer = () => 'hang';
    await enqueue(t, randomUUID());
    expect(await waitFor(async () => (await rows(t))[0]?.status === 'DEAD', 5000, 20)).toBe(true);
    const [row] = await rows(t);
    expect(row).toMatchObject({ status: 'DEAD', attempts: 3, last_status: null, last_error: 'no answer within 200 ms' });
    expect(receiver.received.map((r) => r.id)).toEqual([row!.id, row!.id, row!.id]);
  });
});

describe('refused connections (a receiver that is down)', () => {
  let downUrl: string;
  beforeAll(async () => {
    // A port that was just free: nothing listens there.
    const down = await startReceiver();
    downUrl = down.url;
    await down.close();
  });
  const t = useTestServer(() => webhookEnv([downUrl]));

  it('fail with the connection error and end DEAD', async () => {
    await enqueue(t, randomUUID());
    expect(await waitFor(async () => (await rows(t))[0]?.status === 'DEAD', 5000, 20)).toBe(true);
    expect((await rows(t))[0]).toMatchObject({ attempts: 3, last_status: null, last_error: 'ECONNREFUSED' });
  });
});

describe('a receiver that keeps failing', () => {
  let downUrl = '';
  let downPort = 0;
  beforeAll(async () => {
    const down = await startReceiver();
    downUrl = down.url;
    downPort = Number(new URL(down.url).port);
    await down.close();
  });
  const outcomes: string[] = [];
  const t = useTestServer(() => webhookEnv([downUrl], { WEBHOOK_RETRY_SCHEDULE: Array(10).fill('100ms').join(',') }), {
    captureLogs: true,
    onWebhookDelivery: (_type, outcome) => void outcomes.push(outcome),
  });

  it('is held back after 20 failed tries in a row: its deliveries wait, tried one at a time as probes, and all go once it answers', async () => {
    const users = Array.from({ length: 30 }, () => randomUUID());
    for (const user of users) await enqueue(t, user);
    // Tried on their schedule, these 30 deliveries would make 330 tries in about a second, all DEAD.
    await sleep(2500);
    // Before the receiver is held: 20 failures, plus the tries in flight then (at most one per
    // delivery); after: probes at 0.5 s, then 1 s later, then 2 s later.
    expect(outcomes.length).toBeGreaterThanOrEqual(20);
    expect(outcomes.length).toBeLessThanOrEqual(50 + 3);
    expect(outcomes).not.toContain('dead');
    expect((await rows(t)).filter((row) => row.status !== 'PENDING')).toEqual([]);
    expect(t.logs()).toContain('webhook receiver keeps failing');

    const back = await startReceiver(downPort);
    try {
      expect(await waitFor(async () => (await rows(t)).every((row) => row.status === 'DELIVERED'), 15_000, 50)).toBe(true);
      expect(new Set(back.delivered().map((r) => r.id)).size).toBe(30);
      expect(t.logs()).toContain('webhook receiver answers again');
    } finally {
      await back.close();
    }
  }, 30_000);
});
