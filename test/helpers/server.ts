import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';
import { pino } from 'pino';
import { HttpClient } from './http.js';
import { testServerLogger } from './suite-log.js';
import { TEST_JWT_SECRET } from './tokens.js';

export { TEST_JWT_SECRET } from './tokens.js';
/** 32 bytes as hex: the key of the stored TOTP secrets, required in production. */
export const TEST_MFA_ENCRYPTION_KEY = '0f'.repeat(32);

export interface TestServer {
  url: string;
  /** The server's DATA_DIR: avatars under avatars/, uploads in flight under tmp/. */
  dataDir: string;
  http: HttpClient;
  server: RunningServer;
  /** The last SMS code sent to `phone` for `purpose`, read from the file provider's outbox. */
  codeFor(phone: string, purpose?: string): Promise<string>;
  /** Every log line the server wrote, when started with `{ captureLogs: true }`. */
  logs(): string;
  /** Every SMS sent, oldest first. */
  outbox(): Promise<{ phone: string; code: string; purpose: string; locale: string; text: string; sentAt: string }[]>;
  /** Empties every table but the security events, and the outbox; call before each test. */
  reset(): Promise<void>;
  sql<T extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** Keep every log line, for `logs()`. */
  captureLogs?: boolean;
  /** False: POST /graphql through Express like every other request (the service's StartOptions.fastPaths). */
  fastPaths?: boolean;
  /**
   * The tests of this server provoke faults of the service on purpose (a table renamed away, a
   * provider that fails): its error-level log lines are expected. Those of every other server fail
   * the suite (test/global-teardown.mjs), as client input must never cause one.
   */
  expectFaults?: boolean;
  /** Told of every webhook try, as a metric would be. */
  onWebhookDelivery?: StartOptions['onWebhookDelivery'];
}

/**
 * Starts the real service (Express + Apollo) on a random loopback port against this worker's
 * PostgreSQL database, with the file SMS provider. `env` overrides any configuration variable.
 */
export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-server-'));
  const outboxFile = join(dir, 'sms.jsonl');
  const config = loadConfig(behindPooler({
    NODE_ENV: 'test',
    DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
    DATABASE_POOL_SIZE: process.env.TEST_EMBEDDED_DATABASE ? '1' : '5',
    // Every connection to the runner's embedded database shares PGlite's one session.
    ...(process.env.TEST_EMBEDDED_DATABASE ? { DATABASE_PREPARED_STATEMENTS: 'false' } : {}),
    // Its servers share one process, as the embedded database's instances do: live events go through it
    // (PGlite's socket server is one session, which cannot carry a LISTEN of its own).
    ...(process.env.TEST_EMBEDDED_DATABASE ? { LIVE_EVENTS_TRANSPORT: 'process' } : {}),
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dir,
    JWT_SECRET: TEST_JWT_SECRET,
    MFA_ENCRYPTION_KEY: TEST_MFA_ENCRYPTION_KEY,
    SMS_PROVIDER: 'file',
    SMS_OUTBOX_FILE: outboxFile,
    // Cost 4 keeps the suite fast; the default of 12 is checked by a unit test of the configuration.
    BCRYPT_COST: '4',
    PASSWORD_HASH_THREADS: '2',
    // Whatever NODE_ENV a test picks: many servers share the process, none listens for metrics unless asked.
    METRICS_PORT: 'off',
    ...env,
  }));
  const captured: string[] = [];
  const logger = testServerLogger(
    options.captureLogs
      ? { level: 'trace', stream: { write: (line: string) => void captured.push(line) } }
      : process.env.TEST_LOG_LEVEL
        ? { level: process.env.TEST_LOG_LEVEL, stream: pino.destination({ dest: 1, sync: true }) }
        : undefined,
    options.expectFaults ?? false,
  );
  const server = await startServer(config, logger, { onWebhookDelivery: options.onWebhookDelivery, fastPaths: options.fastPaths }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const outbox = async () => {
    const text = await readFile(outboxFile, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { phone: string; code: string; purpose: string; locale: string; text: string; sentAt: string });
  };
  return {
    url: server.url,
    dataDir: dir,
    http: new HttpClient(server.url),
    server,
    outbox,
    logs: () => captured.join(''),
    async codeFor(phone, purpose = 'login') {
      const message = (await outbox()).reverse().find((m) => m.phone === phone && m.purpose === purpose);
      if (!message) throw new Error(`no ${purpose} code was sent to ${phone}`);
      return message.code;
    },
    async reset() {
      // Users are deleted, not truncated: their security events stay (user nulled, as after an
      // account deletion), so that test/global-teardown.mjs can search every event of the suite.
      await server.db.rows('truncate sessions, refresh_tokens, verification_codes, rate_limits, webhook_deliveries, webauthn_challenges cascade');
      await server.db.rows('delete from users');
      await writeFile(outboxFile, '');
    },
    sql: (text, values) => server.db.rows(text, values),
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * With TEST_DATABASE_POOL_MODE=transaction (the pooler pass of npm test), a test server reaches its
 * database through the run's PgBouncer in transaction mode and migrates directly, unless the test
 * says how it connects (DATABASE_POOL_MODE in its env).
 */
function behindPooler(vars: Record<string, string>): Record<string, string> {
  if (process.env.TEST_DATABASE_POOL_MODE !== 'transaction' || process.env.TEST_EMBEDDED_DATABASE || 'DATABASE_POOL_MODE' in vars) return vars;
  const port = process.env.TEST_PGBOUNCER_PORT;
  if (!port) throw new Error('TEST_DATABASE_POOL_MODE=transaction needs the PgBouncer that npm test starts (TEST_PGBOUNCER_PORT)');
  const direct = vars.DATABASE_URL!;
  return { ...vars, DATABASE_URL: throughPooler(direct, Number(port)), DATABASE_DIRECT_URL: direct, DATABASE_POOL_MODE: 'transaction' };
}

/** `url` with the host and port of the PgBouncer on 127.0.0.1:`port`, which passes every database on. */
export function throughPooler(url: string, port: number): string {
  return Object.assign(new URL(url), { host: `127.0.0.1:${port}` }).toString();
}

/**
 * The test server of the enclosing describe block (or file): started before its tests with `env`
 * (a function when it needs something known only once earlier hooks ran, such as a fake's port),
 * reset before each test, stopped after the last. The handle stands for the server once started.
 * Servers share this worker's database: a second one's reset empties the first one's tables too.
 * With `NODE_ENV` in `env`, process.env.NODE_ENV says the same while the server starts, as the
 * libraries that read it there (Apollo, Express) would see it in that environment.
 */
export function useTestServer(env: Record<string, string> | (() => Record<string, string>) = {}, options: TestServerOptions = {}): TestServer {
  let current: TestServer | undefined;
  beforeAll(async () => {
    const vars = typeof env === 'function' ? env() : env;
    const saved = process.env.NODE_ENV;
    if (vars.NODE_ENV) process.env.NODE_ENV = vars.NODE_ENV;
    try {
      current = await startTestServer(vars, options);
    } finally {
      process.env.NODE_ENV = saved;
    }
  });
  afterAll(async () => {
    await current?.stop();
    current = undefined;
  });
  beforeEach(() => started().reset());
  const started = (): TestServer => {
    if (!current) throw new Error('the test server runs from beforeAll to afterAll of the block that called useTestServer');
    return current;
  };
  return {
    get url() {
      return started().url;
    },
    get dataDir() {
      return started().dataDir;
    },
    get http() {
      return started().http;
    },
    get server() {
      return started().server;
    },
    codeFor: (phone, purpose) => started().codeFor(phone, purpose),
    logs: () => started().logs(),
    outbox: () => started().outbox(),
    reset: () => started().reset(),
    sql: (text, values) => started().sql(text, values),
    stop: () => started().stop(),
  };
}

let phoneCounter = 0;
/** A valid, unique Chinese mobile number in E.164 for each call within a test file. */
export function newPhone(): string {
  phoneCounter += 1;
  const suffix = (Number.parseInt(randomBytes(2).toString('hex'), 16) * 1000 + phoneCounter).toString().padStart(8, '0').slice(-8);
  return `+86138${suffix}`;
}
