// API.md 9.4 under load: two instances of the built service (processes of their own) behind the
// run's pgbouncer in transaction mode, 60 connections of sign-ins, send-codes and reads over both
// transports for 5 s on loopback, and not one failed request. Before DATABASE_POOL_MODE=transaction,
// 70% of `GET /users/me` failed behind the same pooler under 20 connections (named statements).
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOOD_PASSWORD } from '../helpers/factories.js';
import { sleep } from '../helpers/wait.js';
import { outboxCode, serviceProcessEnv, signInByOutbox, startService, type ServiceProcess } from '../operability/support.js';
import { behindPoolerEnv, describeBehindPooler, freshDatabase } from './support.js';

const CONNECTIONS_PER_INSTANCE = 30;
const SECONDS = 5;

interface Instance {
  service: ServiceProcess;
  dataDir: string;
  outbox: string;
}

describeBehindPooler('two instances behind pgbouncer in transaction mode, under load', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const instances: Instance[] = [];

  beforeAll(async () => {
    database = await freshDatabase('pooler_load');
    // Started together on a fresh database: they migrate it (directly) once between them.
    const started = await Promise.all(
      [0, 1].map(async () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-pooler-load-'));
        const outbox = join(dataDir, 'sms.jsonl');
        const env = serviceProcessEnv(dataDir, {
          ...behindPoolerEnv(database.url),
          // 40 client connections for pgbouncer's 20 server connections (default_pool_size): shared.
          DATABASE_POOL_SIZE: '20',
          SMS_PROVIDER: 'file',
          SMS_OUTBOX_FILE: outbox,
          LOG_LEVEL: 'warn',
          BCRYPT_COST: '4',
          // Every request comes from 127.0.0.1, and concurrent correct passwords reserve failure slots for a moment.
          SEND_CODE_PER_IP_HOURLY: '1000000',
          SMS_MIN_CONVERSION: '0',
          LOGIN_FAILURES_PER_PHONE_IP: '1000000',
          LOGIN_FAILURES_PER_IP_DAILY: '1000000',
        });
        return { service: await startService(env, 30_000), dataDir, outbox };
      }),
    );
    instances.push(...started);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(instances.map(async ({ service, dataDir }) => {
      await service.kill();
      await rm(dataDir, { recursive: true, force: true });
    }));
    await database?.drop();
  });

  it(`serve ${2 * CONNECTIONS_PER_INSTANCE} connections of sign-ins, send-codes and reads for ${SECONDS} s without one failed request, then stop cleanly`, async () => {
    let phones = 0;
    const phone = () => `+86139${String(10_000_000 + phones++).slice(-8)}`;
    const loads = await Promise.all(
      instances.map(async ({ service, outbox }) => {
        const tokens = [await signInByOutbox(service.url, outbox, phone()), await signInByOutbox(service.url, outbox, phone())].map((s) => s.accessToken);
        const owner = await register(service.url, outbox, phone());
        return loadOf(service.url, tokens, owner, phone);
      }),
    );
    for (const load of loads) {
      expect(load.failures).toEqual({ non2xx: 0, errors: 0, timeouts: 0, unexpectedBodies: 0, firstUnexpected: '' });
      for (const count of Object.values(load.answered)) expect(count).toBeGreaterThan(10);
    }
    // SIGTERM: each drains and exits 0, its database connections closed through the pooler. The load
    // generator left with requests in flight (password sign-ins in bcrypt): they finish first, as the
    // drain waits for connections, not for the work of requests whose client has gone.
    await sleep(1_000);
    for (const { service } of instances) service.child.kill('SIGTERM');
    expect(await Promise.all(instances.map(({ service }) => service.exited))).toEqual([{ code: 0, signal: null }, { code: 0, signal: null }]);
  }, 60_000);
});

/** An account with GOOD_PASSWORD, registered by SMS code; its phone. */
async function register(url: string, outbox: string, phone: string): Promise<string> {
  const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await post('/api/v1/auth/send-code', { phone, purpose: 'register' })).status).toBe(200);
  const code = await outboxCode(outbox, phone, 'register');
  expect((await post('/api/v1/auth/register', { phone, code, password: GOOD_PASSWORD })).status).toBe(201);
  return phone;
}

/**
 * CONNECTIONS_PER_INSTANCE connections to `url` for SECONDS, each sending in turn: REST /users/me,
 * GraphQL { me }, a send-code for a new phone (a transaction of five statements) and a password
 * sign-in (bcrypt, then a transaction writing the session, its refresh token and the login count).
 */
async function loadOf(url: string, tokens: string[], owner: string, phone: () => string) {
  let next = 0;
  const token = () => ({ authorization: `Bearer ${tokens[next++ % tokens.length]}` });
  const json = { 'content-type': 'application/json' };
  const answered = { me: 0, graphql: 0, sendCode: 0, password: 0 };
  const failures = { unexpectedBodies: 0, firstUnexpected: '' };
  const expectBody = (kind: keyof typeof answered, ok: (body: string) => boolean) => (_status: number, body: string) => {
    answered[kind] += 1;
    if (ok(body)) return;
    failures.unexpectedBodies += 1;
    failures.firstUnexpected ||= body.slice(0, 300);
  };
  const requests: autocannon.Request[] = [
    { method: 'GET', path: '/api/v1/users/me', setupRequest: (req) => ({ ...req, headers: token() }), onResponse: expectBody('me', (b) => b.includes('"phone":"+86')) },
    {
      method: 'POST',
      path: '/graphql',
      body: JSON.stringify({ query: '{ me { id } }' }),
      setupRequest: (req) => ({ ...req, headers: { ...json, ...token() } }),
      onResponse: expectBody('graphql', (b) => b.startsWith('{"data":{"me":{"id":"')),
    },
    {
      method: 'POST',
      path: '/api/v1/auth/send-code',
      headers: json,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ phone: phone() }) }),
      onResponse: expectBody('sendCode', (b) => b.includes('"expiresIn"')),
    },
    {
      method: 'POST',
      path: '/api/v1/auth/login-password',
      headers: json,
      body: JSON.stringify({ phone: owner, password: GOOD_PASSWORD }),
      onResponse: expectBody('password', (b) => b.includes('"accessToken"')),
    },
  ];
  const result = await autocannon({ url, connections: CONNECTIONS_PER_INSTANCE, duration: SECONDS, requests, timeout: 20 });
  return { answered, failures: { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, ...failures } };
}
