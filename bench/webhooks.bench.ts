// Webhooks (API.md 8.2): how fast the dispatcher empties a full outbox into a local receiver, and
// that a receiver that is down or never answers, with 10,000 events waiting for it, does not slow
// the requests (REST GET /users/me p99, at a fixed rate, against the same service with none waiting).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { load, log } from './load.js';
import { freshDatabase, median, signIn, startService, type Row } from './support.js';

const SECRET = `whsec_${Buffer.from('benchmark-webhook-signing-key-32').toString('base64')}`;
const THROUGHPUT_EVENTS = 20_000;
const THROUGHPUT_USERS = 2_000;
const THROUGHPUT_TARGET = 1_000;
const WAITING_EVENTS = 10_000;
/** A rate the service answers well below saturation: the p99 then shows added latency, not queueing. */
const RATE = 1_000;
const ROUNDS = 3;

/** A receiver on a free loopback port: 204 to everything, or no answer at all ('hang'). */
async function receiver(mode: 'answer' | 'hang'): Promise<{ url: string; ids: Set<string>; requests: () => number; close(): Promise<void> }> {
  const ids = new Set<string>();
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    ids.add(String(req.headers['webhook-id']));
    req.resume();
    if (mode === 'answer') req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    ids,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A loopback URL nothing listens on: connections are refused at once. */
async function refusingUrl(): Promise<string> {
  const probe = await receiver('answer');
  await probe.close();
  return probe.url;
}

/** `count` pending events, round robin over `users` users, as the service writes them, in one statement. */
async function insertPending(db: pg.Client, url: string, count: number, users: number): Promise<void> {
  await db.query(
    `insert into webhook_deliveries (id, event_type, user_key, payload, url)
     select gen_random_uuid(), 'session.revoked', u.id, jsonb_build_object('userId', u.id, 'all', true), $1
       from generate_series(0, $2 - 1) as i
       join (select row_number() over () - 1 as n, gen_random_uuid() as id from generate_series(1, $3)) u on u.n = i % $3
      order by i`,
    [url, count, users],
  );
}

const countWhere = async (db: pg.Client, status: string) =>
  Number((await db.query<{ n: string }>('select count(*) as n from webhook_deliveries where status = $1', [status])).rows[0]!.n);

export async function webhooksBench(adminUrl: string, port: number): Promise<Row[]> {
  return [await throughput(adminUrl, port), ...(await receiverDown(adminUrl, port + 1))];
}

/** 20,000 pending events (2,000 users, 10 each: one user's go one at a time) -> all DELIVERED. */
async function throughput(adminUrl: string, port: number): Promise<Row> {
  const databaseUrl = await freshDatabase(adminUrl, 'meeting_accounts_bench_webhooks');
  const sink = await receiver('answer');
  const service = await startService({ DATABASE_URL: databaseUrl, WEBHOOK_URLS: sink.url, WEBHOOK_SECRET: SECRET }, port);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const started = performance.now();
    await insertPending(db, sink.url, THROUGHPUT_EVENTS, THROUGHPUT_USERS);
    const deadline = Date.now() + 120_000;
    while ((await countWhere(db, 'DELIVERED')) < THROUGHPUT_EVENTS) {
      if (Date.now() > deadline) throw new Error(`only ${await countWhere(db, 'DELIVERED')} of ${THROUGHPUT_EVENTS} delivered after 120 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = THROUGHPUT_EVENTS / seconds;
    log(`webhooks: ${THROUGHPUT_EVENTS} events delivered in ${seconds.toFixed(2)} s (${rate.toFixed(0)}/s), ${sink.requests()} requests, ${sink.ids.size} distinct ids`);
    if (sink.ids.size !== THROUGHPUT_EVENTS) throw new Error(`the receiver saw ${sink.ids.size} distinct ids, not ${THROUGHPUT_EVENTS}`);
    return {
      case: `webhooks: ${THROUGHPUT_EVENTS.toLocaleString('en')} pending events (${THROUGHPUT_USERS.toLocaleString('en')} users) -> all DELIVERED to a local receiver`,
      value: `${rate.toFixed(0)} events/s (${seconds.toFixed(1)} s; ${sink.requests()} requests, each id once)`,
      target: `>= ${THROUGHPUT_TARGET} events/s`,
      pass: rate >= THROUGHPUT_TARGET,
    };
  } finally {
    await db.end();
    await service.stop();
    await sink.close();
  }
}

/**
 * REST GET /users/me p99 at RATE req/s: no event waiting; 10,000 waiting for a receiver that never
 * answers (64 tries hang for WEBHOOK_TIMEOUT_MS at a time); 10,000 waiting for a refused port (each
 * try fails at once: the dispatcher churns through them and their retries). Rounds alternate.
 */
async function receiverDown(adminUrl: string, port: number): Promise<Row[]> {
  const databaseUrl = await freshDatabase(adminUrl, 'meeting_accounts_bench_webhooks_down');
  const hanging = await receiver('hang');
  const refused = await refusingUrl();
  const service = await startService({ DATABASE_URL: databaseUrl, WEBHOOK_URLS: hanging.url, WEBHOOK_SECRET: SECRET }, port);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const token = await signIn(service, '+8613600136100');
    const requests = [{ method: 'GET' as const, path: '/api/v1/users/me', headers: { authorization: `Bearer ${token}` } }];
    const p99 = { none: [] as number[], hang: [] as number[], refused: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['none', 'hang', 'refused'] as const) {
        await db.query('truncate webhook_deliveries');
        if (mode !== 'none') await insertPending(db, mode === 'hang' ? hanging.url : refused, WAITING_EVENTS, WAITING_EVENTS);
        const result = await load({ url: service.url, requests, rate: RATE, seconds: 10 });
        const pending = await countWhere(db, 'PENDING');
        log(`webhooks: /users/me with ${mode} waiting: p99 ${result.p99} ms, p50 ${result.p50} ms, ${result.rps.toFixed(0)} req/s (${pending} pending after)`);
        p99[mode].push(result.p99);
      }
    }
    const none = median(p99.none);
    return (['hang', 'refused'] as const).map((mode) => {
      const value = median(p99[mode]);
      const ratio = value / none;
      return {
        case: `webhooks: REST GET /users/me p99 at ${RATE} req/s, ${WAITING_EVENTS.toLocaleString('en')} events waiting for a receiver that ${mode === 'hang' ? 'never answers' : 'refuses connections'} vs none`,
        p99: value,
        ratio,
        value: `p99 ${value} ms vs ${none} ms with none waiting (median of ${ROUNDS} rounds of 10 s)`,
        target: 'within 10%',
        pass: ratio <= 1.1,
      };
    });
  } finally {
    await db.end();
    await service.stop();
    await hanging.close();
  }
}
