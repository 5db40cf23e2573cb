// `npm test`: runs the whole suite against DATABASE_URL, or, when it is unset, against an embedded
// PGlite database started here (one connection, so the suite then runs in one worker).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, NODE_ENV: 'test' };
const args = ['--experimental-vm-modules', join(root, 'node_modules/jest/bin/jest.js'), ...process.argv.slice(2)];
let embedded;

if (!env.DATABASE_URL) {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const dir = await mkdtemp(join(tmpdir(), 'meeting-accounts-test-'));
  process.stdout.write(`No DATABASE_URL: starting an embedded database in ${dir}\n`);
  const db = await PGlite.create({ dataDir: dir });
  // Each test server holds one pooled connection plus one for the migration lock while it starts.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  embedded = { db, server, dir };
  env.DATABASE_URL = `postgres://postgres@${server.getServerConn()}/postgres`;
  env.TEST_EMBEDDED_DATABASE = '1';
  args.push('--runInBand');
}

const child = spawn(process.execPath, args, { stdio: 'inherit', env, cwd: root });
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (embedded) {
  await embedded.server.stop();
  await embedded.db.close();
  await rm(embedded.dir, { recursive: true, force: true });
}
process.exit(code);
