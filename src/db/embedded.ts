import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import lockfile from 'proper-lockfile';

/** A lock not refreshed for this long belongs to a process that is gone (killed, say). */
const LOCK_STALE_MS = 10_000;

/** Raised when another process already has the embedded database of this DATA_DIR open. */
class DataDirInUseError extends Error {
  constructor(directory: string) {
    super(
      `the embedded database in ${directory} is in use by another process (lock ${directory}.lock). ` +
        'Stop that process, give this one another DATA_DIR, or set DATABASE_URL. ' +
        `A lock left by a killed process is released ${LOCK_STALE_MS / 1000} s after it died.`,
    );
    this.name = 'DataDirInUseError';
  }
}

export interface EmbeddedDatabase {
  url: string;
  directory: string;
  stop(): Promise<void>;
}

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) under `dataDir/pglite` behind a wire-protocol
 * socket on loopback, so the ordinary PostgreSQL driver can use it. PGlite is one session: callers
 * must use a pool of one connection.
 */
export async function startEmbeddedDatabase(dataDir: string, port = 0): Promise<EmbeddedDatabase> {
  const directory = resolve(dataDir, 'pglite');
  await mkdir(directory, { recursive: true });
  // PGlite opens its files without a lock of its own; two processes writing one directory would
  // corrupt it.
  const release = await lockfile
    .lock(directory, {
      stale: LOCK_STALE_MS,
      update: LOCK_STALE_MS / 5,
      retries: 0,
      onCompromised: (error) => {
        // Another process may own the directory now: stop rather than write it together.
        process.stderr.write(`the lock of the embedded database in ${directory} was lost (${error.message}); exiting\n`);
        process.exit(1);
      },
    })
    .catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ELOCKED' ? new DataDirInUseError(directory) : error;
    });
  try {
    // pg_trgm: the operators' search by nickname substring (its migration creates the extension).
    const db = await PGlite.create({ dataDir: directory, extensions: { pg_trgm } });
    // The holder's pool and migration lock, and one command-line tool (openSharedEmbeddedDatabase):
    // the socket server runs one connection's statements (a whole transaction) at a time.
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 3 });
    await server.start();
    const url = `postgres://postgres@${server.getServerConn()}/postgres`;
    await writeFile(endpointFile(directory), `${url}\n`, { mode: 0o600 });
    return {
      url,
      directory,
      async stop() {
        await rm(endpointFile(directory), { force: true });
        await server.stop();
        await db.close();
        await release();
      },
    };
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}

/** Where the process holding an embedded database says at which loopback address it serves it. */
function endpointFile(directory: string): string {
  return `${directory}.endpoint`;
}

/**
 * The embedded database of `dataDir` for a command-line tool: opened as startEmbeddedDatabase does
 * when no process holds it, or else reached through the socket of the process that does (a running
 * service), which serialises the tool's transactions with its own. `shared` says which; stopping a
 * shared one only lets go of it.
 */
export async function openSharedEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase & { shared: boolean }> {
  try {
    return { ...(await startEmbeddedDatabase(dataDir)), shared: false };
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    const directory = resolve(dataDir, 'pglite');
    const url = (await readFile(endpointFile(directory), 'utf8').catch(() => '')).trim();
    if (!url || !(await answers(new URL(url)))) throw error;
    return { url, directory, shared: true, stop: () => Promise.resolve() };
  }
}

/** Whether something accepts connections at the URL's host and port (within a second). */
function answers({ hostname, port }: URL): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    const end = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(1_000, () => end(false));
    socket.once('connect', () => end(true));
    socket.once('error', () => end(false));
  });
}
