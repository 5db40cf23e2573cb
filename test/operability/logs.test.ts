// Issue 7, part 3: request-scoped logs. Every line written while a request runs carries its id (the
// X-Request-Id header, the requestId of error bodies); one access-log line per request, with the
// path only; LOG_LEVEL, checked on the real service process (the test helper brings its own logger).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, TEST_JWT_SECRET, type TestServer, useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { waitFor } from '../helpers/wait.js';
import { FakeSmsServer, startService } from './support.js';

interface LogLine {
  level: number;
  msg?: string;
  requestId?: string;
  reqId?: string;
  req?: { method: string; path: string };
  res?: { status: number };
  responseTime?: number;
  aborted?: boolean;
  raw: string;
}

const fake = new FakeSmsServer();
beforeAll(() => fake.up());
const serverEnv = () => ({ SMS_PROVIDER: 'webhook', SMS_WEBHOOK_URL: fake.url, SMS_WEBHOOK_SECRET: 'x'.repeat(32), SEND_CODE_PER_IP_HOURLY: '1000' });
const t = useTestServer(serverEnv, { captureLogs: true });
afterAll(() => fake.down());
beforeEach(() => fake.clear());

const parse = (text: string): LogLine[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((raw) => ({ ...JSON.parse(raw), raw }));

/** The log lines `server` writes from now on. */
function logsFromNow(server: TestServer = t): () => LogLine[] {
  const offset = server.logs().length;
  return () => parse(server.logs().slice(offset));
}

/** Every request id a raw line names (a key may appear twice: mixin and explicit field). */
const idsIn = (line: LogLine) => [...line.raw.matchAll(/"(?:requestId|reqId)":"([^"]*)"/g)].map((m) => m[1]);
const isAccessLine = (line: LogLine) => line.res !== undefined && line.responseTime !== undefined;
const idOf = (res: HttpResult) => res.headers.get('x-request-id')!;

/** Signs a new user in with the code the webhook fake received. */
async function signIn(): Promise<any> {
  const phone = newPhone();
  expect((await t.http.post('/api/v1/auth/send-code', { phone })).status).toBe(200);
  const code = JSON.parse(fake.requests.at(-1)!.body).code as string;
  const login = await t.http.post('/api/v1/auth/login', { phone, code });
  expect(login.status).toBe(200);
  return login.body;
}

const SEND_CODE_GQL = 'mutation($p: String!) { sendCode(input: { phone: $p }) { expiresIn } }';

describe('request ids in logs', () => {
  it('writes one access-log line per request, with the X-Request-Id, the path without query string and no Authorization', async () => {
    const token = (await signIn()).accessToken as string;

    const logs = logsFromNow();
    const me = await t.http.get('/api/v1/users/me?access_token=query-secret-123&lang=en', { token });
    const missing = await t.http.get('/api/v1/nowhere?q=query-secret-456', { token });
    const gql = await t.http.post('/graphql?op=me', { query: '{ me { id } }' }, { token });
    expect([me.status, missing.status, gql.status]).toEqual([200, 404, 200]);

    const lines = logs();
    for (const [res, path, status, level] of [
      [me, '/api/v1/users/me', 200, 30],
      [missing, '/api/v1/nowhere', 404, 40],
      [gql, '/graphql', 200, 30],
    ] as const) {
      const id = idOf(res);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const access = lines.filter((line) => isAccessLine(line) && idsIn(line).includes(id));
      expect(access).toHaveLength(1);
      expect(access[0]).toMatchObject({ requestId: id, level, req: { path }, res: { status } });
      expect(new Set(idsIn(access[0]!))).toEqual(new Set([id]));
    }
    const text = lines.map((line) => line.raw).join('\n');
    expect(text).not.toMatch(/query-secret|access_token|lang=en|\?q=|op=me/);
    expect(text).not.toMatch(/authorization|bearer/i);
    expect(text).not.toContain(token.split('.')[2]!);
  });

  it('logs a request whose connection closed before the answer once, as aborted, and goes on answering others', async () => {
    const logs = logsFromNow();
    // The server runs in this process: Node announces each request whose head it has parsed.
    const started: string[] = [];
    const onStart = (message: unknown) => void started.push((message as { request: IncomingMessage }).request.url!);
    subscribe('http.server.request.start', onStart);
    const socket = connect(new URL(t.url).port as unknown as number, '127.0.0.1');
    try {
      await once(socket, 'connect');
      // Headers and the start of a body that never comes: the request is in flight, its body unread.
      socket.write(
        'POST /api/v1/auth/send-code?phone=secret HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"phone":',
      );
      expect(await waitFor(() => started.includes('/api/v1/auth/send-code?phone=secret'), 5_000, 10)).toBe(true);
    } finally {
      unsubscribe('http.server.request.start', onStart);
      socket.destroy();
    }
    const aborted = () => logs().filter((line) => isAccessLine(line) && line.req?.path === '/api/v1/auth/send-code');
    expect(await waitFor(() => aborted().length > 0, 5_000, 20)).toBe(true);
    // Only a second line can prove the "once" wrong: watch a while for one, ending early if it comes.
    expect(await waitFor(() => aborted().length > 1, 200, 20)).toBe(false);
    const lines = aborted();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, aborted: true, req: { method: 'POST', path: '/api/v1/auth/send-code' } });
    expect(lines[0]!.msg).toMatch(/aborted/);
    expect(lines[0]!.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.http.get('/api/v1/auth/config')).status).toBe(200);
  });

  describe('when the SMS provider fails', () => {
    // A server of its own, declared to provoke faults of the service (its SMS provider answers 500): its error-level log lines are expected.
    const t = useTestServer(serverEnv, { captureLogs: true, expectFaults: true });

    it('puts the request id of concurrent requests on every line they write, error lines included', async () => {
      fake.mode = 'error';
      const logs = logsFromNow(t);
      const results = await Promise.all([
        ...Array.from({ length: 6 }, () => t.http.post('/api/v1/auth/send-code', { phone: newPhone() })),
        ...Array.from({ length: 4 }, () => t.http.post('/graphql', { query: SEND_CODE_GQL, variables: { p: newPhone() } })),
        ...Array.from({ length: 5 }, () => t.http.get('/api/v1/auth/config')),
      ]);
      const rest = results.slice(0, 6);
      const graphql = results.slice(6, 10);
      const fine = results.slice(10);
      for (const res of rest) {
        const body = expectProblem(res, 502, 'SMS_DELIVERY_FAILED');
        expect(body.requestId).toBe(idOf(res));
      }
      for (const res of graphql) {
        expect(res.body.errors.map((e: any) => e.extensions)).toEqual([{ code: 'SMS_DELIVERY_FAILED', requestId: idOf(res) }]);
      }
      for (const res of fine) expect(res.status).toBe(200);

      const ids = results.map(idOf);
      expect(new Set(ids).size).toBe(results.length);
      const lines = logs();
      // Nothing else runs: every line written meanwhile belongs to one of these requests, and says which.
      expect(lines.length).toBeGreaterThanOrEqual(results.length + rest.length + graphql.length);
      for (const line of lines) {
        const named = new Set(idsIn(line));
        expect({ msg: line.msg, ids: named.size }).toEqual({ msg: line.msg, ids: 1 });
        expect(ids).toContain([...named][0]);
      }
      const of = (res: HttpResult) => lines.filter((line) => idsIn(line).includes(idOf(res)));
      for (const res of [...rest, ...graphql]) {
        const mine = of(res);
        expect(mine.filter(isAccessLine)).toHaveLength(1);
        // The failure itself is logged (level error) with the request id the client was given.
        expect(mine.some((line) => !isAccessLine(line) && line.level === 50 && /SMS|webhook|500/.test(line.raw))).toBe(true);
      }
      for (const res of fine) expect(of(res).map((line) => isAccessLine(line))).toEqual([true]);
    });
  });

  it('puts the request id on a warning written deep inside the request (previous avatar not deletable)', async () => {
    const session = await signIn();
    const upload = async (colour: string) => {
      const form = new FormData();
      const image = await sharp({ create: { width: 32, height: 32, channels: 3, background: colour } }).png().toBuffer();
      form.append('file', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'a.png');
      const res = await fetch(`${t.url}/api/v1/users/me/avatar`, { method: 'POST', headers: { authorization: `Bearer ${session.accessToken}` }, body: form });
      return { res, body: (await res.json()) as any };
    };
    const first = await upload('#a00');
    expect(first.res.status).toBe(200);
    // The stored file becomes a non-empty directory: deleting it fails after the new avatar is in place.
    const stored = join(t.dataDir, 'avatars', first.body.avatarUrl.split('/').pop());
    renameSync(stored, `${stored}.moved`);
    mkdirSync(stored);
    writeFileSync(join(stored, 'keep'), 'x');

    const logs = logsFromNow();
    const second = await upload('#0a0');
    expect(second.res.status).toBe(200);
    const id = second.res.headers.get('x-request-id')!;
    const warning = logs().filter((line) => line.msg === 'could not delete the previous avatar');
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatchObject({ level: 40, requestId: id });
    await rm(stored, { recursive: true, force: true });
  });
});

describe('LOG_LEVEL (real service process)', () => {
  it('warn drops access lines of successful requests and keeps warnings; silent writes no log line at all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-loglevel-'));
    const env = (level: string, sub: string) => ({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: level,
      DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
      DATA_DIR: join(dir, sub),
      JWT_SECRET: TEST_JWT_SECRET,
      SMS_PROVIDER: 'file',
      SMS_OUTBOX_FILE: join(dir, `${sub}.jsonl`),
    });
    const [warn, silent] = await Promise.all([startService(env('warn', 'warn')), startService(env('silent', 'silent'))]);
    try {
      const probe = async (url: string) => {
        const ok = await fetch(`${url}/api/v1/auth/config`);
        const missing = await fetch(`${url}/api/v1/nowhere?secret=1`);
        await Promise.all([ok.text(), missing.text()]);
        expect([ok.status, missing.status]).toEqual([200, 404]);
        return { ok: ok.headers.get('x-request-id')!, missing: missing.headers.get('x-request-id')! };
      };
      const warnIds = await probe(warn.url);
      await probe(silent.url);

      const jsonLines = (out: string) => parse(out.split('\n').filter((line) => line.startsWith('{')).join('\n'));
      // The 404 line comes last out of the warn process (lines are written in order): wait for it.
      expect(await waitFor(() => warn.stdout().includes(warnIds.missing), 5_000, 20)).toBe(true);
      // The silent process writes nothing to wait for: watch its output a while, ending early if a line comes.
      expect(await waitFor(() => jsonLines(silent.stdout()).length > 0, 200, 20)).toBe(false);
      const warnLines = jsonLines(warn.stdout());
      expect(warnLines.every((line) => line.level >= 40)).toBe(true);
      expect(warnLines.some((line) => line.raw.includes(warnIds.ok))).toBe(false);
      const notFound = warnLines.filter((line) => idsIn(line).includes(warnIds.missing));
      expect(notFound).toHaveLength(1);
      expect(notFound[0]).toMatchObject({ level: 40, requestId: warnIds.missing, req: { path: '/api/v1/nowhere' }, res: { status: 404 } });

      expect(jsonLines(silent.stdout())).toEqual([]);
      expect(silent.stdout()).toContain('listening on');
    } finally {
      await Promise.all([warn.kill(), silent.kill()]);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
