// An instance killed (SIGKILL) while a try is waiting for the receiver's answer: its row stays
// leased, no other instance sends it while the lease runs, and then another does, with the same
// webhook-id; the user's later event waits behind it throughout.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { newPhone, startTestServer, type TestServer } from '../helpers/server.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { freshRateLimits, serviceProcessEnv, signInByOutbox, startService, type ServiceProcess } from '../operability/support.js';
import { startReceiver, webhookEnv, type Receiver } from './support.js';

let dir = '';
let receiver: Receiver;
let db: pg.Client;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhook-crash-'));
  receiver = await startReceiver();
  db = new pg.Client({ connectionString: process.env.TEST_WORKER_DATABASE_URL });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

interface Row {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  lease_ms: number | null;
}
const rows = async () =>
  (
    await db.query<Row>(
      `select id, event_type, status, attempts, (extract(epoch from (locked_until - now())) * 1000)::int as lease_ms from webhook_deliveries order by seq`,
    )
  ).rows;

describe('an instance killed in the middle of a try', () => {
  let killed: ServiceProcess | undefined;
  let other: TestServer | undefined;
  afterAll(async () => {
    await killed?.kill();
    await other?.stop();
  });

  it('leaves its row leased: no instance sends it while the lease runs, then one does with the same webhook-id', async () => {
    // A try waits up to 3 s for an answer; its lease is that plus 10 s.
    const env = webhookEnv([receiver.url], { WEBHOOK_TIMEOUT_MS: '3000' });
    receiver.answer = () => 'hang';
    const outbox = join(dir, 'sms.jsonl');
    killed = await startService(serviceProcessEnv(join(dir, 'data'), { SMS_PROVIDER: 'file', SMS_OUTBOX_FILE: outbox, ...env }));
    // (The service has migrated the worker's database by now.)
    await db.query('truncate webhook_deliveries');
    await freshRateLimits();
    await signInByOutbox(killed.url, outbox, newPhone());
    // user.created is being tried (the receiver holds it); session.created waits behind it.
    expect(await waitFor(() => receiver.received.length === 1, 10_000, 20)).toBe(true);
    await killed.kill();
    const [created, session] = await rows();
    expect(created).toMatchObject({ event_type: 'user.created', status: 'PENDING', attempts: 0 });
    expect(session).toMatchObject({ event_type: 'session.created', status: 'PENDING', attempts: 0 });
    expect(created!.lease_ms).toBeGreaterThan(8_000);

    receiver.answer = () => 204;
    other = await startTestServer(env);
    // Until shortly before the lease runs out, the other instance sends nothing: not the leased row,
    // and not the user's later event behind it.
    const leaseLeft = (await rows())[0]!.lease_ms!;
    await sleep(Math.max(0, leaseLeft - 1_000));
    expect(receiver.received).toHaveLength(1);

    expect(await waitFor(async () => (await rows()).every((row) => row.status === 'DELIVERED'), 15_000, 50)).toBe(true);
    const ids = receiver.received.map((r) => r.id);
    expect(ids).toEqual([created!.id, created!.id, session!.id]);
    expect(receiver.received.map((r) => r.event?.type)).toEqual(['user.created', 'user.created', 'session.created']);
    expect((await rows()).map((row) => row.attempts)).toEqual([1, 1]);
  }, 60_000);
});
