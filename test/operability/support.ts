// Shared helpers of the operability suite (not a test file): a fake SMS provider, free ports, timing.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalServer } from '../helpers/local-server.js';
import { TEST_JWT_SECRET, TEST_MFA_ENCRYPTION_KEY } from '../helpers/server.js';
import { serviceOutputLog } from '../helpers/suite-log.js';
import { waitFor } from '../helpers/wait.js';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Node 24 of the `node` dev dependency, which the service and its command-line tools run on (not whatever `node` is on PATH). */
const NODE = existsSync(join(ROOT, 'node_modules/.bin/node')) ? join(ROOT, 'node_modules/.bin/node') : process.execPath;
const MAIN = join(ROOT, 'dist/src/main.js');

export interface CapturedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * How the fake provider treats the next requests: `ok` answers 201 (as Twilio does), `error` 500,
 * `hang` never answers, `reset` drops the connection without answering (new connections at once).
 */
export type FakeMode = 'ok' | 'error' | 'hang' | 'reset';

/** An HTTP server on 127.0.0.1 standing in for Twilio or a webhook receiver; it records every request. */
export class FakeSmsServer extends LocalServer {
  mode: FakeMode = 'ok';
  readonly requests: CapturedRequest[] = [];
  /** Connections dropped in `reset` mode (each one a delivery attempt). */
  resets = 0;

  protected onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (this.mode === 'reset') {
      // A request on a kept-alive connection: dropped as well.
      this.resets += 1;
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (this.mode === 'hang') {
        this.hanging.add(res);
        return;
      }
      const status = this.mode === 'error' ? 500 : 201;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status === 201 ? { sid: 'SM1', status: 'queued' } : { message: 'boom' }));
    });
  }

  protected override accepts(): boolean {
    if (this.mode !== 'reset') return true;
    this.resets += 1;
    return false;
  }

  clear(): void {
    this.requests.length = 0;
    this.resets = 0;
    this.mode = 'ok';
  }
}

/** A TCP port that was free a moment ago (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}


/** `promise`'s value, or 'timeout' when it takes longer than `ms` (the timer does not outlive it). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `work` and returns its result with the milliseconds it took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await work();
  return { result, ms: performance.now() - start };
}

/** The six-digit code in an SMS text. */
export function codeIn(text: string): string {
  const match = /\b(\d{6})\b/.exec(text);
  if (!match) throw new Error(`no code in ${JSON.stringify(text)}`);
  return match[1]!;
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the process if it still runs; resolves once it is gone. */
  kill(): Promise<void>;
}

/**
 * On the test runner's embedded database every connection shares PGlite's one session, where the
 * named prepared statements of two services would collide: a service started there goes without.
 */
export const EMBEDDED_DATABASE_ENV: Record<string, string> = process.env.TEST_EMBEDDED_DATABASE ? { DATABASE_PREPARED_STATEMENTS: 'false' } : {};

export interface ServiceOptions {
  /** The test provokes faults of the service (its database stopped, say): its error-level log lines are expected. */
  expectFaults?: boolean;
}

/**
 * Runs `node dist/src/main.js` with exactly `env` (plus PATH, and METRICS_PORT=off unless `env` sets
 * it: services of several test files run at once); collects its output, and hands its
 * warn and error lines to the suite's log (test/helpers/suite-log.ts).
 */
export function runService(env: Record<string, string>, options: ServiceOptions = {}): Omit<ServiceProcess, 'url'> {
  const child = spawn(NODE, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...EMBEDDED_DATABASE_ENV, METRICS_PORT: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const log = serviceOutputLog(options.expectFaults ?? false);
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    out += text;
    log(text);
  });
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async kill() {
      if (!done) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Empties the rate-limit counters of the test database. Every request of the suite comes from
 * 127.0.0.1: a service started with the default limits, after tests that sent codes, would find the
 * address's hourly quota spent (the in-process test servers empty them on each reset for the same reason).
 */
export async function freshRateLimits(): Promise<void> {
  const db = new pg.Client({ connectionString: process.env.TEST_WORKER_DATABASE_URL });
  await db.connect();
  await db.query('delete from rate_limits').finally(() => db.end());
}

/**
 * The environment of a service process a test spawns: test mode on a free loopback port, the test
 * worker's database, the test secret, `dataDir`, codes printed to standard output; `env` adds or overrides.
 */
export function serviceProcessEnv(dataDir: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    MFA_ENCRYPTION_KEY: TEST_MFA_ENCRYPTION_KEY,
    SMS_PROVIDER: 'console',
    ...env,
  };
}

/** Starts the real service and waits (up to `ms`) for its start-up summary. */
export async function startService(env: Record<string, string>, ms = 15_000, options: ServiceOptions = {}): Promise<ServiceProcess> {
  const proc = runService(env, options);
  let exited = false;
  void proc.exited.then(() => (exited = true));
  const up = await waitFor(() => exited || /listening on http:\/\/\S+/.test(proc.stdout()), ms, 25);
  const url = /listening on (http:\/\/\S+)/.exec(proc.stdout())?.[1];
  if (!up || !url) {
    await proc.kill();
    throw new Error(`the service did not start:\n${proc.stdout()}\n${proc.stderr()}`);
  }
  return { ...proc, url };
}

/** Signs in by SMS code against a running service whose SMS provider is `file` (outbox `outboxFile`). */
export async function signInByOutbox(url: string, outboxFile: string, phone: string): Promise<{ accessToken: string; userId: string }> {
  const sent = await fetch(`${url}/api/v1/auth/send-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone, purpose: 'login' }),
  });
  if (sent.status !== 200) throw new Error(`send-code: ${sent.status} ${await sent.text()}`);
  const code = await outboxCode(outboxFile, phone);
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone, code }),
  });
  const body = (await login.json()) as any;
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(body)}`);
  return { accessToken: body.accessToken, userId: body.user.id };
}

/** The last code the file SMS provider wrote to `outboxFile` for `phone` (and `purpose`, when given). */
export async function outboxCode(outboxFile: string, phone: string, purpose?: string): Promise<string> {
  const lines = (await readFile(outboxFile, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { phone: string; code: string; purpose: string });
  const message = lines.reverse().find((m) => m.phone === phone && (purpose === undefined || m.purpose === purpose));
  if (!message) throw new Error(`no ${purpose ?? ''} code in ${outboxFile} for ${phone}`);
  return message.code;
}

/** What a script run by runScript did: its exit code and output. */
export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/<script>` with `args` and exactly `env`, to its exit. Its log goes to standard
 * error: warn and error lines join the suite's log, which fails on errors.
 */
export function runScript(script: string, args: string[], env: Record<string, string>): Promise<ScriptRun> {
  const child = spawn(NODE, [join(ROOT, 'dist', script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const log = serviceOutputLog(false);
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    log(chunk.toString('utf8'));
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
