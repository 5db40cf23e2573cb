// `npm test`: runs the whole suite against DATABASE_URL, or, when it is unset, against an embedded
// PGlite database started here (one connection, so the suite then runs in one worker). Tests that
// need Redis get TEST_REDIS_URL, or a redis-server of their own started here on a free port. On
// PostgreSQL, a PgBouncer in transaction mode is started here too (TEST_PGBOUNCER_PORT) for
// test/pooler/, and after the whole suite passed, the pooler pass runs POOLER_PASS again with every
// test server behind it (TEST_DATABASE_POOL_MODE=transaction; test/helpers/server.ts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findPgBouncer, freePort, startPgBouncer } from './pgbouncer.mjs';

/**
 * The flows API.md 9.4 names, run again through the pooler: sign-in by code and password, MFA
 * (and the sign-ins it leaves half-finished), passkeys (and their step-up), external providers over
 * two instances, refresh rotation and reuse detection, the limits across two instances, concurrent
 * single-use races, webhook outbox claims, admin block, and instances migrating a database together;
 * phone changes applied by the janitor's job on another instance and their races for one number;
 * and the refresh grace window's races and the logout by refresh token (API.md 10.5) on two instances;
 * live events between two instances, their listener on DATABASE_DIRECT_URL killed and back (API.md 10.2).
 */
const POOLER_PASS = [
  'test/rest/login.test.ts',
  'test/rest/login-password.test.ts',
  'test/rest/refresh-logout.test.ts',
  'test/tokens/refresh-grace.test.ts',
  'test/tokens/logout-refresh-token.test.ts',
  'test/mfa/sign-in.test.ts',
  'test/mfa/instances.test.ts',
  'test/mfa/pending-sign-ins.test.ts',
  'test/passkeys/passkeys.test.ts',
  'test/passkeys/step-up.test.ts',
  'test/hardening/instances.test.ts',
  'test/identity/instances.test.ts',
  'test/races.test.ts',
  'test/webhooks/instances.test.ts',
  'test/admin/blocked.test.ts',
  'test/phone-change/waiting.test.ts',
  'test/phone-change/taken.test.ts',
  'test/migrations.test.ts',
  'test/live/account-events.test.ts',
  'test/live/listener.test.ts',
];

/**
 * The suites that drive Chromium or start a gateway. With TEST_SKIP_BROWSER_AND_GATEWAY=1 (CI's second
 * pass, on the embedded database, after they passed on PostgreSQL) they are left out: what they test
 * is the browser's or the gateway's side, the same on either database, and they are the slowest files.
 */
const BROWSER_AND_GATEWAY = [
  'test/console/admin.test.ts',
  'test/console/operators.test.ts',
  'test/console/session.test.ts',
  'test/console/search.test.ts',
  'test/console/phone-change.test.ts',
  'test/console/languages.test.ts',
  'test/console/live.test.ts',
  'test/graphql/explorer.test.ts',
  'test/passkeys/browser.test.ts',
  'test/identity/web-flow.test.ts',
  'test/identity/provider.test.ts',
  'test/federation/gateway.test.ts',
  'test/federation/gateway-subscriptions.test.ts',
  'test/client/browser.test.ts',
];

/**
 * Suites whose subject is the same on any database engine: pure logic, the documents, the HTTP and
 * GraphQL parsers and limits, the SMS providers' protocols, the message catalogues. With
 * TEST_ENGINE_PASS=1 (CI's second pass, on the embedded database) they are left out with
 * BROWSER_AND_GATEWAY, after they passed on PostgreSQL: that pass runs what depends on the engine.
 */
const ENGINE_INDEPENDENT = [
  'test/unit/',
  'test/docs/',
  'test/i18n/catalogues.test.ts',
  'test/i18n/messages.test.ts',
  'test/sms/template-providers.test.ts',
  'test/operability/sms-providers.test.ts',
  'test/operability/s3-storage.test.ts',
  'test/hardening/parser-errors.test.ts',
  'test/hardening/request-timeouts.test.ts',
  'test/hardening/serving-aborts.test.ts',
  'test/hardening/upload-streams.test.ts',
  'test/hardening/upload-client-errors.test.ts',
  'test/hardening/http.test.ts',
  'test/hardening/methods.test.ts',
  'test/hardening/suggestions.test.ts',
  'test/hardening/graphql-limits.test.ts',
  'test/hardening/sms-timeouts.test.ts',
  'test/avatar/serving.test.ts',
  'test/metrics/prometheus.test.ts',
  'test/federation/composition.test.ts',
  'test/federation/service-sdl.test.ts',
  'test/openapi.test.ts',
  'test/error-codes.test.ts',
  'test/live/sockets.test.ts',
];

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, NODE_ENV: 'test' };
const args = ['--experimental-vm-modules', join(root, 'node_modules/jest/bin/jest.js'), ...process.argv.slice(2)];
const cleanups = [];

if (!env.DATABASE_URL) {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const dir = await mkdtemp(join(tmpdir(), 'meeting-accounts-test-'));
  process.stdout.write(`No DATABASE_URL: starting an embedded database in ${dir}\n`);
  const db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm } });
  // Each test server holds one pooled connection plus one for the migration lock while it starts, and
  // a test that spawns services (six for the upload cut-offs) holds theirs too. A connection beyond
  // the limit is closed at once, so the limit is well above what the suite holds; the socket server
  // queues every connection's queries onto the one session (services on it start one at a time).
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  cleanups.push(async () => {
    await server.stop();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });
  env.DATABASE_URL = `postgres://postgres@${server.getServerConn()}/postgres`;
  // All connections share PGlite's one session: a named prepared statement of one would collide
  // with the same name prepared by another, so every service the tests start goes without them.
  env.TEST_EMBEDDED_DATABASE = '1';
  // One test file at a time (one session), in a worker that jest replaces once it holds more than
  // workerIdleMemoryLimit (package.json): each test file imports the whole service anew, and a
  // process running every file would outgrow its heap (as --runInBand did).
  args.push('--maxWorkers=1');
}

if (!env.TEST_REDIS_URL) {
  const redisServer = findOnPath('redis-server');
  if (redisServer) {
    const port = await freePort();
    const redis = spawn(redisServer, ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    cleanups.push(async () => {
      if (redis.exitCode === null) {
        redis.kill('SIGTERM');
        await once(redis, 'exit');
      }
    });
    await waitForRedis(port, 10_000);
    env.TEST_REDIS_URL = `redis://127.0.0.1:${port}`;
    process.stdout.write(`No TEST_REDIS_URL: started redis-server on 127.0.0.1:${port} for the tests that need Redis\n`);
  } else if (env.CI) {
    await cleanup();
    process.stderr.write('TEST_REDIS_URL is not set and redis-server is not on PATH: CI must test the Redis counters\n');
    process.exit(1);
  } else {
    env.TEST_REDIS_SKIP = 'TEST_REDIS_URL is not set and redis-server is not on PATH';
    process.stdout.write(`${env.TEST_REDIS_SKIP}: the tests of counters in Redis will be skipped\n`);
  }
}

if (!env.TEST_EMBEDDED_DATABASE && !env.TEST_PGBOUNCER_PORT) {
  if (findPgBouncer()) {
    const pgbouncer = await startPgBouncer({ target: env.DATABASE_URL }).catch(async (error) => {
      await cleanup();
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    });
    cleanups.push(() => pgbouncer.stop());
    env.TEST_PGBOUNCER_PORT = String(pgbouncer.port);
    process.stdout.write(`Started pgbouncer (transaction mode) on 127.0.0.1:${pgbouncer.port} for the tests through a pooler\n`);
  } else if (env.CI) {
    await cleanup();
    process.stderr.write('pgbouncer is not installed: CI must test the service behind a transaction-mode pooler (apt-get install -y pgbouncer)\n');
    process.exit(1);
  } else {
    env.TEST_PGBOUNCER_SKIP = 'pgbouncer is not installed (apt-get install -y pgbouncer)';
    process.stdout.write(`${env.TEST_PGBOUNCER_SKIP}: the tests through a transaction-mode pooler will be skipped\n`);
  }
}

const leftOut =
  env.TEST_ENGINE_PASS === '1' ? [...BROWSER_AND_GATEWAY, ...ENGINE_INDEPENDENT] : env.TEST_SKIP_BROWSER_AND_GATEWAY === '1' ? BROWSER_AND_GATEWAY : [];
if (leftOut.length > 0) {
  // A file ends the pattern; a folder (ending in /) leaves out everything under it.
  const escaped = leftOut.map((path) => path.replace(/[.]/g, '\\.') + (path.endsWith('/') ? '' : '$'));
  args.push(`--testPathIgnorePatterns=/(${escaped.join('|')})`);
  const why = env.TEST_ENGINE_PASS === '1' ? 'TEST_ENGINE_PASS=1 (what does not depend on the database engine ran on PostgreSQL)' : 'TEST_SKIP_BROWSER_AND_GATEWAY=1';
  process.stdout.write(`${why}: leaving out ${leftOut.join(', ')}\n`);
}

let code = await jest(args, env);
// The pooler pass: after a whole run only (not one of some files or tests), on PostgreSQL, with the pooler.
const cli = process.argv.slice(2);
const wholeRun = !cli.some((arg) => /^(-t|--testNamePattern|--testPathPatterns?)(=|$)/.test(arg) || (!arg.startsWith('-') && /[/.]|^test/.test(arg)));
if (code === 0 && wholeRun && env.TEST_PGBOUNCER_PORT && !env.TEST_DATABASE_POOL_MODE) {
  process.stdout.write(`\nThe pooler pass: ${POOLER_PASS.length} files again, every test server behind pgbouncer in transaction mode\n`);
  code = await jest([...args, ...POOLER_PASS], { ...env, TEST_DATABASE_POOL_MODE: 'transaction' });
}
await cleanup();
process.exit(code);

/** Runs jest with `argv`; resolves with its exit code. */
async function jest(argv, environment) {
  const child = spawn(process.execPath, argv, { stdio: 'inherit', env: environment, cwd: root });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, forward);
  const exit = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  for (const signal of ['SIGINT', 'SIGTERM']) process.off(signal, forward);
  return exit;
}

async function cleanup() {
  for (const step of cleanups.reverse()) await step().catch(() => undefined);
}

function findOnPath(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}


/** Resolves once Redis answers PING on `port`. */
async function waitForRedis(port, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const pong = await new Promise((resolve) => {
      const socket = createConnection(port, '127.0.0.1');
      let text = '';
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\r\n')) {
          socket.destroy();
          resolve(text.startsWith('+PONG'));
        }
      });
      socket.on('error', () => resolve(false));
    });
    if (pong) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on 127.0.0.1:${port} did not answer within ${ms} ms`);
}
