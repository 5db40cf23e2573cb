import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

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
  const db = await PGlite.create({ dataDir: directory });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 2 });
  await server.start();
  const conn = server.getServerConn();
  return {
    url: `postgres://postgres@${conn}/postgres`,
    directory,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
