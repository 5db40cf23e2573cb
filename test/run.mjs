// `npm test`: runs the whole suite against DATABASE_URL, or, when it is unset, against an embedded
// PGlite database started here (one connection, so the suite then runs in one worker). Tests that
// need Redis get TEST_REDIS_URL, or a redis-server of their own started here on a free port.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
  args.push('--runInBand');
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

const child = spawn(process.execPath, args, { stdio: 'inherit', env, cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
await cleanup();
process.exit(code);

async function cleanup() {
  for (const step of cleanups.reverse()) await step().catch(() => undefined);
}

function findOnPath(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
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
