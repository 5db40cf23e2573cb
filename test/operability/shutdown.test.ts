// Issue 7, parts 5 and 6: the real service process. SIGTERM while an upload and password logins are
// in flight: new connections are refused, readiness is 503, what is in flight completes with 200,
// and the process exits 0. The start-up summary names the URL, the database (password masked), the
// SMS provider and the avatar storage. A bad configuration stops start-up with every bad key listed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { GOOD_PASSWORD } from '../helpers/factories.js';
import { newPhone, TEST_JWT_SECRET } from '../helpers/server.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { freePort, freshRateLimits, runService, startService, within, type ServiceProcess } from './support.js';

const DB_PASSWORD = 'pw-that-must-not-show-4411';
let dir: string;
let service: ServiceProcess | undefined;
let port: number;
let metricsPort: number;
let databaseUrl: URL;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-shutdown-'));
  databaseUrl = new URL(process.env.TEST_WORKER_DATABASE_URL!);
  databaseUrl.password = DB_PASSWORD; // the test database trusts local connections: the password is only shown, or not
});
afterEach(async () => {
  await service?.kill();
  service = undefined;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts the real service on a port of its own, as a development deployment with the file SMS provider. */
async function startOwnService(): Promise<ServiceProcess> {
  port = await freePort();
  metricsPort = await freePort();
  service = await startService({
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl.toString(),
    DATA_DIR: join(dir, 'data'),
    JWT_SECRET: TEST_JWT_SECRET,
    SMS_PROVIDER: 'file',
    SMS_OUTBOX_FILE: join(dir, 'sms.jsonl'),
    BCRYPT_COST: '12',
    // One hashing thread: four logins take four bcrypt rounds one after the other (~0.3 s each).
    PASSWORD_HASH_THREADS: '1',
  }, 30_000);
  return service;
}

/** Runs `work` with a connection of its own to the service's database. */
async function withDatabase<T>(work: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: process.env.TEST_WORKER_DATABASE_URL });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** The password sign-ins of `phone` the service has admitted and is still comparing (its in-flight counter). */
async function loginsInFlight(db: pg.Client, phone: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select coalesce(sum(count), 0)::int as n from rate_limits where key like 'login-fail:phone-ip:' || $1::text || ':%:in-flight' and reset_at > now()`,
    [phone],
  );
  return rows[0]!.n;
}

/** Uploads being staged in the service's DATA_DIR/tmp. */
const stagedUploads = async () => (await readdir(join(dir, 'data', 'tmp')).catch(() => [])).filter((name) => name.startsWith('upload-'));

interface Answer {
  status: number;
  body: any;
  at: number;
}

/** One request on a connection of its own. */
function call(path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`http://127.0.0.1:${port}${path}`, { method: body ? 'POST' : 'GET', agent: false, headers });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text, at: Date.now() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(path, { 'content-type': 'application/json', ...headers }, Buffer.from(JSON.stringify(body)));

/** Resolves with the error code of a refused (or dropped) connection, or 'connected'. */
function tryConnect(): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

/** A multipart avatar body in `parts` pieces. */
async function avatarBody(parts: number): Promise<{ chunks: Buffer[]; contentType: string }> {
  const image = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#468' } }).png().toBuffer();
  const boundary = 'shutdown-test-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    image,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const size = Math.ceil(body.length / parts);
  const chunks = Array.from({ length: parts }, (_, i) => body.subarray(i * size, (i + 1) * size)).filter((c) => c.length > 0);
  return { chunks, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The responses read off one connection, in order (Content-Length bodies only). */
function responses(raw: Buffer): { status: number; body: any }[] {
  const answers: { status: number; body: any }[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const head = rest.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
    if (!Number.isFinite(length)) throw new Error(`a response without Content-Length: ${head}`);
    const body = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    answers.push({ status: Number(head.split(' ')[1]), body: body.startsWith('{') ? JSON.parse(body) : body });
    rest = rest.subarray(end + 4 + length);
  }
  return answers;
}

/**
 * A slow upload on a connection of its own (body `chunks` written `gapMs` apart), followed on the
 * same connection by a pipelined GET /readyz: a new request on an existing connection.
 */
function slowUploadThenReadyz(token: string, chunks: Buffer[], contentType: string, gapMs: number): Promise<{ status: number; body: any }[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(responses(Buffer.concat(received))));
    socket.once('connect', async () => {
      const length = chunks.reduce((n, c) => n + c.length, 0);
      socket.write(
        `POST /api/v1/users/me/avatar HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`,
      );
      for (const chunk of chunks.slice(0, -1)) {
        socket.write(chunk);
        // Part of what is tested: the gaps keep the upload in flight for about a second.
        await sleep(gapMs);
      }
      // Pipelined with the end of the body, so it is queued before the upload's answer goes out.
      socket.write(Buffer.concat([chunks.at(-1)!, Buffer.from(`GET /readyz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)]));
    });
  });
}

describe('SIGTERM', () => {
  it('refuses new connections, finishes the in-flight upload and logins with 200, and exits 0 within 10 s', async () => {
    const running = await startOwnService();
    const outbox = join(dir, 'sms.jsonl');
    await freshRateLimits();

    const phone = newPhone();
    expect((await json('/api/v1/auth/send-code', { phone, purpose: 'register' })).status).toBe(200);
    const code = JSON.parse((await readFile(outbox, 'utf8')).trim().split('\n').at(-1)!).code;
    const registered = await json('/api/v1/auth/register', { phone, code, password: GOOD_PASSWORD });
    expect(registered.status).toBe(201);
    const token = registered.body.accessToken as string;
    expect((await call('/readyz', {})).status).toBe(200);

    // In flight: an upload sent over ~1 s, and four password logins queued on one hashing thread.
    const { chunks, contentType } = await avatarBody(11);
    const upload = slowUploadThenReadyz(token, chunks, contentType, 100);
    const logins = Array.from({ length: 4 }, () => json('/api/v1/auth/login-password', { phone, password: GOOD_PASSWORD }));
    // Until the service has the upload streaming to disk and all four logins admitted to hashing;
    // the logins then still have about a second of hashing ahead.
    let inFlight = { staged: 0, logins: 0 };
    const ready = await withDatabase((db) =>
      waitFor(async () => {
        inFlight = { staged: (await stagedUploads()).length, logins: await loginsInFlight(db, phone) };
        return inFlight.staged === 1 && inFlight.logins === 4;
      }, 5_000, 10),
    );
    expect({ ready, ...inFlight }).toEqual({ ready: true, staged: 1, logins: 4 });

    const sigterm = Date.now();
    running.child.kill('SIGTERM');
    // The listener closes: a new connection (as a readiness probe would open) is then refused.
    expect(await waitFor(async () => (await tryConnect()) === 'ECONNREFUSED', 5_000, 10)).toBe(true);
    const probe = await call('/readyz', {}).then((a) => String(a.status), (error: NodeJS.ErrnoException) => error.code);
    expect(probe).toBe('ECONNREFUSED');

    const [[uploaded, readiness, ...more], ...signedIn] = await Promise.all([upload, ...logins]);
    expect(more).toEqual([]);
    expect(uploaded!.status).toBe(200);
    expect(uploaded!.body.avatarUrl).toMatch(/^\/api\/v1\/avatars\/[0-9a-f]{32}\.webp$/);
    // The request that came after SIGTERM on the upload's connection: not ready.
    expect({ status: readiness!.status, code: readiness!.body.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(signedIn.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const answer of signedIn) expect(answer.body.tokenType).toBe('Bearer');
    // Hashing is serial: at least the last logins were still running when SIGTERM came.
    expect(Math.max(...signedIn.map((a) => a.at))).toBeGreaterThan(sigterm);

    const exit = await within(running.exited, 10_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - sigterm).toBeLessThan(10_000);
    expect(await tryConnect()).toBe('ECONNREFUSED');
    expect(running.stderr()).toBe('');
  }, 45_000);

  it('prints a start-up summary: URL, GraphQL sandbox, database without its password, SMS provider, avatar storage, metrics', async () => {
    const out = (await startOwnService()).stdout();
    const base = `http://127.0.0.1:${port}`;
    expect(out).toContain(`listening on ${base}`);
    expect(out).toContain(`${base}/graphql`);
    expect(out).toMatch(/Sandbox/);
    const masked = new URL(databaseUrl.toString());
    masked.password = '***';
    expect(out).toContain(`PostgreSQL ${masked.toString()}`);
    expect(out).toMatch(/Database: +PostgreSQL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\//);
    expect(out).not.toContain(DB_PASSWORD);
    expect(out).toMatch(/SMS codes: file provider -> .*sms\.jsonl/);
    expect(out).toContain(`Avatars:   local disk ${join(dir, 'data', 'avatars')}`);
    expect(out).toContain(`Metrics:   http://127.0.0.1:${metricsPort}/metrics`);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
  });
});

describe('start-up with a bad configuration', () => {
  it('exits non-zero naming every bad key (PORT=abc, production without JWT_SECRET) and listens on nothing', async () => {
    const proc = runService({ NODE_ENV: 'production', PORT: 'abc', DATABASE_URL: databaseUrl.toString() });
    const exit = await within(proc.exited, 15_000);
    await proc.kill();
    expect(exit).toEqual({ code: 1, signal: null });
    const message = proc.stderr();
    expect(message).toMatch(/^Invalid configuration:/);
    expect(message).toMatch(/^\s+- PORT: /m);
    expect(message).toMatch(/^\s+- JWT_SECRET: required when NODE_ENV=production/m);
    expect(message).not.toMatch(/\bat\s+\S+:\d+|node_modules/);
    expect(message).not.toContain(DB_PASSWORD);
    expect(proc.stdout()).not.toContain('listening');
  }, 20_000);

  it('exits non-zero, saying so, when METRICS_PORT is taken, and leaves the public port free', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const takenPort = (taken.address() as AddressInfo).port;
    const publicPort = await freePort();
    try {
      const proc = runService(
        {
          NODE_ENV: 'development',
          HOST: '127.0.0.1',
          PORT: String(publicPort),
          METRICS_PORT: String(takenPort),
          DATABASE_URL: databaseUrl.toString(),
          DATA_DIR: join(dir, 'data'),
          JWT_SECRET: TEST_JWT_SECRET,
          LOG_LEVEL: 'warn',
        },
      );
      const exit = await within(proc.exited, 20_000);
      await proc.kill();
      expect(exit).toEqual({ code: 1, signal: null });
      expect(proc.stderr()).toContain(`the metrics listener (METRICS_PORT=${takenPort}) could not start: listen EADDRINUSE`);
      expect(proc.stdout()).not.toContain('listening');
      const probe = createServer().listen(publicPort, '127.0.0.1');
      await once(probe, 'listening');
      probe.close();
    } finally {
      taken.close();
    }
  }, 30_000);

  it('names a secret that is too short without printing it', async () => {
    const secret = 'too-short-secret';
    const proc = runService({ NODE_ENV: 'production', JWT_SECRET: secret, SMS_PROVIDER: 'console' });
    const exit = await within(proc.exited, 15_000);
    await proc.kill();
    expect(exit).toEqual({ code: 1, signal: null });
    expect(proc.stderr()).toMatch(/- JWT_SECRET: must be at least 32 characters/);
    expect(proc.stderr()).not.toContain(secret);
  }, 20_000);
});
