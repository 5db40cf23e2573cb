// PgBouncer for the tests and the benchmark: Debian's pgbouncer package, started here in front of a
// PostgreSQL on a free loopback port with its configuration in a temporary directory, as an
// unprivileged user when this process is root (PgBouncer refuses to run as root), and stopped by the
// caller. Its pooling is the documentation's recommended transaction mode and nothing else changed:
// `pool_mode = transaction`, `ignore_startup_parameters = extra_float_digits`, every other setting
// (default_pool_size 20, max_client_conn 100, …) its default; the rest of the file only says where
// to listen and lets the PostgreSQL user in. Self-contained (plain JS), like global-setup.mjs, so that
// test/run.mjs can use it too.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The recommended transaction-mode configuration (API.md 9.4), which the tests run against. */
const TRANSACTION_MODE = { pool_mode: 'transaction', ignore_startup_parameters: 'extra_float_digits' };

/** Where pgbouncer is installed (Debian puts it in /usr/sbin, often not on a user's PATH), or undefined. */
export function findPgBouncer() {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) if (dir && existsSync(join(dir, 'pgbouncer'))) return join(dir, 'pgbouncer');
  return undefined;
}

/**
 * Starts PgBouncer in front of the PostgreSQL of `target` (a postgres:// URL; every database name is
 * passed on to it) with `settings` (TRANSACTION_MODE unless given), its files in a new directory
 * under `parent` (the system's temporary directory unless given). Resolves once it accepts
 * connections; `url(database)` is a URL of that database through it.
 * @param {{ target: string, settings?: Record<string, string | number>, binary?: string, parent?: string }} options
 */
export async function startPgBouncer({ target, settings = TRANSACTION_MODE, binary = findPgBouncer(), parent = tmpdir() }) {
  if (!binary) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer)');
  const server = new URL(target);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = mkdtempSync(join(parent, 'meeting-accounts-pgbouncer-'));
  chmodSync(dir, 0o755); // read by the unprivileged user it runs as
  const port = await freePort();
  writeFileSync(join(dir, 'users.txt'), `"${user}" "${decodeURIComponent(server.password)}"\n`, { mode: 0o644 });
  const ini = [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || 5432}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    ...Object.entries(settings).map(([key, value]) => `${key} = ${value}`),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
  const asRoot = process.getuid?.() === 0;
  const child = spawn(binary, [join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}), // nobody
  });
  let log = '';
  child.stderr.on('data', (chunk) => (log += chunk.toString()));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM'); // PgBouncer's immediate shutdown (SIGINT would wait for its clients)
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, 10_000, () => child.exitCode !== null);
  } catch (error) {
    await stop();
    throw new Error(`pgbouncer did not start: ${error.message}\n${log}`);
  }
  return {
    port,
    pid: child.pid,
    /** A URL of `database` on the target's PostgreSQL, through this PgBouncer. */
    url(database) {
      const through = new URL(target);
      through.host = `127.0.0.1:${port}`;
      if (database !== undefined) through.pathname = `/${database}`;
      return through.toString();
    },
    log: () => log,
    /** The settings file, for a report. */
    ini: () => readFileSync(join(dir, 'pgbouncer.ini'), 'utf8'),
    stop,
  };
}

/** A loopback port free now. */
export async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port, ms, gone) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (gone()) throw new Error('it exited');
    const open = await new Promise((resolve) => {
      const socket = createConnection(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
}
