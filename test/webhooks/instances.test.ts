import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sweepExpired } from '../../src/db/janitor.js';
import { clearRateLimits, registerUser } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, webhookEnv, type Receiver } from './support.js';

const started: TestServer[] = [];
async function start(env: Record<string, string>, onWebhookDelivery?: (eventType: string, outcome: string) => void): Promise<TestServer> {
  const t = await startTestServer(env, { onWebhookDelivery });
  // A test's first server: the send-code limits of its sign-ups start from zero, whatever an earlier
  // file left in rate_limits (the embedded pass runs every file on one database).
  if (started.length === 0) await clearRateLimits(t);
  started.push(t);
  return t;
}
const receivers: Receiver[] = [];
async function receive(port?: number): Promise<Receiver> {
  const r = await startReceiver(port);
  receivers.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((t) => t.stop().catch(() => undefined)));
  await Promise.all(receivers.splice(0).map((r) => r.close().catch(() => undefined)));
});

/** `count` events, round robin over `users`, written as changes write them. */
async function enqueue(t: TestServer, users: string[], count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const userId = users[i % users.length]!;
    await t.server.db.transaction(() => t.server.services.webhooks.enqueue({ type: 'session.revoked', data: { userId, all: true } }));
  }
}
const count = async (t: TestServer, status: string) => (await t.sql<{ n: number }>('select count(*)::int as n from webhook_deliveries where status = $1', [status]))[0]!.n;

describe('several instances on one database', () => {
  beforeAll(async () => {
    const t = await startTestServer();
    await t.sql('truncate webhook_deliveries');
    await t.stop();
  });

  it('deliver each event exactly once, in order per user, while both send', async () => {
    const receiver = await receive();
    const env = webhookEnv([receiver.url]);
    const sent = { a: 0, b: 0 };
    const [a, b] = [await start(env, () => sent.a++), await start(env, () => sent.b++)];
    const users = Array.from({ length: 20 }, () => randomUUID());
    await Promise.all([enqueue(a, users, 200), enqueue(b, users, 200)]);
    expect(await waitFor(async () => (await count(a, 'DELIVERED')) === 400, 20_000, 50)).toBe(true);
    const ids = receiver.received.map((r) => r.id);
    expect(ids).toHaveLength(400);
    expect(new Set(ids).size).toBe(400);
    // Both sent: each event went out from one of them, none from both.
    expect(sent.a + sent.b).toBe(400);
    expect(Math.min(sent.a, sent.b)).toBeGreaterThan(0);
    // Per user, the order of the outbox.
    const bySeq = await a.sql<{ id: string; user_key: string }>('select id, user_key from webhook_deliveries order by seq');
    for (const user of users) {
      expect(receiver.received.filter((r) => r.event!.data.userId === user).map((r) => r.id)).toEqual(bySeq.filter((row) => row.user_key === user).map((row) => row.id));
    }
  });

  it('let a second instance send what a stopped one left pending: a restart loses nothing', async () => {
    // The receiver is down while the first instance writes its events.
    const probe = await startReceiver();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const env = webhookEnv([`http://127.0.0.1:${port}/hooks`], { WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms' });
    const first = await start(env);
    await first.sql('truncate webhook_deliveries');
    const users = Array.from({ length: 5 }, () => randomUUID());
    await enqueue(first, users, 25);
    expect(await waitFor(async () => (await first.sql<{ n: number }>('select count(*)::int as n from webhook_deliveries where attempts > 0'))[0]!.n > 0, 5000, 20)).toBe(true);
    await first.stop();
    started.splice(started.indexOf(first), 1);
    const receiver = await receive(port);
    const second = await start(env);
    expect(await waitFor(async () => (await count(second, 'DELIVERED')) === 25, 10_000, 50)).toBe(true);
    expect(new Set(receiver.delivered().map((r) => r.id)).size).toBe(25);
  });

  it('stop at once with a receiver that never answers, giving the tries in flight back; no request waits for it', async () => {
    const hanging = await receive();
    hanging.answer = () => 'hang';
    const env = webhookEnv([hanging.url], { WEBHOOK_TIMEOUT_MS: '10000' });
    const first = await start(env);
    await first.sql('truncate webhook_deliveries');
    const user = await registerUser(first);
    const before = Date.now();
    expect((await first.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { nickname: 'Quick' } })).status).toBe(200);
    expect(Date.now() - before).toBeLessThan(1000);
    expect(await waitFor(() => hanging.received.length > 0, 5000, 10)).toBe(true);
    // user.created, session.created and user.updated: the first hangs, the others wait behind it.
    expect(await first.server.services.webhooks.pendingCount()).toBe(3);
    const stopping = Date.now();
    await first.stop();
    started.splice(started.indexOf(first), 1);
    expect(Date.now() - stopping).toBeLessThan(3000);
    // Given back: no lease (it would have lasted 20 s), no try counted; the next instance sends them at once.
    hanging.answer = () => 204;
    const second = await start(env);
    const rows = await second.sql<{ attempts: number }>('select attempts from webhook_deliveries');
    expect(rows.length).toBeGreaterThan(0);
    expect(await waitFor(async () => (await count(second, 'DELIVERED')) === rows.length, 5000, 20)).toBe(true);
  });
});

describe('a lease', () => {
  it("keeps a row claimed by an instance that died from every other until it runs out, then the row is sent", async () => {
    const receiver = await receive();
    const t = await start(webhookEnv([receiver.url]));
    await t.sql('truncate webhook_deliveries');
    const userId = randomUUID();
    await enqueue(t, [userId], 2);
    expect(await waitFor(async () => (await count(t, 'DELIVERED')) === 2, 5000, 20)).toBe(true);
    // As a claim that crashed mid-try leaves it: PENDING, due, leased for 1.5 s more; and one behind it.
    const [row] = await t.sql<{ id: string }>(
      `insert into webhook_deliveries (id, event_type, user_key, payload, url, locked_until)
       values (gen_random_uuid(), 'session.revoked', $1::uuid, jsonb_build_object('userId', $1::text, 'all', true), $2, now() + interval '1500 ms') returning id`,
      [userId, receiver.url],
    );
    await enqueue(t, [userId], 1);
    const leasedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received).toHaveLength(2);
    expect(await waitFor(async () => (await count(t, 'DELIVERED')) === 4, 5000, 20)).toBe(true);
    expect(receiver.received[2]!.id).toBe(row!.id);
    expect(receiver.received[2]!.at - leasedAt).toBeGreaterThanOrEqual(1400);
    expect(receiver.received).toHaveLength(4);
  });
});

describe('the outbox and the change commit together', () => {
  let t: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestServer(webhookEnv([receiver.url]), { expectFaults: true });
    await t.reset();
  });
  afterAll(async () => {
    await t.sql('drop trigger if exists fail_for_test on audit_log').catch(() => undefined);
    await t.sql('drop trigger if exists fail_for_test on webhook_deliveries').catch(() => undefined);
    await t.sql('drop function if exists fail_for_test()').catch(() => undefined);
    await t.stop();
    await receiver.close();
  });

  it('a change that fails after writing its event leaves no event; an event that cannot be written leaves no change', async () => {
    const user = await registerUser(t);
    const admin = await registerUser(t);
    await t.sql("update users set role = 'ADMIN' where id = $1", [admin.userId]);
    await t.sql("create or replace function fail_for_test() returns trigger language plpgsql as $$ begin raise exception 'failed for the test'; end $$");
    const events = async () => (await t.sql<{ event_type: string }>('select event_type from webhook_deliveries where user_key = $1 order by seq', [user.userId])).map((r) => r.event_type);
    expect(await events()).toEqual(['user.created', 'session.created']);

    // The block writes user.blocked and session.revoked, then its audit entry, which fails.
    await t.sql("create trigger fail_for_test before insert on audit_log for each row when (new.detail->>'reason' = 'fail here') execute function fail_for_test()");
    const block = await t.http.post(`/api/v1/admin/users/${user.userId}/block`, { reason: 'fail here' }, { token: admin.accessToken });
    expect(block.status).toBe(500);
    expect((await t.sql('select blocked_at from users where id = $1', [user.userId]))[0]!.blocked_at).toBeNull();
    expect(await events()).toEqual(['user.created', 'session.created']);
    await t.sql('drop trigger fail_for_test on audit_log');

    // The nickname's event cannot be written: the nickname stays as it was.
    await t.sql("create trigger fail_for_test before insert on webhook_deliveries for each row when (new.event_type = 'user.updated') execute function fail_for_test()");
    const patch = await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { nickname: 'Never' } });
    expect(patch.status).toBe(500);
    expect((await t.sql('select nickname from users where id = $1', [user.userId]))[0]!.nickname).not.toBe('Never');
    await t.sql('drop trigger fail_for_test on webhook_deliveries');

    // And a change that commits has its event.
    expect((await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { nickname: 'Now' } })).status).toBe(200);
    expect(await events()).toEqual(['user.created', 'session.created', 'user.updated']);
    expect(await waitFor(() => receiver.delivered().some((r) => r.event?.data.user?.nickname === 'Now'), 5000, 20)).toBe(true);
    expect(receiver.delivered().filter((r) => r.event?.data.user?.id === user.userId || r.event?.data.userId === user.userId).map((r) => r.event!.type)).toEqual([
      'user.created',
      'session.created',
      'user.updated',
    ]);
  });

  it('the janitor sweeps DELIVERED and DEAD deliveries after WEBHOOK_RETENTION_DAYS, never a PENDING one', async () => {
    await t.sql('truncate webhook_deliveries');
    for (let i = 0; i < 4; i++) {
      await t.server.db.transaction(() => t.server.services.webhooks.enqueue({ type: 'user.deleted', data: { userId: randomUUID() } }));
    }
    expect(await waitFor(async () => (await count(t, 'DELIVERED')) === 4, 5000, 20)).toBe(true);
    const [old, dead, pending] = (await t.sql<{ id: string }>('select id from webhook_deliveries order by seq')).map((r) => r.id);
    await t.sql(`update webhook_deliveries set created_at = now() - interval '31 days' where id = any($1::uuid[])`, [[old, dead, pending]]);
    await t.sql(`update webhook_deliveries set status = 'DEAD' where id = $1`, [dead]);
    await t.sql(`update webhook_deliveries set status = 'PENDING', next_attempt_at = now() + interval '1 hour' where id = $1`, [pending]);
    const swept = await sweepExpired(t.server.services.sweepers);
    expect(swept.webhookDeliveries).toBe(2);
    expect((await t.sql<{ id: string }>('select id from webhook_deliveries order by seq')).map((r) => r.id)).toEqual([pending, expect.any(String)]);
  });

  it('with no WEBHOOK_URLS, nothing is written to the outbox', async () => {
    const off = await startTestServer();
    try {
      await t.sql('truncate webhook_deliveries');
      await registerUser(off);
      expect(await count(off, 'PENDING')).toBe(0);
      expect((await off.sql<{ n: number }>('select count(*)::int as n from webhook_deliveries'))[0]!.n).toBe(0);
    } finally {
      await off.stop();
    }
  });
});
